// The dtype rules of the kernels: names and build options, what foo tensors may hold, and the
// types kernels compute and accumulate in.
#include "launch/Dtypes.h"

#include "runtime/Device.h"

#include <c10/util/Exception.h>

namespace foo_cl::launch {

const char* dtype_name(c10::ScalarType type, Complex complex) {
  if (complex == Complex::accepted && type == c10::kComplexFloat) return "cfloat";
  if (complex == Complex::accepted && type == c10::kComplexDouble) return "cdouble";
  switch (type) {
    case c10::kFloat:
      return "float";
    case c10::kDouble:
      return "double";
    case c10::kHalf:
      return "half";
    case c10::kBFloat16:
      return "bfloat16";
    case c10::kChar:
      return "int8";
    case c10::kByte:
      return "uint8";
    case c10::kShort:
      return "int16";
    case c10::kInt:
      return "int32";
    case c10::kLong:
      return "int64";
    case c10::kBool:
      return "bool";
    default:
      TORCH_CHECK(false, "foo-cl: dtype ", type,
                  " is not supported on foo (kernels compute in float32, float64, float16, bfloat16, int8, int16, "
                  "int32, int64, uint8 and bool; complex64 and complex128 in copies and elementwise arithmetic; "
                  "uint16, uint32, uint64 and float8 tensors can be stored, copied and viewed)");
  }
}

bool is_storage_only(c10::ScalarType type) {
  switch (type) {
    case c10::kUInt16:
    case c10::kUInt32:
    case c10::kUInt64:
    case c10::kFloat8_e4m3fn:
    case c10::kFloat8_e5m2:
    case c10::kFloat8_e4m3fnuz:
    case c10::kFloat8_e5m2fnuz:
      return true;
    default:
      return false;
  }
}

void check_dtype_supported(c10::DeviceIndex device, c10::ScalarType type) {
  if (is_storage_only(type)) return;
  dtype_name(type, Complex::accepted);
  if (type == c10::kDouble || type == c10::kComplexDouble) {
    const runtime::DeviceInfo& info = runtime::device_info(device);
    TORCH_CHECK(info.has_fp64, "foo-cl: foo:", static_cast<int>(device), " (", info.name, ") does not support ",
                type == c10::kDouble ? "float64" : "complex128", " (no cl_khr_fp64); use ",
                type == c10::kDouble ? "float32" : "complex64");
  }
}

const char* bits_dtype_name(c10::ScalarType type) {
  switch (c10::elementSize(type)) {
    case 1:
      return "uint8";
    case 2:
      return "int16";
    case 4:
      return "int32";
    case 8:
      return "int64";
    case 16:
      return "bits128";
    default:
      TORCH_CHECK(false, "foo-cl: dtype ", type, " is not supported on foo");
  }
}

std::string dtype_option(const char* macro, c10::ScalarType type, Complex complex) {
  std::string option = std::string("-D") + macro + "=" + dtype_name(type, complex) + " ";
  if (type == c10::kDouble || type == c10::kComplexDouble) option += "-DFOO_FP64 ";
  return option;
}

std::string compute_option(c10::ScalarType type, Complex complex) {
  std::string option = dtype_option("COMPUTE", type, complex);
  if (c10::isFloatingType(type)) option += "-DCOMPUTE_IS_FLOAT ";
  if (c10::isComplexType(type)) option += "-DCOMPUTE_IS_COMPLEX ";
  if (type == c10::kBool) option += "-DCOMPUTE_IS_BOOL ";
  return option;
}

c10::ScalarType compute_type(c10::ScalarType type) {
  return type == c10::kHalf || type == c10::kBFloat16 ? c10::kFloat : type;
}

c10::ScalarType float_accumulate_type(c10::ScalarType type) {
  return type == c10::kDouble ? c10::kDouble : c10::kFloat;
}

c10::ScalarType widest_float_type(c10::DeviceIndex device) {
  return runtime::device_info(device).has_fp64 ? c10::kDouble : c10::kFloat;
}

c10::ScalarType range_accumulate_type(c10::DeviceIndex device, c10::ScalarType out) {
  if (out == c10::kFloat || out == c10::kHalf || out == c10::kBFloat16) return c10::kFloat;
  return widest_float_type(device);
}

}  // namespace foo_cl::launch
