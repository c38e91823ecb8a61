//! Values that move with keys: the checks of their size (4 or 8 bytes) every operation with
//! values makes, and the value bytes of slice forms' inputs.

use bytemuck::Pod;

use crate::Error;

/// Value bytes of both inputs of a slice-form merge or set operation, with their size.
#[derive(Clone, Copy)]
pub(crate) struct HostValues<'a> {
    pub(crate) a: &'a [u8],
    pub(crate) b: &'a [u8],
    pub(crate) size: u32,
}

/// Checks bytes per value of resident buffers: 4 or 8, or 0 for none.
pub(crate) fn check_value_size(size: u32) -> Result<u32, Error> {
    match size {
        0 | 4 | 8 => Ok(size),
        _ => Err(Error::InvalidOptions(format!(
            "values must be 4 or 8 bytes, not {size}"
        ))),
    }
}

/// The size of value type `V`, which must be 4 or 8 bytes.
pub(crate) fn value_size<V>() -> Result<u32, Error> {
    match std::mem::size_of::<V>() {
        size @ (4 | 8) => Ok(size as u32),
        size => Err(Error::InvalidOptions(format!(
            "values must be 4 or 8 bytes, not {size}"
        ))),
    }
}

/// The value bytes of one input of pairs and their size, after checking the value type's size
/// and that there is a value per key (`what` names the two in the error).
pub(crate) fn host_values<'a, K, V: Pod>(
    keys: &[K],
    values: &'a [V],
    what: &'static str,
) -> Result<(&'a [u8], u32), Error> {
    let size = value_size::<V>()?;
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch {
            what,
            left: keys.len(),
            right: values.len(),
        });
    }
    Ok((bytemuck::cast_slice(values), size))
}

impl<'a> HostValues<'a> {
    /// The values of two inputs of pairs, after checking the value type's size and that each
    /// input has as many values as keys.
    pub(crate) fn of<K, V: Pod>(
        a_keys: &[K],
        a_values: &'a [V],
        b_keys: &[K],
        b_values: &'a [V],
    ) -> Result<Self, Error> {
        let (a, size) = host_values(a_keys, a_values, "A keys and values")?;
        let (b, _) = host_values(b_keys, b_values, "B keys and values")?;
        Ok(HostValues { a, b, size })
    }
}
