// Elementwise launches: build options from the operands' dtypes, by-value scalars, variant choice.
#include "launch/Pointwise.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/TypeCast.h>

#include <array>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <unordered_map>

namespace foo_cl::launch {
namespace {

// A CPU scalar operand read straight from its memory (no dispatch through item()), first converted
// to the iterator's common dtype as CPU PyTorch converts it (1e5 becomes inf for float16).
// NOTE: CPU's mul and div kernels read a float16/bfloat16 right-hand scalar before that rounding.
c10::Scalar cpu_scalar(const at::TensorIteratorBase& iter, int arg, const std::string& key) {
  const void* data = iter.data_ptr(arg);
  const c10::ScalarType stored = iter.dtype(arg);
  c10::ScalarType type = iter.maybe_common_dtype().value_or(stored);
  const bool unrounded = arg == 2 && at::isReducedFloatingType(type) &&
                         (key == "binary/mul" || key == "binary/div" || key == "binary/div_trunc" ||
                          key == "binary/div_floor");
  if (unrounded) type = stored;
  return AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "cpu_scalar", [&] {
    return c10::Scalar(c10::fetch_and_cast<scalar_t>(stored, data));
  });
}

// The dtype CPU computes the op in: the requested one, else the operands' common dtype.
c10::ScalarType common_type(const at::TensorIteratorBase& iter, c10::ScalarType requested) {
  const c10::ScalarType common = requested != c10::ScalarType::Undefined ? requested : iter.common_dtype();
  return common != c10::ScalarType::Undefined ? common : iter.dtype(iter.noutputs());
}

// Vector loads need every tensor in the compute dtype, or in float16 for float (vload_halfN).
// NOTE: PoCL 3.1 compiles vload_half8/vstore_half8 to 16-byte aligned moves (the spec asks only for
// 2-byte alignment), so a float16 operand must start on a whole vector.
bool can_vectorize(const at::TensorIteratorBase& iter, c10::ScalarType compute, int width) {
  if (compute != c10::kFloat && compute != c10::kDouble) return false;
  for (int a = 0; a < iter.ntensors(); ++a) {
    if (iter.is_cpu_scalar(a)) continue;
    const c10::ScalarType type = iter.dtype(a);
    if (type == c10::kHalf && compute == c10::kFloat) {
      if (!is_vector_aligned(iter.data_ptr(a), width * sizeof(c10::Half))) return false;
    } else if (type != compute) {
      return false;
    }
  }
  return true;
}

bool is_contiguous_ignoring_scalars(const at::TensorIteratorBase& iter) {
  if (iter.ndim() > 1) return false;
  for (int a = 0; a < iter.ntensors(); ++a) {
    if (iter.is_cpu_scalar(a) || iter.numel() <= 1) continue;
    if (iter.strides(a)[0] != static_cast<int64_t>(c10::elementSize(iter.dtype(a)))) return false;
  }
  return true;
}

// Everything that selects a compiled variant, as plain bytes: a launch finds its kernel in a
// thread-local table without building option strings or allocating.
struct Variant {
  char key[64];
  c10::DeviceIndex device;
  c10::ScalarType dtype[4];  // output, then inputs (Undefined past ninputs)
  c10::ScalarType compute;
  c10::ScalarType rounding;  // the 16-bit dtype results round to before a wider output, or Undefined
  uint8_t cpu_scalars;  // bit k: input k is a CPU scalar passed by value
  int8_t ndim;          // 0 for the contiguous variant
  bool vectorized;
  bool index64;

  bool operator==(const Variant& other) const { return std::memcmp(this, &other, sizeof(Variant)) == 0; }
};

static_assert(std::has_unique_object_representations_v<Variant>, "Variant's bytes are its identity: no padding");

struct VariantHash {
  size_t operator()(const Variant& v) const {
    return std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(&v), sizeof(Variant)));
  }
};

std::string build_options(const Variant& v, int ninputs) {
  // NOTE: complex dtypes are accepted here; an op file without complex math fails to build for them
  // (kernels_cl/pointwise.clh), and structured ops without it never get complex operands (Structured.h).
  std::string options = dtype_option("OUT", v.dtype[0], Complex::accepted) +
                        compute_option(v.compute, Complex::accepted) +
                        (v.index64 ? "-DINDEX_T=ulong " : "-DINDEX_T=uint ");
  for (int k = 0; k < ninputs; ++k) {
    const std::string name = "IN" + std::to_string(k);
    options += dtype_option(name.c_str(), v.dtype[k + 1], Complex::accepted);
    if (v.cpu_scalars & (1 << k)) options += "-D" + name + "_SCALAR ";
  }
  if (v.rounding != c10::ScalarType::Undefined) options += std::string("-DROUND_") + dtype_name(v.rounding) + " ";
  if (v.vectorized) options += "-DVEC=" + std::to_string(runtime::device_info(v.device).vector_width) + " ";
  if (v.ndim > 0) options += "-DNDIM=" + std::to_string(v.ndim);
  return options;
}

cl_kernel variant_kernel(const Variant& v, int ninputs) {
  thread_local std::unordered_map<Variant, cl_kernel, VariantHash> kernels;
  auto it = kernels.find(v);
  if (it != kernels.end()) return it->second;
  const cl_kernel kernel = runtime::kernel(v.device, v.key, v.ndim > 0 ? "pointwise_strided" : "pointwise_contig",
                                           build_options(v, ninputs));
  kernels.emplace(v, kernel);
  return kernel;
}

}  // namespace

void launch_pointwise(at::TensorIteratorBase& iter, const std::string& key, std::initializer_list<c10::Scalar> params,
                      c10::ScalarType requested_compute) {
  TORCH_INTERNAL_ASSERT(iter.noutputs() == 1 && iter.ninputs() >= 1 && iter.ninputs() <= 3 && params.size() <= 3);
  TORCH_INTERNAL_ASSERT(key.size() < sizeof(Variant::key), "foo-cl: kernel key '", key, "' is too long");
  const int64_t n = iter.numel();
  if (n == 0) return;
  const c10::Device device = iter.device(0);
  const c10::DeviceGuard guard(device);

  Variant variant;
  std::memset(&variant, 0, sizeof(variant));  // the bytes are the table key: no stray padding
  std::memcpy(variant.key, key.data(), key.size());
  variant.device = device.index();
  const c10::ScalarType common = common_type(iter, requested_compute);
  variant.compute = compute_type(common);
  // As CPU: an op computed in float16 or bfloat16 rounds its result to that dtype, then casts it
  // into a wider out= tensor (half + half into float64 overflows as the float16 sum would).
  const c10::ScalarType out_type = iter.dtype(0);
  variant.rounding = variant.compute != common && out_type != common && at::isFloatingType(out_type)
                         ? common
                         : c10::ScalarType::Undefined;
  for (int a = 0; a < 4; ++a) variant.dtype[a] = a < iter.ntensors() ? iter.dtype(a) : c10::ScalarType::Undefined;
  // A CPU scalar reaches the kernel as a value of the compute dtype, so its own dtype (float64 for a
  // Python float) neither names a variant nor asks for fp64, which a device may lack.
  for (int k = 0; k < iter.ninputs(); ++k) {
    if (!iter.is_cpu_scalar(k + 1)) continue;
    variant.cpu_scalars |= 1 << k;
    variant.dtype[k + 1] = variant.compute;
  }
  variant.index64 = n > static_cast<int64_t>(UINT32_MAX);

  auto bind_and_launch = [&](KernelCall&& call, const std::array<int64_t, kMaxOperands>& offsets,
                             const StridedSlice* slice, int64_t numel) {
    // foo_scalars in pointwise.clh: three input values, then three parameters, in the compute dtype.
    alignas(16) char scalars[6 * sizeof(c10::complex<double>)] = {};
    const size_t width = c10::elementSize(variant.compute);
    char* out = static_cast<char*>(iter.data_ptr(0)) + offsets[0];
    call.buffer(out);
    for (int k = 1; k <= iter.ninputs(); ++k) {
      if (iter.is_cpu_scalar(k)) {
        call.buffer(out);  // NOTE: unused by the kernel; any valid buffer fills the slot
        write_scalar(cpu_scalar(iter, k, key), variant.compute, scalars + (k - 1) * width);
      } else {
        call.buffer(static_cast<char*>(iter.data_ptr(k)) + offsets[k]);
      }
    }
    for (size_t p = 0; p < params.size(); ++p) {
      write_scalar(params.begin()[p], variant.compute, scalars + (3 + p) * width);
    }
    call.bytes(scalars, 6 * width);
    if (slice) call.layout(slice->layout, slice->ndim, slice->noperands);
    call.count(numel);
    slice ? call.launch_walk(numel) : call.launch(numel);
  };

  if (is_contiguous_ignoring_scalars(iter)) {
    variant.vectorized = variant.rounding == c10::ScalarType::Undefined &&
                         can_vectorize(iter, variant.compute, runtime::device_info(variant.device).vector_width);
    bind_and_launch(KernelCall(variant.device, variant_kernel(variant, iter.ninputs()), "pointwise_contig", key), {},
                    nullptr, n);
    return;
  }
  // The other arguments: the tensors, the by-value scalars (complex128 ones are 16 bytes) and the count.
  const size_t other_arg_bytes = 16 * iter.ntensors() + 6 * c10::elementSize(variant.compute) + sizeof(cl_ulong);
  for_each_strided_slice(
      iter,
      [&](const StridedSlice& slice) {
        variant.ndim = static_cast<int8_t>(slice.ndim);
        variant.index64 = slice.numel > static_cast<int64_t>(UINT32_MAX);
        bind_and_launch(KernelCall(variant.device, variant_kernel(variant, iter.ninputs()), "pointwise_strided", key),
                        slice.offsets, &slice, slice.numel);
      },
      std::max(other_arg_bytes, kNonLayoutArgBytes));
}

}  // namespace foo_cl::launch
