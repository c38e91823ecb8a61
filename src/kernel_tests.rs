//! Every kernel the crate builds, in every configuration it builds (each operation lists its
//! own): composed, validated by naga, checked against naga's reflection (the bindings the entry
//! point uses, and its workgroup memory, must be what the operation's Rust side declares), then
//! translated to SPIR-V (Vulkan), MSL (Metal), HLSL (DX12) and GLSL ES 3.1 (OpenGL). This is how
//! the Metal and DX12 backends are covered without their hardware, and why no binding table is
//! mirrored by hand without a check.

use naga::back::{glsl, hlsl, msl, spv};
use naga::valid::{Capabilities, ValidationFlags, Validator};

use crate::pipeline::{Binding, Kernel, Specialization, READ, UNIFORM, WRITE};

/// One pipeline the crate builds, and the workgroup memory its operation counts for it.
pub(crate) struct Configuration {
    pub(crate) kernel: &'static Kernel,
    pub(crate) specialization: Specialization,
    pub(crate) workgroup_memory: u64,
}

fn configurations() -> Vec<Configuration> {
    let mut all = Vec::new();
    all.extend(crate::partition::configurations());
    all.extend(crate::merge::configurations());
    all.extend(crate::merge_sort::configurations());
    all.extend(crate::radix_sort::configurations());
    all.extend(crate::dedup::configurations());
    all.extend(crate::difference_by_key::configurations());
    all.extend(crate::search_sorted::configurations());
    all.extend(crate::set::configurations());
    all.extend(crate::scan::configurations());
    all.extend(crate::validate::configurations());
    all
}

/// Whether the configuration uses subgroup operations.
fn uses_subgroups(configuration: &Configuration) -> bool {
    let params = &configuration.specialization.params;
    params
        .iter()
        .any(|(_, module)| module.contains("subgroups"))
}

/// What naga reflects of the entry point: the bindings it uses, sorted, and its workgroup memory.
fn reflect(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry: &str,
) -> Result<(Vec<Binding>, u64), String> {
    let index = module
        .entry_points
        .iter()
        .position(|e| e.name == entry)
        .ok_or_else(|| format!("no entry point {entry}"))?;
    let uses = info.get_entry_point(index);
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| format!("layout: {e}"))?;
    let mut bindings = Vec::new();
    let mut workgroup = 0;
    for (handle, global) in module.global_variables.iter() {
        if uses[handle].is_empty() {
            continue;
        }
        match global.space {
            naga::AddressSpace::WorkGroup => workgroup += u64::from(layouter[global.ty].size),
            naga::AddressSpace::Uniform => {
                let binding = global.binding.as_ref().ok_or("uniform without binding")?;
                bindings.push((binding.binding, UNIFORM));
            }
            naga::AddressSpace::Storage { access } => {
                let binding = global.binding.as_ref().ok_or("storage without binding")?;
                let ty = if access.contains(naga::StorageAccess::STORE) {
                    WRITE
                } else {
                    READ
                };
                bindings.push((binding.binding, ty));
            }
            _ => {}
        }
    }
    bindings.sort_by_key(|&(binding, _)| binding);
    Ok((bindings, workgroup))
}

fn check(configuration: &Configuration) -> Result<(), String> {
    let kernel = configuration.kernel;
    let specialization = &configuration.specialization;
    let source = specialization.source(kernel)?;
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| e.emit_to_string(&source))?;
    let subgroups = uses_subgroups(configuration);
    let capabilities = if subgroups {
        Capabilities::SUBGROUP
    } else {
        Capabilities::empty()
    };
    let mut validator = Validator::new(ValidationFlags::all(), capabilities);
    let info = validator
        .validate(&module)
        .map_err(|e| e.emit_to_string(&source))?;
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in specialization.constants() {
        constants.insert(name.to_string(), value);
    }
    let stage = naga::ShaderStage::Compute;
    let entry = kernel.entry;
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((stage, entry)),
        &constants,
    )
    .map_err(|e| format!("overrides: {e}"))?;

    let (bindings, workgroup_memory) = reflect(&module, &info, entry)?;
    let declared = kernel.bindings(specialization.with_values);
    if bindings != declared {
        return Err(format!(
            "bindings: the WGSL uses {bindings:?}, the kernel declares {declared:?}"
        ));
    }
    if workgroup_memory != configuration.workgroup_memory {
        return Err(format!(
            "workgroup memory: the WGSL uses {workgroup_memory} bytes, the operation counts {}",
            configuration.workgroup_memory
        ));
    }

    // As wgpu builds wgmerge's pipelines (pipeline.rs: `ShaderRuntimeChecks::unchecked()`,
    // workgroup memory not zeroed), so that the SPIR-V dumped below is what the driver compiles:
    // loops without forced bounds (which kept NVIDIA's compiler from unrolling any of them) and
    // no zeroing of workgroup memory.
    let spv_options = spv::Options {
        lang_version: if subgroups { (1, 3) } else { (1, 0) },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: false,
        emit_int_div_checks: false,
        ..Default::default()
    };
    let words = spv::write_vec(
        &module,
        &info,
        &spv_options,
        Some(&spv::PipelineOptions {
            shader_stage: stage,
            entry_point: entry.into(),
        }),
    )
    .map_err(|e| format!("SPIR-V: {e}"))?;
    dump_spirv(configuration, &bindings, &words).map_err(|e| format!("dump: {e}"))?;
    let msl_options = msl::Options {
        lang_version: if subgroups { (2, 4) } else { (1, 0) },
        ..Default::default()
    };
    msl::write_string(
        &module,
        &info,
        &msl_options,
        &msl::PipelineOptions {
            entry_point: Some((stage, entry.into())),
            ..Default::default()
        },
    )
    .map_err(|e| format!("MSL: {e}"))?;
    let hlsl_pipeline = hlsl::PipelineOptions {
        entry_point: Some((stage, entry.into())),
    };
    let hlsl_options = hlsl::Options {
        shader_model: if subgroups {
            hlsl::ShaderModel::V6_0
        } else {
            hlsl::Options::default().shader_model
        },
        ..Default::default()
    };
    let mut hlsl_out = String::new();
    hlsl::Writer::new(&mut hlsl_out, &hlsl_options, &hlsl_pipeline)
        .write(&module, &info, None)
        .map_err(|e| format!("HLSL: {e}"))?;
    // wgpu's OpenGL backend has no subgroups; the crate never asks for them there.
    if !subgroups {
        let glsl_options = glsl::Options {
            version: glsl::Version::Embedded {
                version: 310,
                is_webgl: false,
            },
            ..Default::default()
        };
        let glsl_pipeline = glsl::PipelineOptions {
            shader_stage: stage,
            entry_point: entry.into(),
            multiview: None,
        };
        let mut glsl_out = String::new();
        glsl::Writer::new(
            &mut glsl_out,
            &module,
            &info,
            &glsl_options,
            &glsl_pipeline,
            naga::proc::BoundsCheckPolicies::default(),
        )
        .and_then(|mut w| w.write())
        .map_err(|e| format!("GLSL: {e}"))?;
    }
    Ok(())
}

/// With `WGMERGE_DUMP_SPIRV=dir`, writes the configuration's SPIR-V to `dir/N.spv` and a line to
/// `dir/index.txt` (N, entry point, bindings, specialization), for examples/pipeline_stats.rs to
/// ask a Vulkan driver what it compiled them to (registers, workgroup memory). Only
/// configurations whose entry point or specialization contains every comma-separated word of
/// `WGMERGE_DUMP_SPIRV_FILTER` are written.
fn dump_spirv(
    configuration: &Configuration,
    bindings: &[Binding],
    words: &[u32],
) -> std::io::Result<()> {
    use std::io::Write;
    let Ok(dir) = std::env::var("WGMERGE_DUMP_SPIRV") else {
        return Ok(());
    };
    let description = format!("{:?}", configuration.specialization);
    let filter = std::env::var("WGMERGE_DUMP_SPIRV_FILTER").unwrap_or_default();
    let entry = configuration.kernel.entry;
    if !filter
        .split(',')
        .all(|word| entry.contains(word) || description.contains(word))
    {
        return Ok(());
    }
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir)?;
    let mut index = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("index.txt"))?;
    let n = std::fs::read_dir(dir)?.count();
    std::fs::write(dir.join(format!("{n}.spv")), bytemuck::cast_slice(words))?;
    let bindings: Vec<String> = bindings
        .iter()
        .map(|&(binding, kind)| format!("{binding}:{}", if kind == UNIFORM { "u" } else { "s" }))
        .collect();
    writeln!(
        index,
        "{n}.spv {} {} {description}",
        configuration.kernel.entry,
        bindings.join(",")
    )
}

#[test]
fn every_kernel_matches_its_description_and_translates_to_every_backend() {
    let configurations = configurations();
    let mut failures = Vec::new();
    for configuration in &configurations {
        if let Err(e) = check(configuration) {
            failures.push(format!(
                "{} ({:?}): {e}",
                configuration.kernel.entry, configuration.specialization
            ));
        }
    }
    // The first few are enough to read.
    let shown: Vec<_> = failures.iter().take(6).cloned().collect();
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        shown.join("\n\n")
    );
    println!(
        "{} kernel configurations match their descriptions and translate to SPIR-V, MSL, HLSL \
         and GLSL",
        configurations.len()
    );
}

#[test]
fn every_entry_file_is_some_kernel() {
    let configurations = configurations();
    for path in crate::shader::paths().filter(|p| !p.starts_with("lib/")) {
        assert!(
            configurations.iter().any(|c| c.kernel.file == path),
            "shaders/{path}.wgsl has no kernel"
        );
    }
}
