// The number of keys, written by earlier GPU work into the first word of a buffer, and at most
// the kernel's `params.len` (the capacity its dispatch and temporaries were sized for).

@group(0) @binding(8) var<storage, read> key_count: array<u32>;

fn key_len() -> u32 {
    return min(key_count[0], params.len);
}
