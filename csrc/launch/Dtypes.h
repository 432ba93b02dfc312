// The dtype rules of the kernels, in one place: the kernels_cl/common.clh names of dtypes and
// their build options, which dtypes foo tensors may hold on a device, and the types kernels compute
// and accumulate in (ATen's opmath and accumulate types).
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>

namespace foo_cl::launch {

// Whether a kernel takes complex elements: complex dtypes get names only for those that do, so a
// real-only kernel raises for them instead of computing on (real, imaginary) pairs as two numbers.
enum class Complex : bool { rejected, accepted };

// The kernels_cl/common.clh name of a dtype ("float", "bfloat16", "int64", "cfloat", ...); raises
// for others.
const char* dtype_name(c10::ScalarType type, Complex complex = Complex::rejected);

// The name of a dtype with the same element size, for kernels that only move bits.
const char* bits_dtype_name(c10::ScalarType type);

// Dtypes foo tensors can have although no kernel computes in them: unsigned 16/32/64-bit integers
// and the float8 formats (storage, copies, views, fill; their ops run through the CPU fallback).
bool is_storage_only(c10::ScalarType type);

// Raises unless foo tensors of `type` can live on `device` (float64 and complex128 need cl_khr_fp64).
void check_dtype_supported(c10::DeviceIndex device, c10::ScalarType type);

// "-DMACRO=<dtype name> ", plus -DFOO_FP64 for float64 and complex128.
std::string dtype_option(const char* macro, c10::ScalarType type, Complex complex = Complex::rejected);

// "-DCOMPUTE=<dtype name> " with COMPUTE_IS_FLOAT, COMPUTE_IS_COMPLEX or COMPUTE_IS_BOOL, which
// kernels_cl/math.clh reads.
std::string compute_option(c10::ScalarType type, Complex complex = Complex::rejected);

// The type kernels compute elements of `type` in (elementwise ops, reductions, scans, sorts):
// float32 for float16 and bfloat16, else the type itself (ATen's at::opmath_type).
c10::ScalarType compute_type(c10::ScalarType type);

// The floating type of statistics and parameters that accompany elements of a floating `type`
// (normalization means, variances and affine parameters, random distributions' parameters):
// float64 for float64, else float32.
c10::ScalarType float_accumulate_type(c10::ScalarType type);

// float64 where the device has it, else float32: the widest floating type kernels compute in.
c10::ScalarType widest_float_type(c10::DeviceIndex device);

// The type the range factories (arange, linspace) accumulate in, as CPU's: float32 for float32 and
// 16-bit float outputs, else the widest floating type.
c10::ScalarType range_accumulate_type(c10::DeviceIndex device, c10::ScalarType out);

}  // namespace foo_cl::launch
