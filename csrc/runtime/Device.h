// OpenCL devices as foo devices: enumeration of every platform's devices (filtered by FOO_CL_PLATFORM
// and FOO_CL_DEVICE_TYPE), one context per device, device properties, and the thread's current device.
#pragma once

#include "runtime/OpenCL.h"

#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

namespace foo_cl::runtime {

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_device_type type = 0;
  std::string name, vendor, driver_version, opencl_version, opencl_c_version, platform_name, platform_version;
  std::string extensions;
  uint32_t vendor_id = 0;  // CL_DEVICE_VENDOR_ID (the PCI vendor for GPUs)
  uint64_t global_mem_size = 0;
  uint64_t max_alloc_size = 0;
  uint64_t local_mem_size = 0;
  uint64_t global_mem_cache_size = 0;  // CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (PoCL: the CPU's last-level cache)
  uint32_t compute_units = 0;
  size_t max_work_group_size = 0;
  uint64_t max_parameter_size = 0;  // bytes of kernel arguments (1024 on a full profile, 256 embedded)
  uint64_t constant_buffer_size = 0;
  uint32_t float_vector_width = 1;  // CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT (8 for AVX2, 16 for AVX-512)
  bool has_fp16 = false;
  bool correctly_rounded_sqrt = false;  // float32 divide and sqrt can be IEEE-exact
  bool has_fma = false;                 // float32 fused multiply-add (CL_FP_FMA)
  bool has_denormals = false;           // float32 denormals are kept, not flushed to zero (CL_FP_DENORM)
  bool has_fp64 = false;
  bool has_int64_atomics = false;  // cl_khr_int64_base_atomics
  // How many loop iterations in all a work-item runs before the device silently ends its loops; 0
  // when it runs them all (measured by a probe kernel when the device is opened).
  int64_t loop_iteration_limit = 0;
  // Whether the device's commands have start and end times (OpenCL profiling info): events'
  // elapsed times and the profiler's device times need them (measured with the loop probe).
  bool times_commands = true;
  // Whether launchers take the variants made for CPU-like devices (caches, wide vectors, one item
  // per work-group) rather than those for GPUs: the device type, unless FOO_CL_DEVICE_CLASS=cpu|gpu
  // forces one class on every device (so the GPU variants are tested on CPU implementations). A
  // device with a loop_iteration_limit takes the GPU variants, whose work-items loop the least.
  bool cpu_class = false;
  // Work-items sharing one row in the row-wise kernels (reductions, softmax, normalisation
  // statistics): 1 on CPU-class devices, whose work-item walks a row in order; otherwise the
  // largest power of two up to 256 the device's work-groups take.
  size_t row_group_size = 1;
  // Elements per vector (VEC) in the vectorised contiguous kernels: 8 floats are one AVX register
  // on CPUs (also the faster choice with AVX-512, measured) and a 32-byte access on GPUs.
  int vector_width = 8;
};

// "cpu" or "gpu": the variant class of a device (DeviceInfo::cpu_class), and why.
std::string device_class_reason(const DeviceInfo& info);

// Every device of every OpenCL platform, unfiltered and without contexts: what `python -m foo_cl`
// reports next to the devices foo uses.
std::vector<DeviceInfo> opencl_inventory();

// Number of usable OpenCL devices; 0 when there is no platform. Never throws.
c10::DeviceIndex device_count() noexcept;

// Properties of a device; raises a clear error when there is no device or the index is out of range.
const DeviceInfo& device_info(c10::DeviceIndex index);

// True once the devices were opened (the first device_count() or device use).
bool devices_initialized() noexcept;

// True in the child of a fork() made after foo was initialised; then every device use raises.
bool in_bad_fork() noexcept;

// Checks `index` names an existing device (the message tells how to get one when there is none).
void check_device_index(c10::DeviceIndex index);

c10::DeviceIndex current_device();
void set_current_device(c10::DeviceIndex index);

}  // namespace foo_cl::runtime
