// The number of keys, from the host: the kernel's `params.len`.

fn key_len() -> u32 {
    return params.len;
}
