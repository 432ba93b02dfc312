// Elementwise launches: build options from the operands' dtypes, by-value scalars, variant choice.
#include "launch/Pointwise.h"

#include "launch/Launch.h"

#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/TypeCast.h>

#include <array>

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
  return AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "cpu_scalar",
                                    [&] { return c10::Scalar(c10::fetch_and_cast<scalar_t>(stored, data)); });
}

// Half and bfloat16 compute in float; every other dtype in itself.
c10::ScalarType compute_type(const at::TensorIteratorBase& iter, c10::ScalarType requested) {
  c10::ScalarType common = requested != c10::ScalarType::Undefined ? requested : iter.common_dtype();
  if (common == c10::ScalarType::Undefined) common = iter.dtype(iter.noutputs());
  return (common == c10::kHalf || common == c10::kBFloat16) ? c10::kFloat : common;
}

// Vector loads need every tensor in the compute dtype (no per-element conversion).
bool can_vectorize(const at::TensorIteratorBase& iter, c10::ScalarType compute) {
  if (compute != c10::kFloat && compute != c10::kDouble) return false;
  for (int a = 0; a < iter.ntensors(); ++a) {
    if (!iter.is_cpu_scalar(a) && iter.dtype(a) != compute) return false;
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

}  // namespace

void launch_pointwise(at::TensorIteratorBase& iter, const std::string& key, std::initializer_list<c10::Scalar> params,
                      c10::ScalarType requested_compute) {
  TORCH_INTERNAL_ASSERT(iter.noutputs() == 1 && iter.ninputs() >= 1 && iter.ninputs() <= 3 && params.size() <= 3);
  const int64_t n = iter.numel();
  if (n == 0) return;
  const c10::Device device = iter.device(0);
  const c10::DeviceGuard guard(device);
  const c10::ScalarType compute = compute_type(iter, requested_compute);

  std::string options = dtype_option("OUT", iter.dtype(0)) + compute_option(compute) + index_option(n);
  for (int k = 0; k < iter.ninputs(); ++k) {
    const std::string name = "IN" + std::to_string(k);
    options += dtype_option(name.c_str(), iter.dtype(k + 1));
    if (iter.is_cpu_scalar(k + 1)) options += "-D" + name + "_SCALAR ";
  }
  const bool contiguous = is_contiguous_ignoring_scalars(iter);

  auto bind_and_launch = [&](KernelCall& call, const std::array<int64_t, kMaxOperands>& offsets,
                             const StridedLayout* layout, int64_t numel) {
    char* out = static_cast<char*>(iter.data_ptr(0)) + offsets[0];
    call.buffer(out);
    for (int k = 1; k <= iter.ninputs(); ++k) {
      if (iter.is_cpu_scalar(k)) {
        call.buffer(out);  // NOTE: unused by the kernel; any valid buffer fills the slot
        call.scalar(cpu_scalar(iter, k, key), compute);
      } else {
        call.buffer(static_cast<char*>(iter.data_ptr(k)) + offsets[k]);
        call.scalar(0, compute);
      }
    }
    for (size_t p = 0; p < 3; ++p) call.scalar(p < params.size() ? params.begin()[p] : c10::Scalar(0), compute);
    if (layout) call.value(*layout);
    call.count(numel).launch(numel);
  };

  if (contiguous) {
    // 8 lanes: one AVX register of float on CPUs, a 32-byte access per work-item on GPUs.
    KernelCall call(device.index(), key, "pointwise_contig", can_vectorize(iter, compute) ? options + "-DVEC=8" : options);
    bind_and_launch(call, {}, nullptr, n);
    return;
  }
  for_each_strided_slice(iter, [&](const StridedSlice& slice) {
    KernelCall call(device.index(), key, "pointwise_strided", options + "-DNDIM=" + std::to_string(slice.ndim));
    bind_and_launch(call, slice.offsets, &slice.layout, slice.numel);
  });
}

}  // namespace foo_cl::launch
