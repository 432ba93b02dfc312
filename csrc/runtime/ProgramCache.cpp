// Program building and the in-memory and on-disk program caches.
#include "runtime/ProgramCache.h"

#include "runtime/Device.h"
#include "runtime/KernelSources.h"

#include <c10/util/Exception.h>
#include <c10/util/FunctionRef.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <unordered_map>
#include <vector>

#ifndef FOO_CL_VERSION
#define FOO_CL_VERSION "dev"
#endif

namespace foo_cl::runtime {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'F', 'O', 'O', 'C', 'L', 'B', 'I', 'N'};

uint64_t fnv1a(const std::string& s, uint64_t seed = 1469598103934665603ull) {
  uint64_t h = seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string build_log(cl_program program, cl_device_id device, size_t max_lines) {
  size_t n = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  std::istringstream in(log);
  std::string line, head;
  for (size_t i = 0; i < max_lines && std::getline(in, line); ++i) head += "  " + line + "\n";
  return head;
}

std::string read_cached_binary(const fs::path& path, const std::string& identity) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  char magic[sizeof(kMagic)];
  uint64_t identity_size = 0, binary_size = 0, checksum = 0;
  std::string stored_identity, binary;
  bool ok = static_cast<bool>(in.read(magic, sizeof(magic))) && std::equal(magic, magic + sizeof(magic), kMagic) &&
            in.read(reinterpret_cast<char*>(&identity_size), sizeof(identity_size)) &&
            identity_size == identity.size();
  if (ok) {
    stored_identity.resize(identity_size);
    ok = in.read(stored_identity.data(), identity_size) && stored_identity == identity &&
         in.read(reinterpret_cast<char*>(&binary_size), sizeof(binary_size)) && binary_size < (1ull << 32);
  }
  if (ok) {
    binary.resize(binary_size);
    ok = in.read(binary.data(), binary_size) && in.read(reinterpret_cast<char*>(&checksum), sizeof(checksum)) &&
         checksum == fnv1a(binary);
  }
  if (!ok) {
    // NOTE: a truncated or foreign file (or a hash collision) is dropped and rebuilt, never trusted.
    std::error_code ec;
    fs::remove(path, ec);
    return {};
  }
  return binary;
}

void write_cached_binary(const fs::path& path, const std::string& identity, const std::string& binary) {
  const uint64_t identity_size = identity.size(), binary_size = binary.size(), checksum = fnv1a(binary);
  std::string contents(kMagic, sizeof(kMagic));
  contents.append(reinterpret_cast<const char*>(&identity_size), sizeof(identity_size));
  contents += identity;
  contents.append(reinterpret_cast<const char*>(&binary_size), sizeof(binary_size));
  contents += binary;
  contents.append(reinterpret_cast<const char*>(&checksum), sizeof(checksum));
  write_file_atomically(path.string(), contents);
}

std::string program_binary(cl_program program) {
  size_t size = 0;
  FOO_CL_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr));
  std::string binary(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(binary.data());
  FOO_CL_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(data), &data, nullptr));
  return binary;
}

// Whether a program built with -cl-kernel-arg-info describes its kernels' parameters: OpenCL only
// promises it for programs built from source, and some implementations drop it from binaries.
bool keeps_arg_info(cl_program program, const std::string& options) {
  if (options.find("-cl-kernel-arg-info") == std::string::npos) return true;
  cl_uint count = 0;
  if (clCreateKernelsInProgram(program, 0, nullptr, &count) != CL_SUCCESS || count == 0) return true;
  std::vector<cl_kernel> kernels(count);
  if (clCreateKernelsInProgram(program, count, kernels.data(), nullptr) != CL_SUCCESS) return true;
  bool described = true;
  for (cl_kernel kernel : kernels) {
    cl_uint args = 0;
    clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof(args), &args, nullptr);
    cl_kernel_arg_address_qualifier space = 0;
    described = described && (args == 0 || clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                                               sizeof(space), &space, nullptr) == CL_SUCCESS);
    clReleaseKernel(kernel);
  }
  return described;
}

cl_program build_from_binary(const DeviceInfo& info, const std::string& binary, const std::string& options) {
  const unsigned char* data = reinterpret_cast<const unsigned char*>(binary.data());
  const size_t size = binary.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(info.context, 1, &info.id, &size, &data, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (program) clReleaseProgram(program);
    return nullptr;
  }
  if (clBuildProgram(program, 1, &info.id, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

// Whether built programs go to foo's disk cache as binaries on this device.
// NOTE: not on PoCL, which keeps built programs in a cache of its own (its kcache) and, asked for a
// binary, compiles every kernel of the program once more for work-groups of any size: with foo's
// binaries, a cold run of the elementwise and reduction tests took 12.8 min instead of 5.3 (AMD
// EPYC, PoCL 3.1). Warm, PoCL's cache costs about 13 ms more per program than foo's binary.
bool keeps_binaries(const DeviceInfo& info) {
  return disk_cache_enabled() && info.platform_name != "Portable Computing Language";
}

class ProgramCache {
 public:
  // The program `key` built with `options`; `source` gives its text when it is not cached yet.
  cl_program get(c10::DeviceIndex device, const std::string& key, const std::string& options,
                 c10::function_ref<std::string()> source) {
    const std::string id = std::to_string(device) + '\0' + key + '\0' + options;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = programs_.find(id);
    if (it != programs_.end()) return it->second;
    cl_program program = build(device, key, options, source());
    programs_.emplace(id, program);
    return program;
  }

  std::vector<ProgramBuild> builds() {
    std::lock_guard<std::mutex> lock(mutex_);
    return builds_;
  }

 private:
  cl_program build(c10::DeviceIndex device, const std::string& key, const std::string& options,
                   const std::string& source) {
    const DeviceInfo& info = device_info(device);
    const auto start = std::chrono::steady_clock::now();
    // NOTE: OpenCL lets float32 division and sqrt be 2-3 ulp off; CPU PyTorch rounds them exactly.
    // -w: PoCL prints the warnings of every program it builds (on AVX2 CPUs, that 8-wide 64-bit
    // vectors change the ABI), which a user cannot act on; errors still reach the build log.
    const std::string full_options =
        std::string("-cl-std=CL1.2 -w ") + (info.correctly_rounded_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt " : "") +
        (info.cpu_class ? "-DFOO_CPU_DEVICE " : "") + (info.has_fp64 ? "-DFOO_DEVICE_FP64 " : "") + options;
    const std::string identity = source + '\0' + full_options + '\0' + info.platform_name + '\0' +
                                 info.platform_version + '\0' + info.name + '\0' + info.driver_version + '\0' +
                                 FOO_CL_VERSION;
    char name[48];
    std::snprintf(name, sizeof(name), "%016llx%016llx.bin", static_cast<unsigned long long>(fnv1a(identity)),
                  static_cast<unsigned long long>(fnv1a(identity, 0x9e3779b97f4a7c15ull)));
    const fs::path path = fs::path(disk_cache_dir()) / name;

    cl_program program = nullptr;
    bool binary_without_arg_info = false;
    if (keeps_binaries(info)) {
      const std::string binary = read_cached_binary(path, identity);
      if (!binary.empty()) program = build_from_binary(info, binary, full_options);
      if (program && !keeps_arg_info(program, full_options)) {
        clReleaseProgram(program);  // built again from source below; the cached binary stays good
        program = nullptr;
        binary_without_arg_info = true;
      } else if (!program && !binary.empty()) {
        std::error_code ec;
        fs::remove(path, ec);
      }
    }
    const bool from_disk = program != nullptr;
    if (!program) {
      program = build_from_source(device, info, key, source, full_options);
      if (keeps_binaries(info) && !binary_without_arg_info) {
        write_cached_binary(path, identity, program_binary(program));
      }
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    builds_.push_back({key, options, ms, from_disk});
    return program;
  }

  static cl_program build_from_source(c10::DeviceIndex device, const DeviceInfo& info, const std::string& key,
                                      const std::string& source, const std::string& options) {
    const char* text = source.c_str();
    cl_int err = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(info.context, 1, &text, nullptr, &err);
    FOO_CL_CHECK(err);
    err = clBuildProgram(program, 1, &info.id, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      const std::string log = build_log(program, info.id, 20);
      clReleaseProgram(program);
      TORCH_CHECK(false, "foo-cl: failed to build OpenCL kernel '", key, "' for foo:", static_cast<int>(device), " (",
                  info.name, ") with options '", options, "': ", cl_error_name(err), ". Build log (first lines):\n",
                  log);
    }
    return program;
  }

  std::mutex mutex_;
  std::unordered_map<std::string, cl_program> programs_;
  std::vector<ProgramBuild> builds_;
};

// Never destroyed: the OpenCL runtime may already be gone at static destruction time.
ProgramCache& cache() {
  static auto* instance = new ProgramCache();
  return *instance;
}

// The kernel `name` of program `key`, created once per thread.
cl_kernel cached_kernel(c10::DeviceIndex device, const std::string& key, const char* name, const std::string& options,
                        c10::function_ref<std::string()> source) {
  thread_local std::unordered_map<std::string, cl_kernel> kernels;
  std::string id = key;
  id += '\0';
  id += name;
  id += '\0';
  id += options;
  id += '\0';
  id += static_cast<char>(device);
  auto it = kernels.find(id);
  if (it != kernels.end()) return it->second;
  cl_program program = cache().get(device, key, options, source);
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, name, &err);
  TORCH_CHECK(err == CL_SUCCESS, "foo-cl: kernel '", name, "' not found in program '", key, "' (",
              cl_error_name(err), ")");
  kernels.emplace(std::move(id), k);
  return k;
}

}  // namespace

bool disk_cache_enabled() {
  const char* env = std::getenv("FOO_CL_CACHE_DISABLE");
  return !(env && std::string(env) == "1");
}

bool write_file_atomically(const std::string& path, const std::string& contents) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  // Written to a unique temporary name and renamed, so concurrent processes never see half a file.
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return false;
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

std::string device_cache_name(c10::DeviceIndex device) {
  const DeviceInfo& info = device_info(device);
  const std::string identity = info.platform_name + '\0' + info.platform_version + '\0' + info.name + '\0' +
                               info.driver_version + '\0' + FOO_CL_VERSION;
  char name[40];
  std::snprintf(name, sizeof(name), "%016llx%016llx", static_cast<unsigned long long>(fnv1a(identity)),
                static_cast<unsigned long long>(fnv1a(identity, 0x9e3779b97f4a7c15ull)));
  return name;
}

cl_kernel kernel(c10::DeviceIndex device, const std::string& key, const char* name, const std::string& options) {
  return cached_kernel(device, key, name, options, [&] { return program_source(key); });
}

cl_kernel kernel_from_source(c10::DeviceIndex device, const std::string& source, const char* name,
                             const std::string& options) {
  char hash[24];
  std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(fnv1a(source)));
  const std::string key = std::string("user:") + name + "@" + hash;
  return cached_kernel(device, key, name, options, [&] { return expand_includes(source); });
}

cl_kernel kernel_from_keyed_source(c10::DeviceIndex device, const std::string& key, const char* name,
                                   c10::function_ref<std::string()> source) {
  return cached_kernel(device, key, name, "", [&] { return expand_includes(source()); });
}

std::vector<ProgramBuild> program_builds() {
  return cache().builds();
}

std::string disk_cache_dir() {
  if (const char* dir = std::getenv("FOO_CL_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/foo_cl";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/foo_cl";
  return (fs::temp_directory_path() / "foo_cl").string();
}

void clear_disk_cache() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(disk_cache_dir(), ec)) {
    if (entry.path().extension() == ".bin") fs::remove(entry.path(), ec);
  }
}

}  // namespace foo_cl::runtime
