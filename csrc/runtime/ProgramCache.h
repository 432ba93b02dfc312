// OpenCL programs built lazily from kernels_cl/ and cached in memory by (device, key, options) and
// on disk (except on PoCL, which caches them itself) by a hash of source, options, device identity
// and package version (FOO_CL_CACHE_DIR, FOO_CL_CACHE_DISABLE=1). Kernels are per thread: setting
// arguments on a cl_kernel is not thread-safe.
#pragma once

#include "runtime/OpenCL.h"

#include <c10/core/Device.h>
#include <c10/util/FunctionRef.h>

#include <string>
#include <vector>

namespace foo_cl::runtime {

// The kernel `name` of program `key` (a path stem under kernels_cl/) built with `options` for `device`.
cl_kernel kernel(c10::DeviceIndex device, const std::string& key, const char* name, const std::string& options);

// The kernel `name` of a program given as source text (a user kernel: foo_cl.opencl.Kernel), with
// its `#include "file"` lines taken from kernels_cl/; cached in memory and on disk like foo's own.
cl_kernel kernel_from_source(c10::DeviceIndex device, const std::string& source, const char* name,
                             const std::string& options);

// The same for a program whose caller names it by `key`, unique to its source (a generated kernel,
// launched often: its source is hashed once, by the caller, and produced only to build it).
cl_kernel kernel_from_keyed_source(c10::DeviceIndex device, const std::string& key, const char* name,
                                   c10::function_ref<std::string()> source);

struct ProgramBuild {
  std::string key;
  std::string options;
  double milliseconds;
  bool from_disk;
};

// Every program this process built, in order: what the benchmarks report as cold and warm builds.
std::vector<ProgramBuild> program_builds();

// Writes `contents` to `path` (creating its folder) through a unique temporary file and a rename, so
// concurrent processes never read half a file; false when it could not.
bool write_file_atomically(const std::string& path, const std::string& contents);

// A hex name for a device and its driver (platform, device and driver strings, foo-cl's version):
// what files cached per device are named by.
std::string device_cache_name(c10::DeviceIndex device);

// False when FOO_CL_CACHE_DISABLE=1: nothing is read from or written to the disk caches.
bool disk_cache_enabled();

// The on-disk cache folder, and removing every cached binary in it.
std::string disk_cache_dir();
void clear_disk_cache();

}  // namespace foo_cl::runtime
