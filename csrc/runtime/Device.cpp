// Device enumeration: every platform, every device, GPUs first, filtered by environment variables.
#include "runtime/Device.h"

#include <c10/util/Exception.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace foo_cl::runtime {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  s.resize(n - 1);
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  s.resize(n - 1);
  return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T value{};
  clGetDeviceInfo(d, what, sizeof(T), &value, nullptr);
  return value;
}

cl_device_type wanted_device_types() {
  const char* env = std::getenv("FOO_CL_DEVICE_TYPE");
  if (!env || !*env) return CL_DEVICE_TYPE_ALL;
  const std::string t = lower(env);
  if (t == "gpu") return CL_DEVICE_TYPE_GPU;
  if (t == "cpu") return CL_DEVICE_TYPE_CPU;
  if (t == "accelerator") return CL_DEVICE_TYPE_ACCELERATOR;
  if (t == "all") return CL_DEVICE_TYPE_ALL;
  TORCH_WARN("foo-cl: ignoring FOO_CL_DEVICE_TYPE=", env, " (expected gpu, cpu, accelerator or all)");
  return CL_DEVICE_TYPE_ALL;
}

// FOO_CL_DEVICE_CLASS: "cpu" or "gpu" forces that class of variants; unset (or "auto") follows the device type.
const char* forced_device_class() {
  static const char* forced = []() -> const char* {
    const char* env = std::getenv("FOO_CL_DEVICE_CLASS");
    if (!env || !*env) return nullptr;
    const std::string c = lower(env);
    if (c == "cpu") return "cpu";
    if (c == "gpu") return "gpu";
    if (c != "auto") TORCH_WARN("foo-cl: ignoring FOO_CL_DEVICE_CLASS=", env, " (expected cpu, gpu or auto)");
    return nullptr;
  }();
  return forced;
}

// FOO_CL_MAX_PARAMETER_SIZE: a lower kernel-argument limit than the devices report (256 is an
// embedded profile's), so a full-profile device runs the launches such devices get.
uint64_t parameter_size_cap() {
  static const uint64_t cap = [] {
    const char* env = std::getenv("FOO_CL_MAX_PARAMETER_SIZE");
    if (!env || !*env) return UINT64_MAX;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(env, &end, 10);
    if (*end == '\0' && value >= 256) return static_cast<uint64_t>(value);
    TORCH_WARN("foo-cl: ignoring FOO_CL_MAX_PARAMETER_SIZE=", env, " (expected a number of bytes, at least 256)");
    return UINT64_MAX;
  }();
  return cap;
}

// The variant class of a device and the choices that follow from it.
void set_device_class(DeviceInfo& info, bool cpu_class) {
  info.cpu_class = cpu_class;
  info.row_group_size = 1;
  if (cpu_class) return;
  while (info.row_group_size < 256 && info.row_group_size * 2 <= info.max_work_group_size) info.row_group_size *= 2;
}

DeviceInfo describe(cl_platform_id platform, cl_device_id id) {
  DeviceInfo info;
  info.platform = platform;
  info.id = id;
  info.type = device_value<cl_device_type>(id, CL_DEVICE_TYPE);
  info.name = device_string(id, CL_DEVICE_NAME);
  info.vendor = device_string(id, CL_DEVICE_VENDOR);
  info.vendor_id = device_value<cl_uint>(id, CL_DEVICE_VENDOR_ID);
  info.driver_version = device_string(id, CL_DRIVER_VERSION);
  info.opencl_version = device_string(id, CL_DEVICE_VERSION);
  info.opencl_c_version = device_string(id, CL_DEVICE_OPENCL_C_VERSION);
  info.platform_name = platform_string(platform, CL_PLATFORM_NAME);
  info.platform_version = platform_string(platform, CL_PLATFORM_VERSION);
  info.global_mem_size = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.max_alloc_size = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.local_mem_size = device_value<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
  info.global_mem_cache_size = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  info.compute_units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.max_work_group_size = device_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  info.max_parameter_size =
      std::min<uint64_t>(device_value<size_t>(id, CL_DEVICE_MAX_PARAMETER_SIZE), parameter_size_cap());
  info.constant_buffer_size = device_value<cl_ulong>(id, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
  const auto single_fp = device_value<cl_device_fp_config>(id, CL_DEVICE_SINGLE_FP_CONFIG);
  info.correctly_rounded_sqrt = single_fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
  info.has_fma = single_fp & CL_FP_FMA;
  info.has_denormals = single_fp & CL_FP_DENORM;
  info.extensions = device_string(id, CL_DEVICE_EXTENSIONS);
  info.float_vector_width = device_value<cl_uint>(info.id, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
  info.has_fp16 = info.extensions.find("cl_khr_fp16") != std::string::npos;
  info.has_fp64 = info.extensions.find("cl_khr_fp64") != std::string::npos ||
                  device_value<cl_device_fp_config>(id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  info.has_int64_atomics = info.extensions.find("cl_khr_int64_base_atomics") != std::string::npos;
  const char* forced = forced_device_class();
  set_device_class(info, forced ? std::string(forced) == "cpu" : (info.type & CL_DEVICE_TYPE_CPU) != 0);
  return info;
}

// NOTE: Mesa 22's llvmpipe (Debian 12's rusticl) ends every loop of a work-item once the
// work-item has run 65535 iterations in all, and says nothing: long reductions, scans and GEMM
// tiles come out wrong. One work-item counting through kProbeIterations iterations (each adding a
// value read from memory, so no compiler folds the loop) tells whether and where a device stops.
// Its event tells whether the device times commands: that driver also gives every command the
// same start and end.
constexpr cl_uint kProbeIterations = 1 << 18;
constexpr const char* kProbeSource =
    "__kernel void count(__global uint* data, uint n) {\n"
    "  uint c = 0;\n"
    "  for (uint i = 0; i < n; ++i) c += data[1 + (i & 1)];\n"
    "  data[0] = c;\n"
    "}\n";

void probe_loops_and_timing(DeviceInfo& info) {
  cl_int err = CL_SUCCESS;
  const char* source = kProbeSource;
  cl_program program = clCreateProgramWithSource(info.context, 1, &source, nullptr, &err);
  if (err != CL_SUCCESS) return;
  cl_uint data[3] = {0, 1, 1};  // the count, then the two ones it adds
  const cl_uint n = kProbeIterations;
  const size_t one = 1;
  cl_kernel kernel = nullptr;
  cl_command_queue queue = nullptr;
  cl_mem buffer = nullptr;
  cl_event event = nullptr;
  const bool ran =
      clBuildProgram(program, 1, &info.id, "", nullptr, nullptr) == CL_SUCCESS &&
      (kernel = clCreateKernel(program, "count", &err)) != nullptr &&
      (queue = clCreateCommandQueue(info.context, info.id, CL_QUEUE_PROFILING_ENABLE, &err)) != nullptr &&
      (buffer = clCreateBuffer(info.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(data), data, &err)) !=
          nullptr &&
      clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer) == CL_SUCCESS &&
      clSetKernelArg(kernel, 1, sizeof(n), &n) == CL_SUCCESS &&
      clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 0, nullptr, &event) == CL_SUCCESS &&
      clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(cl_uint), data, 0, nullptr, nullptr) == CL_SUCCESS;
  cl_ulong start = 0, end = 0;
  if (ran) {
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
    clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
  }
  if (event) clReleaseEvent(event);
  if (buffer) clReleaseMemObject(buffer);
  if (queue) clReleaseCommandQueue(queue);
  if (kernel) clReleaseKernel(kernel);
  clReleaseProgram(program);
  info.loop_iteration_limit = ran && data[0] < n ? data[0] : 0;
  info.times_commands = !ran || end > start + 1000;  // tens of thousands of iterations take microseconds
}

std::vector<cl_platform_id> platform_ids() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  return platforms;
}

std::vector<cl_device_id> device_ids(cl_platform_id platform, cl_device_type types) {
  cl_uint n = 0;
  if (clGetDeviceIDs(platform, types, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> ids(n);
  clGetDeviceIDs(platform, types, n, ids.data(), nullptr);
  return ids;
}

// "OpenCL 3.0 Mesa ..." -> 300, for ordering the versions platforms report.
int opencl_version_number(const std::string& version) {
  int major = 0, minor = 0;
  std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor);
  return major * 100 + minor;
}

// NOTE: Mesa installs two platforms, rusticl and the older Clover, that both drive AMD GPUs, so one
// GPU would be two foo devices. Of the devices two platforms both show (same vendor id and name),
// only those of the platform with the newer OpenCL version stay.
void drop_devices_shown_twice(std::vector<DeviceInfo>& devices) {
  auto same_device = [](const DeviceInfo& a, const DeviceInfo& b) {
    return a.platform != b.platform && a.vendor_id == b.vendor_id && a.name == b.name;
  };
  std::vector<bool> shadowed(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    for (const DeviceInfo& other : devices) {
      shadowed[i] = shadowed[i] ||
                    (same_device(devices[i], other) &&
                     opencl_version_number(other.opencl_version) > opencl_version_number(devices[i].opencl_version));
    }
  }
  std::vector<DeviceInfo> kept;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (shadowed[i]) {
      clReleaseContext(devices[i].context);
    } else {
      kept.push_back(std::move(devices[i]));
    }
  }
  devices = std::move(kept);
}

std::vector<DeviceInfo> enumerate() {
  std::vector<DeviceInfo> devices;
  const char* platform_filter = std::getenv("FOO_CL_PLATFORM");
  const cl_device_type types = wanted_device_types();
  for (cl_platform_id platform : platform_ids()) {
    if (platform_filter && *platform_filter &&
        lower(platform_string(platform, CL_PLATFORM_NAME)).find(lower(platform_filter)) == std::string::npos) {
      continue;
    }
    for (cl_device_id id : device_ids(platform, types)) {
      DeviceInfo info = describe(platform, id);
      cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform), 0};
      cl_int err = CL_SUCCESS;
      info.context = clCreateContext(props, 1, &id, nullptr, nullptr, &err);
      if (err != CL_SUCCESS) {
        TORCH_WARN("foo-cl: skipping OpenCL device '", info.name, "': clCreateContext failed with ",
                   cl_error_name(err));
        continue;
      }
      devices.push_back(std::move(info));
    }
  }
  drop_devices_shown_twice(devices);
  for (DeviceInfo& info : devices) {
    probe_loops_and_timing(info);
    if (info.loop_iteration_limit > 0) {
      TORCH_WARN("foo-cl: OpenCL device '", info.name, "' (", info.platform_name, ") silently ends a work-item's ",
                 "loops after ", info.loop_iteration_limit, " iterations (Mesa 22's llvmpipe does): ",
                 "foo takes its GPU variants there, whose work-items loop the least, but an op that loops longer ",
                 "in one work-item gives wrong results. Prefer another OpenCL driver for this device.");
      if (!forced_device_class()) set_device_class(info, false);
    }
  }
  // GPUs first, so foo:0 is the fastest device on a machine that also has a CPU OpenCL driver.
  std::stable_sort(devices.begin(), devices.end(), [](const DeviceInfo& a, const DeviceInfo& b) {
    return (a.type & CL_DEVICE_TYPE_GPU) > (b.type & CL_DEVICE_TYPE_GPU);
  });
  return devices;
}

// Set in the child of a fork() made after the devices were opened: OpenCL contexts and driver
// threads do not survive fork(), so the child must not touch them.
std::atomic<bool> bad_fork{false};
std::atomic<bool> initialized{false};

const std::vector<DeviceInfo>& devices() {
  static const std::vector<DeviceInfo> all = [] {
    std::vector<DeviceInfo> found = enumerate();
    pthread_atfork(nullptr, nullptr, [] { bad_fork.store(true); });
    initialized.store(true);
    return found;
  }();
  return all;
}

thread_local c10::DeviceIndex tls_current_device = 0;

}  // namespace

std::string device_class_reason(const DeviceInfo& info) {
  const std::string cls = info.cpu_class ? "cpu" : "gpu";
  if (forced_device_class()) return cls + " (forced by FOO_CL_DEVICE_CLASS)";
  if (info.loop_iteration_limit > 0) {
    return cls + " (its work-items stop looping after " + std::to_string(info.loop_iteration_limit) +
           " iterations: the GPU variants loop the least)";
  }
  return cls + ((info.type & CL_DEVICE_TYPE_CPU) ? " (a CPU device)" : " (not a CPU device)");
}

std::vector<DeviceInfo> opencl_inventory() {
  std::vector<DeviceInfo> all;
  for (cl_platform_id platform : platform_ids()) {
    for (cl_device_id id : device_ids(platform, CL_DEVICE_TYPE_ALL)) all.push_back(describe(platform, id));
  }
  return all;
}

c10::DeviceIndex device_count() noexcept {
  try {
    return static_cast<c10::DeviceIndex>(devices().size());
  } catch (...) {
    return 0;
  }
}

bool devices_initialized() noexcept {
  return initialized.load();
}

bool in_bad_fork() noexcept {
  return bad_fork.load(std::memory_order_relaxed);
}

void check_device_index(c10::DeviceIndex index) {
  TORCH_CHECK(!in_bad_fork(),
              "foo-cl: cannot use foo in a forked subprocess: the parent process had initialised foo, and OpenCL "
              "contexts do not survive fork(). To use foo with multiprocessing, use the 'spawn' start method.");
  const auto count = device_count();
  TORCH_CHECK(count > 0,
              "foo-cl: no OpenCL device was found. Install an OpenCL driver: on Debian/Ubuntu "
              "`apt-get install pocl-opencl-icd ocl-icd-libopencl1` runs foo on the CPU, or install your GPU "
              "vendor's OpenCL driver; `clinfo` lists what OpenCL sees. Check FOO_CL_PLATFORM and "
              "FOO_CL_DEVICE_TYPE if they are set.");
  TORCH_CHECK(index >= 0 && index < count, "foo-cl: invalid device index foo:", static_cast<int>(index), ": there ",
              count == 1 ? "is 1 foo device (foo:0)" : "are " + std::to_string(count) + " foo devices");
}

const DeviceInfo& device_info(c10::DeviceIndex index) {
  check_device_index(index);
  return devices()[index];
}

c10::DeviceIndex current_device() {
  return tls_current_device;
}

void set_current_device(c10::DeviceIndex index) {
  check_device_index(index);
  tls_current_device = index;
}

}  // namespace foo_cl::runtime
