//! Every shader in every configuration the crate builds: parsed and validated by naga, then
//! translated to SPIR-V (Vulkan), MSL (Metal), HLSL (DX12) and GLSL ES 3.1 (OpenGL). This is how
//! the Metal and DX12 backends are covered without their hardware.

use naga::back::{glsl, hlsl, msl, spv};
use naga::valid::{Capabilities, ValidationFlags, Validator};
use wgmerge::shader::{Kernel, PipelineConfig};
use wgmerge::{Algorithm, KeyType, MergeOptions, Order, SetOperation};

/// The configurations the crate can build: each kernel's defaults for every key type, order and
/// value size, plus the shapes the tests and benchmarks use.
fn configurations() -> Vec<(Kernel, PipelineConfig)> {
    let mut out = vec![(Kernel::Copy, PipelineConfig::keys(KeyType::U32, 256, 4))];
    for key in KeyType::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let config = PipelineConfig {
                order,
                ..PipelineConfig::keys(key, 256, 1)
            };
            out.push((Kernel::Validate, config));
        }
    }
    // The set operation's passes, in their default shape and the tests' shapes.
    let set_kernels = SetOperation::ALL.map(Kernel::SetMark).into_iter().chain([
        Kernel::SetScanBlocks,
        Kernel::SetScanLocal,
        Kernel::SetScatter,
    ]);
    for kernel in set_kernels {
        for key in KeyType::ALL {
            for (workgroup_size, items_per_thread) in [(256, 4), (1, 1), (4, 2), (96, 3), (256, 7)]
            {
                for order in [Order::Ascending, Order::Descending] {
                    for value_size in [0, 4, 8] {
                        let config = PipelineConfig {
                            order,
                            value_size,
                            ..PipelineConfig::keys(key, workgroup_size, items_per_thread)
                        };
                        out.push((kernel, config));
                    }
                }
            }
        }
    }
    for algorithm in Algorithm::ALL {
        for key in KeyType::ALL {
            let (workgroup, items) = algorithm.default_shape(key, false);
            let (pairs_workgroup, pairs_items) = algorithm.default_shape(key, true);
            let mut shapes = vec![(workgroup, items), (pairs_workgroup, pairs_items)];
            shapes.extend(algorithm.large_shapes(false));
            shapes.extend(algorithm.large_shapes(true));
            shapes.extend_from_slice(if key == KeyType::U32 {
                &[(1, 1), (4, 2), (96, 3), (256, 8), (1024, 1)]
            } else {
                &[(1, 1), (96, 3)]
            });
            // The defaults may coincide.
            shapes.sort_unstable();
            shapes.dedup();
            for (workgroup_size, items_per_thread) in shapes {
                for order in [Order::Ascending, Order::Descending] {
                    let keys = PipelineConfig {
                        order,
                        ..PipelineConfig::keys(key, workgroup_size, items_per_thread)
                    };
                    for value_size in [0, 4, 8] {
                        out.push((algorithm.kernel(), PipelineConfig { value_size, ..keys }));
                    }
                    if algorithm == Algorithm::MergePath {
                        for lanes in [1, 2, 32] {
                            for chunks in [false, true] {
                                out.push((Kernel::MergePathPartition { lanes, chunks }, keys));
                            }
                        }
                        for value_size in [0, 4, 8] {
                            let config = PipelineConfig { value_size, ..keys };
                            out.push((Kernel::MergePathTiles, config));
                            out.push((Kernel::MergePathChunks, config));
                        }
                        // Merge sort runs in merge path's shapes.
                        for value_size in [0, 4, 8] {
                            out.push((Kernel::SortBlock, PipelineConfig { value_size, ..keys }));
                        }
                    }
                }
            }
        }
    }
    out
}

fn translate(kernel: Kernel, config: PipelineConfig) -> Result<(), String> {
    let source = kernel.source(&config);
    let module = naga::front::wgsl::parse_str(&source).map_err(|e| e.emit_to_string(&source))?;
    let mut validator = Validator::new(ValidationFlags::all(), Capabilities::empty());
    let info = validator
        .validate(&module)
        .map_err(|e| e.emit_to_string(&source))?;
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in config.constants(kernel) {
        constants.insert(name.to_string(), value);
    }
    let stage = naga::ShaderStage::Compute;
    let entry = kernel.entry_point();
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((stage, entry)),
        &constants,
    )
    .map_err(|e| format!("overrides: {e}"))?;

    spv::write_vec(
        &module,
        &info,
        &spv::Options::default(),
        Some(&spv::PipelineOptions {
            shader_stage: stage,
            entry_point: entry.into(),
        }),
    )
    .map_err(|e| format!("SPIR-V: {e}"))?;
    msl::write_string(
        &module,
        &info,
        &msl::Options::default(),
        &msl::PipelineOptions {
            entry_point: Some((stage, entry.into())),
            ..Default::default()
        },
    )
    .map_err(|e| format!("MSL: {e}"))?;
    let hlsl_pipeline = hlsl::PipelineOptions {
        entry_point: Some((stage, entry.into())),
    };
    let hlsl_options = hlsl::Options::default();
    let mut hlsl_out = String::new();
    hlsl::Writer::new(&mut hlsl_out, &hlsl_options, &hlsl_pipeline)
        .write(&module, &info, None)
        .map_err(|e| format!("HLSL: {e}"))?;
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
    Ok(())
}

#[test]
fn every_configuration_validates_and_translates_to_every_backend() {
    let mut failures = Vec::new();
    let configurations = configurations();
    for &(kernel, config) in &configurations {
        if let Err(e) = translate(kernel, config) {
            failures.push(format!("{kernel:?} {config:?}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    println!(
        "{} shader configurations translated to SPIR-V, MSL, HLSL and GLSL",
        configurations.len()
    );
}

#[test]
fn default_options_are_among_the_checked_configurations() {
    for key in KeyType::ALL {
        for with_values in [false, true] {
            let (workgroup, items) = MergeOptions::default()
                .algorithm
                .default_shape(key, with_values);
            assert!(configurations().iter().any(|(_, c)| c.key == key
                && c.with_values() == with_values
                && c.workgroup_size == workgroup
                && c.items_per_thread == items));
        }
        let (workgroup, items) = wgmerge::SORT_SHAPE;
        assert!(configurations().iter().any(|(_, c)| c.key == key
            && c.workgroup_size == workgroup
            && c.items_per_thread == items));
    }
}
