//! The crate's one error type.

/// Everything that can go wrong in wgmerge. No public function panics on bad input; it returns
/// one of these.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No adapter matched the request (no GPU, no software driver such as Mesa's lavapipe).
    #[error("no GPU adapter found: {0}")]
    NoAdapter(String),
    /// The adapter refused the device request.
    #[error("could not open the GPU device: {0}")]
    RequestDevice(String),
    /// An input or output is longer than this device's limits allow.
    #[error("{what} needs {len} elements but this device allows at most {max}")]
    TooLarge {
        /// Which input or output.
        what: &'static str,
        /// Elements requested.
        len: usize,
        /// Elements this device allows.
        max: usize,
    },
    /// Two inputs that must have the same length do not.
    #[error("{what}: lengths differ ({left} and {right})")]
    LengthMismatch {
        /// Which pair of inputs.
        what: &'static str,
        /// Length of the first.
        left: usize,
        /// Length of the second.
        right: usize,
    },
    /// A caller's buffer is smaller than the elements it must hold.
    #[error("buffer {buffer} holds {actual} bytes but {needed} are needed")]
    BufferTooSmall {
        /// Which buffer.
        buffer: &'static str,
        /// Bytes required.
        needed: u64,
        /// Bytes the buffer has.
        actual: u64,
    },
    /// A caller's buffer lacks a usage the merge needs.
    #[error("buffer {buffer} lacks usage {needed:?}")]
    MissingUsage {
        /// Which buffer.
        buffer: &'static str,
        /// Usages the buffer must have.
        needed: wgpu::BufferUsages,
    },
    /// An option is out of range for the algorithm or this device.
    #[error("invalid option: {0}")]
    InvalidOptions(String),
    /// The device cannot run this operation at all (for example, too few storage bindings).
    #[error("not supported on this device: {0}")]
    Unsupported(String),
    /// An input is not sorted in the operation's order (found only with the `validate` options).
    /// The message names both keys: `A[1] = 1 comes before A[0] = 3, order ascending`.
    #[error("input {side:?} is not sorted: {side:?}[{index}] = {key} comes before {side:?}[{previous_index}] = {previous}, order {order}", previous_index = index - 1)]
    Unsorted {
        /// Which input.
        side: Side,
        /// The first index whose key belongs before the previous one.
        index: usize,
        /// That key, formatted with `{:?}`.
        key: String,
        /// The key before it, formatted with `{:?}`.
        previous: String,
        /// The order the input should be in.
        order: crate::Order,
    },
    /// One buffer is bound as two arrays of a resident operation, and at least one of them is
    /// written: wgpu cannot bind a buffer for reading and writing at once, and the result would
    /// depend on the order of the GPU's accesses.
    #[error("buffers {first} and {second} are the same buffer, and {second} is written")]
    Aliased {
        /// The first array bound to it.
        first: &'static str,
        /// The written array bound to it too.
        second: &'static str,
    },
    /// The GPU refused an allocation, or the host has no memory for a result.
    #[error("out of memory: {0}")]
    OutOfMemory(String),
    /// wgpu rejected a command (a bug in wgmerge or a buffer it was given).
    #[error("GPU validation error: {0}")]
    Validation(String),
    /// The device was lost (driver reset, GPU removed) or a wgpu internal error occurred.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
}

/// One of a merge's two inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first input.
    A,
    /// The second input.
    B,
}

impl Error {
    /// Turns an error caught by a wgpu error scope into ours.
    pub(crate) fn from_wgpu(error: wgpu::Error) -> Self {
        match error {
            wgpu::Error::OutOfMemory { source } => {
                Error::OutOfMemory(format!("the GPU refused an allocation: {source}"))
            }
            wgpu::Error::Validation { description, .. } => Error::Validation(description),
            wgpu::Error::Internal { description, .. } => Error::DeviceLost(description),
        }
    }
}
