//! The sortedness check behind the `validate` options (`validate.wgsl`): the first index whose key
//! is strictly before the one ahead of it, atomically minimised into a word the host reads back.

use crate::device::{bind_elements, dispatch, entry, whole};
use crate::key::{Key, KeyType, Order};
use crate::pipeline::{Kernel, Specialization, READ, UNIFORM, WRITE};
use crate::{Error, Gpu, Side};

/// `find_unsorted` in validate.wgsl.
pub(crate) static VALIDATE: Kernel = Kernel {
    file: "validate",
    entry: "find_unsorted",
    bindings: &[(0, UNIFORM), (1, READ), (2, WRITE)],
    value_bindings: &[],
};

/// Invocations per workgroup: one key pair each.
const WORKGROUP_SIZE: u32 = 256;

fn specialization(key: KeyType, order: Order) -> Specialization {
    Specialization {
        params: vec![("key", key.module())],
        constants: vec![
            ("WORKGROUP_SIZE", WORKGROUP_SIZE),
            ("DESCENDING", u32::from(order == Order::Descending)),
        ],
        with_values: false,
    }
}

/// Words that receive the checks' results: `count` of them, each starting at `u32::MAX` (none
/// unsorted). Made for each piece, so recorded checks never share one.
fn result_words(gpu: &Gpu, count: usize) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("wgmerge first unsorted"),
            contents: bytemuck::cast_slice(&vec![u32::MAX; count]),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        })
}

impl Gpu {
    /// Records a check of the first `len` keys of `keys`, leaving the first out-of-order index in
    /// word `word` of `result` (or `u32::MAX`).
    pub(crate) fn record_validate(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (key, order): (KeyType, Order),
        keys: &wgpu::Buffer,
        len: usize,
        result: &wgpu::Buffer,
        word: usize,
    ) -> Result<(), Error> {
        if len < 2 {
            return Ok(());
        }
        let groups = (len as u32 - 1).div_ceil(WORKGROUP_SIZE);
        let shape = self.dispatch_shape(groups)?;
        let params = self.uniform(
            "wgmerge validate params",
            bytemuck::bytes_of(&[len as u32, word as u32, 0, 0]),
        );
        let bind_group = self.bind_group(
            &VALIDATE,
            false,
            &[
                whole(0, &params),
                entry(1, bind_elements(keys, 0, len, key.size(), keys)),
                whole(2, result),
            ],
        );
        let pipeline = self.pipeline(&VALIDATE, &specialization(key, order))?;
        dispatch(encoder, "find_unsorted", &pipeline, &bind_group, shape);
        Ok(())
    }

    /// Records the checks of a two-input piece: A's first `a_len` keys into word 0 of a new
    /// buffer, B's first `b_len` into word 1. Returns the words for the driver to read back
    /// ([`unsorted_either`] reads them).
    pub(crate) fn record_validate_both(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        key_order: (KeyType, Order),
        (a, a_len): (&wgpu::Buffer, usize),
        (b, b_len): (&wgpu::Buffer, usize),
    ) -> Result<Vec<(wgpu::Buffer, u64)>, Error> {
        let words = result_words(self, 2);
        self.record_validate(encoder, key_order, a, a_len, &words, 0)?;
        self.record_validate(encoder, key_order, b, b_len, &words, 1)?;
        Ok(vec![(words.clone(), 0), (words, 4)])
    }
}

/// The error [`Gpu::record_validate_both`]'s words report, A's before B's, for a piece whose
/// checked keys start at index `a_start` of `a` and `b_start` of `b`.
pub(crate) fn unsorted_either<K: Key>(
    (a, a_start): (&[K], usize),
    (b, b_start): (&[K], usize),
    words: &[u32],
    order: Order,
) -> Result<(), Error> {
    unsorted(Side::A, a, a_start, words[0], order)
        .or_else(|| unsorted(Side::B, b, b_start, words[1], order))
        .map_or(Ok(()), Err)
}

/// The error a check's word reports for `side`, whose checked keys are `keys` from index `start`
/// of the input, if any.
fn unsorted<K: Key>(
    side: Side,
    keys: &[K],
    start: usize,
    word: u32,
    order: Order,
) -> Option<Error> {
    (word != u32::MAX).then(|| unsorted_at(side, keys, start + word as usize, order))
}

/// [`Error::Unsorted`] at `index` of `keys`.
pub(crate) fn unsorted_at<K: Key>(side: Side, keys: &[K], index: usize, order: Order) -> Error {
    let show = |i: usize| keys.get(i).map_or_else(String::new, |k| format!("{k:?}"));
    Error::Unsorted {
        side,
        index,
        key: show(index),
        previous: show(index.wrapping_sub(1)),
        order,
    }
}

/// Configurations the crate builds, for the kernel tests.
#[cfg(test)]
pub(crate) fn configurations() -> Vec<crate::kernel_tests::Configuration> {
    let mut out = Vec::new();
    for key in KeyType::ALL {
        for order in [Order::Ascending, Order::Descending] {
            out.push(crate::kernel_tests::Configuration {
                kernel: &VALIDATE,
                specialization: specialization(key, order),
                workgroup_memory: 0,
            });
        }
    }
    out
}
