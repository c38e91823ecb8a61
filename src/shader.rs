//! WGSL composition. Every WGSL file under `shaders/` names the modules it uses with `#import`
//! lines, as vello's shaders do; [`compose`] resolves them into one module for naga. It knows
//! files and parameters, never operations:
//!
//! - `#import lib/co_rank` imports `shaders/lib/co_rank.wgsl`;
//! - `#import key` (a name without `/`) imports the module the caller binds to the parameter
//!   `key`, such as `lib/keys/u32`: one entry file serves every key type, value size and stage.
//!
//! Each module is included once, after the modules it imports (WGSL allows declarations in any
//! order, but this keeps the text readable and compiler messages traceable to a file: each
//! module is headed by a comment naming it). `enable` directives, which WGSL wants before any
//! declaration, are gathered at the top. Workgroup sizes and the like are override constants set
//! when a pipeline is built (pipeline.rs), so no text is generated.

/// Every WGSL file under `shaders/`, by path without the extension.
const FILES: &[(&str, &str)] = &[
    wgsl!("lib/co_rank"),
    wgsl!("lib/dispatch"),
    wgsl!("lib/keys/f32"),
    wgsl!("lib/keys/i32"),
    wgsl!("lib/keys/i64"),
    wgsl!("lib/keys/u32"),
    wgsl!("lib/keys/u64"),
    wgsl!("lib/key_count/buffer"),
    wgsl!("lib/key_count/host"),
    wgsl!("lib/merge_io"),
    wgsl!("lib/merge_path/keys"),
    wgsl!("lib/merge_path/pairs"),
    wgsl!("lib/ballot"),
    wgsl!("lib/look_back"),
    wgsl!("lib/look_back_window/plain"),
    wgsl!("lib/look_back_window/subgroups"),
    wgsl!("lib/merge_tile"),
    wgsl!("lib/balanced_path"),
    wgsl!("lib/move_values/index"),
    wgsl!("lib/move_values/none"),
    wgsl!("lib/move_values/words"),
    wgsl!("lib/radix_rank/masks"),
    wgsl!("lib/radix_rank/subgroups"),
    wgsl!("lib/rank_rounds/looped"),
    wgsl!("lib/rank_rounds/round"),
    wgsl!("lib/rank_rounds/unrolled"),
    wgsl!("lib/order"),
    wgsl!("lib/scan_io/scalar"),
    wgsl!("lib/scan_io/vec4"),
    wgsl!("lib/scan_op"),
    wgsl!("lib/search"),
    wgsl!("lib/segments"),
    wgsl!("lib/tiling/runs"),
    wgsl!("lib/tiling/table"),
    wgsl!("lib/select"),
    wgsl!("lib/select_io/scalar"),
    wgsl!("lib/select_io/vec4"),
    wgsl!("lib/subgroup_reduce"),
    wgsl!("lib/sort_block/keys"),
    wgsl!("lib/sort_block/pairs"),
    wgsl!("lib/values/common"),
    wgsl!("lib/values/none"),
    wgsl!("lib/values/u32"),
    wgsl!("lib/values/vec2"),
    wgsl!("lib/workgroup_scan/plain"),
    wgsl!("lib/workgroup_scan/subgroups"),
    wgsl!("dedup"),
    wgsl!("difference_by_key"),
    wgsl!("merge_basic"),
    wgsl!("merge_circular"),
    wgsl!("merge_path"),
    wgsl!("merge_sort"),
    wgsl!("merge_tiled"),
    wgsl!("partition"),
    wgsl!("radix_sort"),
    wgsl!("reduce"),
    wgsl!("scan"),
    wgsl!("search_sorted"),
    wgsl!("set"),
    wgsl!("validate"),
];

macro_rules! wgsl {
    ($path:literal) => {
        ($path, include_str!(concat!("../shaders/", $path, ".wgsl")))
    };
}
use wgsl;

/// The text of `shaders/<path>.wgsl`.
pub(crate) fn file(path: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, text)| *text)
}

/// The paths of every WGSL file, for tests.
#[cfg(test)]
pub(crate) fn paths() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(path, _)| *path)
}

/// Composes entry file `entry` and everything it imports, with `params` binding each parameter
/// name to a module path. Errors name a missing file or an unbound parameter: they are mistakes
/// in wgmerge, never in its input.
///
/// `#import <path or parameter>` includes a module once, before the file that imports it.
/// `#inline <path>` writes a fragment's text in place of the line, each time, indented as the line
/// is: a statement list two functions share where a call would cost (the radix rank's round,
/// lib/rank_rounds/round.wgsl). A fragment has no directives of its own.
pub(crate) fn compose(entry: &str, params: &[(&str, &str)]) -> Result<String, String> {
    let mut included = Vec::new();
    let mut directives = Vec::new();
    let mut body = String::new();
    include(
        entry,
        params,
        &mut included,
        &mut directives,
        &mut body,
        &mut Vec::new(),
    )?;
    let mut out = String::new();
    for directive in directives {
        out.push_str(directive);
        out.push('\n');
    }
    out.push_str(&body);
    Ok(out)
}

/// Appends `path` to `body` after the modules it imports; `stack` holds the chain of imports
/// being resolved, to report cycles.
fn include<'a>(
    path: &'a str,
    params: &[(&'a str, &'a str)],
    included: &mut Vec<&'a str>,
    directives: &mut Vec<&'static str>,
    body: &mut String,
    stack: &mut Vec<&'a str>,
) -> Result<(), String> {
    if included.contains(&path) {
        return Ok(());
    }
    if stack.contains(&path) {
        return Err(format!("import cycle: {} -> {path}", stack.join(" -> ")));
    }
    let text = file(path).ok_or_else(|| format!("no WGSL file shaders/{path}.wgsl"))?;
    stack.push(path);
    let mut own = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("#import ") {
            let name = name.trim();
            let target = if name.contains('/') {
                name
            } else {
                params
                    .iter()
                    .find(|(parameter, _)| *parameter == name)
                    .map(|&(_, module)| module)
                    .ok_or_else(|| format!("{path}.wgsl imports parameter `{name}`, unbound"))?
            };
            include(target, params, included, directives, body, stack)?;
            own.push_str("// (imported: ");
            own.push_str(target);
            own.push_str(")\n");
        } else if let Some(name) = trimmed.strip_prefix("#inline ") {
            let name = name.trim();
            let fragment = file(name).ok_or_else(|| format!("no WGSL file shaders/{name}.wgsl"))?;
            let indent = &line[..line.len() - line.trim_start().len()];
            for fragment_line in fragment.lines() {
                if fragment_line.trim_start().starts_with('#') {
                    return Err(format!("{name}.wgsl is inlined and has a directive"));
                }
                if !fragment_line.is_empty() {
                    own.push_str(indent);
                }
                own.push_str(fragment_line);
                own.push('\n');
            }
        } else if trimmed.starts_with("enable ") {
            if !directives.contains(&trimmed) {
                directives.push(trimmed);
            }
        } else {
            own.push_str(line);
            own.push('\n');
        }
    }
    stack.pop();
    included.push(path);
    body.push_str("// ---- ");
    body.push_str(path);
    body.push_str(".wgsl ----\n");
    body.push_str(&own);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_under_shaders_is_known() {
        fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("shaders/ readable") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    walk(&path, root, out);
                } else if path.extension().is_some_and(|e| e == "wgsl") {
                    let relative = path.strip_prefix(root).expect("under shaders/");
                    out.push(
                        relative
                            .with_extension("")
                            .to_string_lossy()
                            .replace('\\', "/"),
                    );
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
        let mut on_disk = Vec::new();
        walk(&root, &root, &mut on_disk);
        on_disk.sort();
        let mut known: Vec<String> = paths().map(String::from).collect();
        known.sort();
        assert_eq!(
            on_disk, known,
            "shader.rs's FILES must list every WGSL file"
        );
    }

    #[test]
    fn imports_come_first_and_once() {
        let source = compose(
            "merge_basic",
            &[("key", "lib/keys/u32"), ("values", "lib/values/u32")],
        )
        .expect("composes");
        let position = |name: &str| {
            source
                .find(&format!("// ---- {name}.wgsl ----\n"))
                .unwrap_or_else(|| panic!("{name} included"))
        };
        assert!(position("lib/keys/u32") < position("lib/order"));
        assert!(position("lib/order") < position("lib/co_rank"));
        assert!(position("lib/values/common") < position("lib/values/u32"));
        assert!(position("lib/co_rank") < position("merge_basic"));
        assert_eq!(source.matches("// ---- lib/keys/u32.wgsl ----").count(), 1);
        assert!(!source.contains("#import"));
    }

    /// A fragment is written where each `#inline` stands, indented as the line: the radix rank's
    /// round in looped.wgsl's loop and in unrolled.wgsl's function.
    #[test]
    fn fragments_are_inlined_in_place() {
        let first_line = file("lib/rank_rounds/round")
            .expect("the fragment")
            .lines()
            .find(|line| !line.starts_with("//") && !line.is_empty())
            .expect("a statement")
            .to_string();
        for (module, indent) in [("looped", "        "), ("unrolled", "    ")] {
            let params = [("rank_rounds", ["lib/rank_rounds/", module].concat())];
            let params: Vec<(&str, &str)> = params.iter().map(|(p, m)| (*p, m.as_str())).collect();
            let source = compose("lib/radix_rank/subgroups", &params).expect("composes");
            let directive = |line: &str| line.trim_start().starts_with('#');
            assert!(!source.lines().any(directive), "{module}");
            assert_eq!(
                source.matches(&format!("\n{indent}{first_line}\n")).count(),
                1
            );
        }
    }

    #[test]
    fn unbound_parameters_and_missing_files_are_errors() {
        let error = compose("merge_basic", &[("key", "lib/keys/u32")]).unwrap_err();
        assert!(error.contains("`values`"), "{error}");
        let error =
            compose("merge_basic", &[("key", "lib/keys/u128"), ("values", "x")]).unwrap_err();
        assert!(error.contains("lib/keys/u128"), "{error}");
    }
}
