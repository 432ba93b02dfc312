// User OpenCL kernels (foo_cl.opencl.Kernel): built from source through the program cache, their
// parameters as the OpenCL compiler describes them, and launches on the current stream with foo's
// kernel ABI (a tensor is a __global pointer to its buffer plus a ulong byte offset).
#pragma once

#include <c10/core/Device.h>
#include <c10/util/FunctionRef.h>

#include <cstdint>
#include <string>
#include <vector>

namespace foo_cl::launch {

struct UserKernelSource {
  std::string source;
  std::string name;
  std::string options;
};

// A kernel parameter as the compiler reports it (user programs are built with -cl-kernel-arg-info).
struct UserKernelParam {
  std::string address_space;  // "global", "constant", "local" or "private"
  std::string type;           // "float*", "uint", "float4", ...
  std::string name;
};

std::vector<UserKernelParam> user_kernel_params(c10::DeviceIndex device, const UserKernelSource& kernel);

// One argument of a launch: a foo device address (its buffer and byte offset, two parameters), the
// bytes of a by-value parameter, or the size of a __local buffer.
struct UserKernelArg {
  enum class Kind { buffer, value, local };
  Kind kind;
  const void* address = nullptr;
  std::string bytes;
  size_t local_size = 0;
};

// Enqueues the kernel over `global` work-items (1 to 3 dims) in work-groups of `local` (empty: the
// implementation chooses) on the device's current stream.
void launch_user_kernel(c10::DeviceIndex device, const UserKernelSource& kernel, const std::vector<UserKernelArg>& args,
                        const std::vector<size_t>& global, const std::vector<size_t>& local);

// Enqueues a kernel foo's Inductor backend generated (foo_cl/inductor) on the device's current
// stream: program `key` (unique to its source, which `source` gives when it is built), with its
// tensors' data `addresses` (0 for an empty tensor) and then its 64-bit integer `values`, over a grid
// for `n` iterations of its grid loop: sized like foo's own elementwise launches, or, when each
// iteration is a loop of its own (a reduction's row or column), spread over a CPU's cores in
// `loop_block`s of that many iterations (0: elementwise). With `reports_errors`, its last argument
// is the device's error word (KernelCall::error_word).
void launch_generated_kernel(c10::DeviceIndex device, const std::string& key, const std::string& name,
                             c10::function_ref<std::string()> source, const std::vector<uintptr_t>& addresses,
                             const std::vector<int64_t>& values, int64_t n, int64_t loop_block,
                             bool reports_errors);

}  // namespace foo_cl::launch
