//! `WGPU_ADAPTER_NAME` naming no adapter is `Error::NoAdapter`, not a panic inside wgpu. In a
//! test binary of its own: it sets the variable for the whole process.

#[test]
fn an_adapter_name_that_matches_none_is_no_adapter() {
    std::env::set_var("WGPU_ADAPTER_NAME", "no adapter has this name");
    let result = wgmerge::Gpu::new();
    std::env::remove_var("WGPU_ADAPTER_NAME");
    match result {
        Err(wgmerge::Error::NoAdapter(message)) => {
            assert!(message.contains("no adapter has this name"), "{message}")
        }
        other => panic!("expected NoAdapter, got {other:?}"),
    }
}
