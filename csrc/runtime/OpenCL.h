// The OpenCL C API as foo-cl uses it: OpenCL 1.2 entry points, and FOO_CL_CHECK, which turns a
// failed call into a c10::Error naming the call and the error (CL_OUT_OF_RESOURCES, not -5).
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

namespace foo_cl::runtime {

const char* cl_error_name(cl_int err);
[[noreturn]] void throw_cl_error(cl_int err, const char* call);

}  // namespace foo_cl::runtime

#define FOO_CL_CHECK(expr)                                                    \
  do {                                                                        \
    cl_int foo_cl_err_ = (expr);                                              \
    if (foo_cl_err_ != CL_SUCCESS) ::foo_cl::runtime::throw_cl_error(foo_cl_err_, #expr); \
  } while (0)
