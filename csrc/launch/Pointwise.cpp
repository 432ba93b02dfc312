// Elementwise launches: build options from the operands' dtypes, by-value scalars, variant choice.
#include "launch/Pointwise.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/Dispatch.h>
#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/TypeCast.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>

namespace foo_cl::launch {
namespace {

// NOTE: CPU's mul and div kernels read a float16/bfloat16 right-hand scalar before its rounding to
// the common dtype.
bool reads_unrounded_scalar(const std::string& key, int input) {
  return input == 1 &&
         (key == "binary/mul" || key == "binary/div" || key == "binary/div_trunc" || key == "binary/div_floor");
}

// A CPU scalar operand read straight from its memory (no dispatch through item()), first converted
// to the iterator's common dtype as CPU PyTorch converts it (1e5 becomes inf for float16).
c10::Scalar cpu_scalar(const at::TensorIteratorBase& iter, int arg, const std::string& key) {
  const void* data = iter.data_ptr(arg);
  const c10::ScalarType stored = iter.dtype(arg);
  c10::ScalarType type = iter.maybe_common_dtype().value_or(stored);
  if (at::isReducedFloatingType(type) && reads_unrounded_scalar(key, arg - 1)) type = stored;
  return AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "cpu_scalar", [&] {
    return c10::Scalar(c10::fetch_and_cast<scalar_t>(stored, data));
  });
}

// The dtype CPU computes the op in: the requested one, else the operands' common dtype.
c10::ScalarType common_type(const at::TensorIteratorBase& iter, c10::ScalarType requested) {
  const c10::ScalarType common = requested != c10::ScalarType::Undefined ? requested : iter.common_dtype();
  return common != c10::ScalarType::Undefined ? common : iter.dtype(iter.noutputs());
}

// Whether operand `a` (0: the output) is an input the kernel reads as a value (bit a - 1 of
// `value_inputs`: a CPU scalar or one element on the device).
bool is_value_input(uint8_t value_inputs, int a) {
  return a > 0 && (value_inputs & (1 << (a - 1)));
}

// Vector loads need every tensor in the compute dtype, or in float16 for float (vload_halfN).
// NOTE: PoCL 3.1 compiles vload_half8/vstore_half8 to 16-byte aligned moves (the spec asks only for
// 2-byte alignment), so a float16 operand must start on a whole vector.
bool can_vectorize(const at::TensorIteratorBase& iter, c10::ScalarType compute, int width, uint8_t value_inputs) {
  if (compute != c10::kFloat && compute != c10::kDouble) return false;
  // Inputs that are all values (0-dim tensors expanded) would give the op a scalar, not a vector.
  if (value_inputs == (1 << iter.ninputs()) - 1) return false;
  for (int a = 0; a < iter.ntensors(); ++a) {
    if (is_value_input(value_inputs, a)) continue;
    const c10::ScalarType type = iter.dtype(a);
    if (type == c10::kHalf && compute == c10::kFloat) {
      if (!is_vector_aligned(iter.data_ptr(a), width * sizeof(c10::Half))) return false;
    } else if (type != compute) {
      return false;
    }
  }
  return true;
}

// The inputs that are one element on the device broadcast over the others (a 0-dim tensor):
// bit k for input k. The kernel reads such an input once, as it takes a CPU scalar's value.
uint8_t device_scalar_inputs(const at::TensorIteratorBase& iter) {
  uint8_t bits = 0;
  if (iter.ndim() != 1 || iter.numel() <= 1) return bits;
  for (int k = 0; k < iter.ninputs(); ++k) {
    if (!iter.is_cpu_scalar(k + 1) && iter.strides(k + 1)[0] == 0) bits |= 1 << k;
  }
  return bits;
}

// Whether every operand is contiguous but the inputs read as values (`value_inputs`).
bool is_contiguous_ignoring_scalars(const at::TensorIteratorBase& iter, uint8_t value_inputs) {
  if (iter.ndim() > 1) return false;
  for (int a = 0; a < iter.ntensors(); ++a) {
    if (is_value_input(value_inputs, a) || iter.numel() <= 1) continue;
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
  uint8_t device_scalars;  // bit k: input k is one element on the device, read once (device_scalar_inputs)
  // NDIM: the dims of the strided kernel's layout, the most a launch passes on the device (0 for the
  // foreach programs), so one program has the contiguous and the strided kernel for every rank.
  int8_t layout_dims;
  bool strided;
  bool vectorized;
  bool index64;
  uint8_t list;  // pointwise_lists' LIST, or 0

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
    if (v.device_scalars & (1 << k)) options += "-D" + name + "_SCALAR -D" + name + "_ON_DEVICE ";
  }
  if (v.rounding != c10::ScalarType::Undefined) options += std::string("-DROUND_") + dtype_name(v.rounding) + " ";
  if (v.vectorized) options += "-DVEC=" + std::to_string(runtime::device_info(v.device).vector_width) + " ";
  if (v.layout_dims > 0) options += "-DNDIM=" + std::to_string(v.layout_dims) + " ";
  if (v.list > 0) options += "-DLIST=" + std::to_string(v.list);
  return options;
}

const char* variant_name(const Variant& v) {
  return v.list > 0 ? "pointwise_lists" : v.strided ? "pointwise_strided" : "pointwise_contig";
}

cl_kernel variant_kernel(const Variant& v, int ninputs) {
  thread_local std::unordered_map<Variant, cl_kernel, VariantHash> kernels;
  auto it = kernels.find(v);
  if (it != kernels.end()) return it->second;
  cl_kernel kernel = nullptr;
  try {
    kernel = runtime::kernel(v.device, v.key, variant_name(v), build_options(v, ninputs));
  } catch (const c10::Error& e) {
    // NOTE: an op file has the maths of the dtypes its operator takes (gelu's floating ones, bitwise_not's
    // integral ones), and does not build for others: the CPU's NotImplementedError for such a dtype.
    TORCH_CHECK_NOT_IMPLEMENTED(false, "foo-cl: '", v.key, "' is not implemented for '", c10::toString(v.compute),
                                "' (its kernel does not build for that dtype). ", e.what_without_backtrace());
  }
  kernels.emplace(v, kernel);
  return kernel;
}

// A variant's identity before its operands: the key, device and compute dtype.
Variant variant_of(const std::string& key, c10::DeviceIndex device, c10::ScalarType compute) {
  TORCH_INTERNAL_ASSERT(key.size() < sizeof(Variant::key), "foo-cl: kernel key '", key, "' is too long");
  Variant variant;
  std::memset(&variant, 0, sizeof(variant));  // the bytes are the table key: no stray padding
  std::memcpy(variant.key, key.data(), key.size());
  variant.device = device;
  variant.compute = compute;
  return variant;
}

// A foreach op's by-value operand, as cpu_scalar reads a Python number's CPU scalar: rounded to a
// 16-bit list dtype first unless the op reads it unrounded; inf where it overflows.
c10::Scalar list_value(const c10::Scalar& value, c10::ScalarType type, int input, const std::string& key) {
  const float rounded = static_cast<float>(value.toDouble());
  if (type == c10::kFloat) return rounded;
  if (!at::isReducedFloatingType(type) || reads_unrounded_scalar(key, input)) return value;
  return type == c10::kHalf ? static_cast<float>(c10::Half(rounded)) : static_cast<float>(c10::BFloat16(rounded));
}

// The most tensors one pointwise_lists launch takes: their arguments (output and inputs as buffer
// and offset, the element count, six by-value scalars) within the device's argument limit.
constexpr int kMaxListTensors = 16;  // FOO_LIST_EACH of kernels_cl/pointwise.clh

int list_capacity(c10::DeviceIndex device, int ninputs, c10::ScalarType compute) {
  const size_t per_tensor = 16 * (1 + ninputs) + sizeof(cl_ulong) + 6 * c10::elementSize(compute);
  const size_t fit = runtime::device_info(device).max_parameter_size / per_tensor;
  TORCH_CHECK(fit >= 1, "foo-cl: a foreach launch's arguments exceed CL_DEVICE_MAX_PARAMETER_SIZE of foo:",
              static_cast<int>(device));
  return static_cast<int>(std::min<size_t>(fit, kMaxListTensors));
}

}  // namespace

bool can_launch_lists(const std::vector<ListInput>& inputs, const std::vector<c10::Scalar>& params) {
  if (inputs.empty() || inputs[0].tensors.empty()) return false;
  const auto any_complex = [](const std::vector<c10::Scalar>& values) {
    return std::any_of(values.begin(), values.end(), [](const c10::Scalar& v) { return v.isComplex(); });
  };
  if ((!params.empty() && params.size() != inputs[0].tensors.size()) || any_complex(params)) return false;
  const at::ArrayRef<at::Tensor> first = inputs[0].tensors;
  const at::Tensor& lead = first[0];
  if (!lead.defined() || !lead.is_privateuseone() || !at::isFloatingType(lead.scalar_type())) return false;
  for (const ListInput& input : inputs) {
    if (input.tensors.empty()) {
      if (input.values.size() != first.size() || any_complex(input.values)) return false;
      continue;
    }
    if (input.tensors.size() != first.size()) return false;
    for (size_t i = 0; i < first.size(); ++i) {
      const at::Tensor& t = input.tensors[i];
      if (!t.defined() || t.device() != lead.device() || t.scalar_type() != lead.scalar_type() ||
          !t.is_contiguous() || t.sizes() != first[i].sizes()) {
        return false;
      }
    }
  }
  return true;
}

bool lists_overlap(const std::vector<ListInput>& inputs) {
  // Each tensor's bytes with its entry, sorted; identical ranges of one entry (self read as an input
  // too, addcmul's grad twice) count once, and then any two that meet overlap wrongly.
  struct Range {
    uintptr_t begin, end;
    size_t entry;
    bool operator<(const Range& o) const { return std::tie(begin, end, entry) < std::tie(o.begin, o.end, o.entry); }
    bool operator==(const Range& o) const { return begin == o.begin && end == o.end && entry == o.entry; }
  };
  std::vector<Range> ranges;
  for (const ListInput& input : inputs) {
    for (size_t i = 0; i < input.tensors.size(); ++i) {
      const at::Tensor& t = input.tensors[i];
      if (t.numel() == 0) continue;
      const auto begin = reinterpret_cast<uintptr_t>(t.const_data_ptr());
      ranges.push_back({begin, begin + t.nbytes(), i});
    }
  }
  std::sort(ranges.begin(), ranges.end());
  ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
  for (size_t k = 1; k < ranges.size(); ++k) {
    if (ranges[k].begin < ranges[k - 1].end) return true;
  }
  return false;
}

void launch_pointwise_lists(const std::string& key, at::ArrayRef<at::Tensor> outs, const std::vector<ListInput>& inputs,
                            const std::vector<c10::Scalar>& params) {
  TORCH_INTERNAL_ASSERT(inputs.size() >= 1 && inputs.size() <= 3 && (params.empty() || params.size() == outs.size()));
  const at::Tensor& lead = inputs[0].tensors[0];
  const c10::DeviceGuard guard(lead.device());
  const c10::ScalarType dtype = lead.scalar_type();
  const int ninputs = static_cast<int>(inputs.size());
  Variant variant = variant_of(key, lead.device().index(), compute_type(dtype));
  variant.dtype[0] = dtype;
  for (int k = 0; k < ninputs; ++k) {
    const bool by_value = inputs[k].tensors.empty();
    variant.dtype[k + 1] = by_value ? variant.compute : dtype;
    variant.cpu_scalars |= by_value << k;
  }
  variant.vectorized = dtype == variant.compute;
  const int capacity = list_capacity(variant.device, ninputs, variant.compute);
  variant.list = static_cast<uint8_t>(capacity);
  for (const at::Tensor& out : outs) variant.index64 |= out.numel() > static_cast<int64_t>(UINT32_MAX);
  const cl_kernel kernel = variant_kernel(variant, ninputs);

  // The tensors with elements, `capacity` per launch; a launch with fewer repeats the last one's
  // arguments in the unused slots (no work-group reads them).
  std::vector<size_t> order;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].numel() > 0) order.push_back(i);
  }
  const size_t width = c10::elementSize(variant.compute);
  std::vector<char> list(capacity * (sizeof(cl_ulong) + 6 * width));  // foo_list: counts, then scalars
  for (size_t start = 0; start < order.size(); start += capacity) {
    const size_t count = std::min<size_t>(capacity, order.size() - start);
    KernelCall call(variant.device, kernel, "pointwise_lists", key);
    std::fill(list.begin(), list.end(), 0);
    int64_t total = 0;
    for (int slot = 0; slot < capacity; ++slot) {
      const size_t i = order[start + std::min<size_t>(slot, count - 1)];
      call.buffer(outs[i].data_ptr());
      for (const ListInput& input : inputs) {
        call.buffer(input.tensors.empty() ? outs[i].data_ptr() : input.tensors[i].const_data_ptr());
      }
      const int64_t n = outs[i].numel();
      if (slot < static_cast<int>(count)) total += n;
      const cl_ulong count_bytes = static_cast<cl_ulong>(n);
      std::memcpy(list.data() + slot * sizeof(cl_ulong), &count_bytes, sizeof(count_bytes));
      char* scalars = list.data() + capacity * sizeof(cl_ulong) + slot * 6 * width;
      for (int k = 0; k < ninputs; ++k) {
        if (inputs[k].tensors.empty()) {
          write_scalar(list_value(inputs[k].values[i], dtype, k, key), variant.compute, scalars + k * width);
        }
      }
      if (!params.empty()) write_scalar(params[i], variant.compute, scalars + 3 * width);
    }
    call.bytes(list.data(), list.size());
    // Each row's grid sized for the average tensor (grid loops take any size): a row per small
    // tensor sized for the largest one was mostly idle work-groups, 23 us a launch of eight on PoCL.
    call.launch((total + count - 1) / count, count);
  }
}

void launch_pointwise(at::TensorIteratorBase& iter, const std::string& key, std::initializer_list<c10::Scalar> params,
                      c10::ScalarType requested_compute) {
  TORCH_INTERNAL_ASSERT(iter.noutputs() == 1 && iter.ninputs() >= 1 && iter.ninputs() <= 3 && params.size() <= 3);
  const int64_t n = iter.numel();
  if (n == 0) return;
  const c10::Device device = iter.device(0);
  const c10::DeviceGuard guard(device);

  const c10::ScalarType common = common_type(iter, requested_compute);
  Variant variant = variant_of(key, device.index(), compute_type(common));
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
    if (slice) call.layout(slice->layout, slice->ndim, slice->noperands, variant.layout_dims);
    call.count(numel);
    slice ? call.launch_walk(numel) : call.launch(numel);
  };

  // The other arguments of a strided launch: the tensors, the by-value scalars (complex128 ones are
  // 16 bytes) and the count.
  const size_t other_arg_bytes = std::max(
      16 * iter.ntensors() + 6 * c10::elementSize(variant.compute) + sizeof(cl_ulong), kNonLayoutArgBytes);
  variant.layout_dims = static_cast<int8_t>(max_layout_dims(variant.device, 1 + iter.ntensors(), other_arg_bytes));
  const uint8_t device_scalars = device_scalar_inputs(iter);
  const uint8_t value_inputs = variant.cpu_scalars | device_scalars;
  if (is_contiguous_ignoring_scalars(iter, value_inputs)) {
    variant.device_scalars = device_scalars;
    variant.vectorized = variant.rounding == c10::ScalarType::Undefined &&
                         can_vectorize(iter, variant.compute, runtime::device_info(variant.device).vector_width,
                                       value_inputs);
    bind_and_launch(KernelCall(variant.device, variant_kernel(variant, iter.ninputs()), "pointwise_contig", key), {},
                    nullptr, n);
    return;
  }
  variant.strided = true;
  for_each_strided_slice(
      iter,
      [&](const StridedSlice& slice) {
        variant.index64 = slice.numel > static_cast<int64_t>(UINT32_MAX);
        bind_and_launch(KernelCall(variant.device, variant_kernel(variant, iter.ninputs()), "pointwise_strided", key),
                        slice.offsets, &slice, slice.numel);
      },
      other_arg_bytes);
}

}  // namespace foo_cl::launch
