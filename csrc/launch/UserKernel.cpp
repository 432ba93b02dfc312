// User kernels, compiled with -cl-kernel-arg-info so their parameters can be checked and converted,
// and the kernels foo's Inductor backend generates (whose parameters its code generator wrote).
#include "launch/UserKernel.h"

#include "launch/Launch.h"
#include "runtime/Device.h"
#include "runtime/ProgramCache.h"

#include <c10/util/Exception.h>

#include <algorithm>

namespace foo_cl::launch {
namespace {

cl_kernel user_kernel(c10::DeviceIndex device, const UserKernelSource& kernel) {
  return runtime::kernel_from_source(device, kernel.source, kernel.name.c_str(),
                                     kernel.options + " -cl-kernel-arg-info");
}

void check_described(cl_int err, const std::string& name) {
  TORCH_CHECK(err == CL_SUCCESS, "foo-cl: the OpenCL implementation does not describe the parameters of kernel '", name,
              "' (clGetKernelArgInfo: ", runtime::cl_error_name(err), ")");
}

std::string arg_info_string(cl_kernel kernel, cl_uint index, cl_kernel_arg_info what, const std::string& name) {
  size_t size = 0;
  check_described(clGetKernelArgInfo(kernel, index, what, 0, nullptr, &size), name);
  std::string out(size, '\0');
  FOO_CL_CHECK(clGetKernelArgInfo(kernel, index, what, size, out.data(), nullptr));
  out.resize(out.find('\0') == std::string::npos ? out.size() : out.find('\0'));
  return out;
}

// A tensor's two parameters: its buffer and byte offset, or for an empty tensor (no memory) a null
// pointer, as OpenCL allows.
void set_buffer(KernelCall& call, const void* address) {
  if (address) {
    call.buffer(address);
  } else {
    call.mem(nullptr);
  }
}

void set_args(KernelCall& call, const std::vector<UserKernelArg>& args) {
  for (const UserKernelArg& arg : args) {
    switch (arg.kind) {
      case UserKernelArg::Kind::buffer:
        set_buffer(call, arg.address);
        break;
      case UserKernelArg::Kind::value:
        call.bytes(arg.bytes.data(), arg.bytes.size());
        break;
      case UserKernelArg::Kind::local:
        call.local(arg.local_size);
        break;
    }
  }
}

}  // namespace

std::vector<UserKernelParam> user_kernel_params(c10::DeviceIndex device, const UserKernelSource& kernel) {
  cl_kernel k = user_kernel(device, kernel);
  cl_uint count = 0;
  FOO_CL_CHECK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(count), &count, nullptr));
  std::vector<UserKernelParam> params;
  for (cl_uint i = 0; i < count; ++i) {
    cl_kernel_arg_address_qualifier space = CL_KERNEL_ARG_ADDRESS_PRIVATE;
    check_described(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(space), &space, nullptr),
                    kernel.name);
    const char* space_name = space == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? "global"
                             : space == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "constant"
                             : space == CL_KERNEL_ARG_ADDRESS_LOCAL    ? "local"
                                                                       : "private";
    params.push_back({space_name, arg_info_string(k, i, CL_KERNEL_ARG_TYPE_NAME, kernel.name),
                      arg_info_string(k, i, CL_KERNEL_ARG_NAME, kernel.name)});
  }
  return params;
}

void launch_user_kernel(c10::DeviceIndex device, const UserKernelSource& kernel, const std::vector<UserKernelArg>& args,
                        const std::vector<size_t>& global, const std::vector<size_t>& local) {
  TORCH_CHECK(!global.empty() && global.size() <= 3, "foo-cl: a kernel's global size has 1 to 3 dims, got ",
              global.size());
  TORCH_CHECK(local.empty() || local.size() == global.size(), "foo-cl: local_size has ", local.size(),
              " dims but the global size has ", global.size());
  for (size_t d = 0; d < local.size(); ++d) {
    TORCH_CHECK(local[d] > 0 && global[d] % local[d] == 0, "foo-cl: global size ", global[d], " in dim ", d,
                " is not a multiple of local size ", local[d], " (OpenCL 1.2 needs whole work-groups)");
  }
  for (size_t g : global) {
    if (g == 0) return;  // an empty range: nothing to run
  }
  KernelCall call(device, user_kernel(device, kernel), kernel.name.c_str(), "user");
  set_args(call, args);
  size_t global3[3] = {1, 1, 1}, local3[3] = {1, 1, 1};
  for (size_t d = 0; d < global.size(); ++d) global3[d] = global[d];
  for (size_t d = 0; d < local.size(); ++d) local3[d] = local[d];
  call.launch_nd(global3, local.empty() ? nullptr : local3, static_cast<cl_uint>(global.size()));
}

void launch_generated_kernel(c10::DeviceIndex device, const std::string& key, const std::string& name,
                             c10::function_ref<std::string()> source, const std::vector<uintptr_t>& addresses,
                             const std::vector<int64_t>& values, int64_t n, int64_t loop_block,
                             bool reports_errors) {
  KernelCall call(device, runtime::kernel_from_keyed_source(device, key, name.c_str(), source), name.c_str(),
                  "inductor");
  for (uintptr_t address : addresses) set_buffer(call, reinterpret_cast<const void*>(address));
  for (int64_t value : values) call.value(static_cast<cl_long>(value));
  if (reports_errors) call.error_word();
  if (loop_block > 0) {
    call.launch_loops(n, loop_block);
  } else {
    call.launch(n);
  }
}

}  // namespace foo_cl::launch
