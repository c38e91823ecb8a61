//! What a Vulkan driver compiled wgmerge's kernels to: registers per invocation, workgroup
//! memory and whatever else it reports through VK_KHR_pipeline_executable_properties. Registers
//! and workgroup memory bound how many workgroups a GPU core holds at once, which the tuning log
//! keeps finding is what bounds a kernel (run 156: the set pass 1.3x slower with 4 KB more
//! workgroup memory, 2.3x with 12 KB).
//!
//! The kernels come as SPIR-V from the kernel test, one file per configuration with an index:
//!
//! ```bash
//! WGMERGE_DUMP_SPIRV=target/spirv WGMERGE_DUMP_SPIRV_FILTER='set,lib/keys/u32' \
//!     cargo test --release --lib every_kernel_matches
//! cargo run --release --example pipeline_stats -- target/spirv
//! ```
//!
//! wgpu builds the same SPIR-V (naga, no bounds checks, no forced loop bounds, workgroup memory
//! not zeroed), so the numbers are those of wgmerge's pipelines on that driver (NVIDIA's reports
//! registers; Mesa's lavapipe, at least in Debian's Mesa 22, has no such extension). Before run
//! 234 the kernel test wrote naga's default SPIR-V, whose forced loop bounds kept NVIDIA's
//! compiler from unrolling any loop: the registers in the tuning log's runs 157-212 are that
//! code's, not wgmerge's.
//!
//! With `WGMERGE_IR_DIR=dir` it also writes whatever internal representations the driver offers
//! (NVIDIA's offers none). With `WGMERGE_PIPELINE_CACHE=file` it writes the driver's pipeline
//! cache, which holds NVIDIA's machine code: `scripts/nvidia_sass.py file dir` splits it into one
//! file per pipeline for `nvdisasm -b SM90` (CUDA's disassembler).

use std::error::Error;
use std::ffi::CStr;
use std::path::Path;

use ash::vk;

fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: pipeline_stats DIR (the kernel test's WGMERGE_DUMP_SPIRV)")?;
    let dir = Path::new(&dir);
    let index = std::fs::read_to_string(dir.join("index.txt"))?;
    // SAFETY: the loader is the system's; every Vulkan object below is created, used and
    // destroyed in order on this thread.
    unsafe {
        let entry = ash::Entry::load()?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )?;
        let physical = instance
            .enumerate_physical_devices()?
            .into_iter()
            .max_by_key(|&p| {
                instance.get_physical_device_properties(p).device_type
                    == vk::PhysicalDeviceType::DISCRETE_GPU
            })
            .ok_or("no Vulkan device")?;
        let properties = instance.get_physical_device_properties(physical);
        println!(
            "device {}",
            CStr::from_ptr(properties.device_name.as_ptr()).to_string_lossy()
        );
        let family = instance
            .get_physical_device_queue_family_properties(physical)
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue")? as u32;
        // Whatever the device supports of Vulkan 1.1-1.3's features, as wgpu asks for what the
        // SPIR-V needs (subgroups, the memory model).
        let mut features11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut features12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut features13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut features = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut features11)
            .push_next(&mut features12)
            .push_next(&mut features13);
        instance.get_physical_device_features2(physical, &mut features);
        let mut executable_info =
            vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let wanted = ash::khr::pipeline_executable_properties::NAME;
        let has_extension = instance
            .enumerate_device_extension_properties(physical)?
            .iter()
            .any(|e| CStr::from_ptr(e.extension_name.as_ptr()) == wanted);
        if !has_extension {
            return Err(format!("the driver has no {}", wanted.to_string_lossy()).into());
        }
        let extensions = [wanted.as_ptr()];
        let device = instance.create_device(
            physical,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&extensions)
                .push_next(&mut features)
                .push_next(&mut executable_info),
            None,
        )?;
        let executables = ash::khr::pipeline_executable_properties::Device::new(&instance, &device);
        let cache = device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)?;
        for line in index.lines() {
            let mut fields = line.splitn(4, ' ');
            let (Some(file), Some(entry_point), Some(bindings), Some(description)) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            match pipeline_statistics(
                &device,
                &executables,
                cache,
                dir,
                file,
                entry_point,
                bindings,
            ) {
                Ok(stats) => println!("{entry_point} {stats} | {description}"),
                Err(e) => println!("{entry_point} error: {e} | {description}"),
            }
        }
        // The driver's compiled code is in its pipeline cache (`WGMERGE_PIPELINE_CACHE`: where
        // to write it), for the vendor's disassembler where it takes it.
        if let Ok(path) = std::env::var("WGMERGE_PIPELINE_CACHE") {
            std::fs::write(path, device.get_pipeline_cache_data(cache)?)?;
        }
        device.destroy_pipeline_cache(cache, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
    Ok(())
}

/// Builds one compute pipeline with statistics captured and returns them on one line.
unsafe fn pipeline_statistics(
    device: &ash::Device,
    executables: &ash::khr::pipeline_executable_properties::Device,
    cache: vk::PipelineCache,
    dir: &Path,
    file: &str,
    entry_point: &str,
    bindings: &str,
) -> Result<String, Box<dyn Error>> {
    let bytes = std::fs::read(dir.join(file))?;
    let words = ash::util::read_spv(&mut std::io::Cursor::new(bytes))?;
    let module =
        device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)?;
    let layout_bindings: Vec<_> = bindings
        .split(',')
        .filter_map(|b| b.split_once(':'))
        .map(|(binding, kind)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(binding.parse().unwrap_or(0))
                .descriptor_type(if kind == "u" {
                    vk::DescriptorType::UNIFORM_BUFFER
                } else {
                    vk::DescriptorType::STORAGE_BUFFER
                })
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        })
        .collect();
    let set_layout = device.create_descriptor_set_layout(
        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings),
        None,
    )?;
    let set_layouts = [set_layout];
    let layout = device.create_pipeline_layout(
        &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
        None,
    )?;
    let name = std::ffi::CString::new(entry_point)?;
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(&name);
    let info = vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(layout)
        .flags(
            vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR,
        );
    let pipeline = device
        .create_compute_pipelines(cache, &[info], None)
        .map_err(|(_, e)| e)?[0];
    let mut out = Vec::new();
    let pipeline_info = vk::PipelineInfoKHR::default().pipeline(pipeline);
    let count = executables
        .get_pipeline_executable_properties(&pipeline_info)?
        .len();
    for index in 0..count as u32 {
        let executable = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipeline)
            .executable_index(index);
        for stat in executables.get_pipeline_executable_statistics(&executable)? {
            let name = CStr::from_ptr(stat.name.as_ptr()).to_string_lossy();
            let value = match stat.format {
                vk::PipelineExecutableStatisticFormatKHR::BOOL32 => stat.value.b32.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::INT64 => stat.value.i64.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::UINT64 => stat.value.u64.to_string(),
                vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => stat.value.f64.to_string(),
                _ => "?".into(),
            };
            out.push(format!("{name}={value}"));
        }
        if let Ok(ir_dir) = std::env::var("WGMERGE_IR_DIR") {
            write_internal_representations(executables, &executable, Path::new(&ir_dir), file)?;
        }
    }
    device.destroy_pipeline(pipeline, None);
    device.destroy_pipeline_layout(layout, None);
    device.destroy_descriptor_set_layout(set_layout, None);
    device.destroy_shader_module(module, None);
    Ok(out.join(" "))
}

/// Writes what the driver says it compiled an executable to (`WGMERGE_IR_DIR`: one file per
/// representation the driver offers, such as its assembly), for counting a kernel's instructions.
unsafe fn write_internal_representations(
    executables: &ash::khr::pipeline_executable_properties::Device,
    executable: &vk::PipelineExecutableInfoKHR,
    dir: &Path,
    file: &str,
) -> Result<(), Box<dyn Error>> {
    let get = executables
        .fp()
        .get_pipeline_executable_internal_representations_khr;
    let device = executables.device();
    let mut count = 0u32;
    get(device, executable, &mut count, std::ptr::null_mut()).result()?;
    let mut representations =
        vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
    get(device, executable, &mut count, representations.as_mut_ptr()).result()?;
    // The second call gave each representation's size; the third fills the buffers.
    let mut buffers: Vec<Vec<u8>> = representations
        .iter()
        .map(|r| vec![0u8; r.data_size])
        .collect();
    for (r, buffer) in representations.iter_mut().zip(&mut buffers) {
        r.p_data = buffer.as_mut_ptr().cast();
    }
    get(device, executable, &mut count, representations.as_mut_ptr()).result()?;
    std::fs::create_dir_all(dir)?;
    for (i, (r, buffer)) in representations.iter().zip(&buffers).enumerate() {
        let name = CStr::from_ptr(r.name.as_ptr())
            .to_string_lossy()
            .replace(' ', "_");
        let path = dir.join(format!("{file}.{}.{i}.{name}", executable.executable_index));
        std::fs::write(path, buffer)?;
    }
    Ok(())
}
