// u32 keys: compared as stored.

alias Key = u32;

fn key_less(x: Key, y: Key) -> bool {
    return x < y;
}
