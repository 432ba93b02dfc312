// gather, scatter (with or without reduce), scatter_add, scatter_reduce, index_add, index_copy,
// take, put_ and bincount along one dim (launch/Index), with PyTorch's structured meta functions.
// Reductions fold atomically, so sums of repeated positions may round in any order (as on CUDA);
// scatter's last write wins in any order. Under torch.use_deterministic_algorithms(True) sums,
// products and writes fold in the index's order, and so do 64-bit folds on devices without 64-bit
// atomics.
#include "aten/Structured.h"
#include "launch/Index.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/Dispatch.h>
#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/gather_meta.h>
#include <ATen/ops/full.h>
#include <ATen/ops/index_add_meta.h>
#include <ATen/ops/index_copy_meta.h>
#include <ATen/ops/index_reduce_meta.h>
#include <ATen/ops/bincount.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/index_put.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/scatter_add_meta.h>
#include <ATen/ops/scatter_meta.h>
#include <ATen/ops/scatter_reduce_meta.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/DeviceGuard.h>

#include <limits>
#include <string_view>

namespace foo_cl::aten {
namespace {

using at::Tensor;

void gather_kernel(at::meta::structured_gather& op, const Tensor& self, int64_t dim, const Tensor& index_, bool) {
  const Tensor& out = op.maybe_get_output(0);
  if (index_.numel() == 0) return;
  const Tensor index = index_.to(at::kLong);  // the launchers take int64 positions
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const c10::DeviceGuard guard(self.device());
  launch::launch_gather(out, self, dim, index);
}

// out = self with src (or value) written at the index's positions; a fold other than kLast (sum,
// prod, amax or amin) folds src into what is there instead.
void scatter_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index_, const Tensor& src,
                  const c10::Scalar& value, launch::Fold fold = launch::Fold::kLast) {
  const c10::DeviceGuard guard(self.device());
  if (!out.is_same(self)) out.copy_(self);
  if (index_.numel() == 0) return;
  const Tensor index = index_.to(at::kLong);  // the launchers take int64 positions
  dim = c10::maybe_wrap_dim(dim, self.dim());
  if (!src.defined()) {
    launch::launch_scatter_value(out, dim, index, value);
    return;
  }
  const Tensor converted = src.scalar_type() == out.scalar_type() ? src : src.to(out.scalar_type());
  const bool combines = fold != launch::Fold::kLast;
  const bool order_matters = !combines || fold == launch::Fold::kSum || fold == launch::Fold::kProd;
  if ((at::globalContext().deterministicAlgorithms() && order_matters) ||
      (combines && !launch::has_atomics_for(out))) {
    launch::launch_scatter_sorted(out, dim, index, converted, fold);
    return;
  }
  launch::launch_scatter(out, dim, index, converted, fold);
}

// What a position holds before the first source folds in when include_self=False (CPU's values).
c10::Scalar reduce_identity(std::string_view reduce, c10::ScalarType type) {
  if (reduce == "prod") return 1;
  if (reduce != "amax" && reduce != "amin") return 0;
  return AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, type, "reduce_identity", [&] {
    constexpr bool floating = std::numeric_limits<scalar_t>::has_infinity;
    if (reduce == "amax") {
      return c10::Scalar(floating ? -std::numeric_limits<scalar_t>::infinity()
                                  : std::numeric_limits<scalar_t>::lowest());
    }
    return c10::Scalar(floating ? std::numeric_limits<scalar_t>::infinity() : std::numeric_limits<scalar_t>::max());
  });
}

// As CPU's scatter_reduce: positions the index names start from self or from the identity, mean
// divides the sum by the number of values that reached a position (floor division for integers).
void scatter_reduce_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& src, std::string_view reduce, bool include_self) {
  TORCH_CHECK_NOT_IMPLEMENTED(reduce != "mean" || out.scalar_type() != at::kBool,
                              "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
  if (!out.is_same(self)) out.copy_(self);
  if (index.numel() == 0) return;
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const c10::DeviceGuard guard(self.device());
  if (!include_self) scatter_into(out, out, dim, index, Tensor(), reduce_identity(reduce, out.scalar_type()));
  const launch::Fold fold = reduce == "sum" || reduce == "mean" ? launch::Fold::kSum
                            : reduce == "prod"                   ? launch::Fold::kProd
                            : reduce == "amax"                   ? launch::Fold::kAmax
                                                                 : launch::Fold::kAmin;
  scatter_into(out, out, dim, index, src, 0, fold);
  if (reduce != "mean") return;
  Tensor count = include_self ? at::ones_like(out) : at::zeros_like(out);
  scatter_into(count, count, dim, index, at::ones_like(src), 0, launch::Fold::kSum);
  count.masked_fill_(count == 0, 1);
  if (at::isFloatingType(out.scalar_type())) {
    out.div_(count);
  } else {
    out.div_(count, "floor");
  }
}

// The index of a 1-d index along `dim` repeated over the other dims of `sizes` (at least 1-d).
Tensor positions_along(const Tensor& index, c10::IntArrayRef sizes, int64_t dim) {
  std::vector<int64_t> shape(sizes.size(), 1);
  shape[dim] = index.numel();
  return index.to(at::kLong).reshape(shape).expand(sizes);
}

// index_add: self[..., index[i], ...] += alpha * source[..., i, ...], as a scatter_add whose index
// repeats index along the other dims.
void index_add_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const c10::Scalar& alpha) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(!c10::isIntegralType(self.scalar_type(), /*includeBool=*/true) || !alpha.isFloatingPoint(),
              "For integral input tensors, argument alpha must not be a floating point number.");
  const Tensor src = source.dim() == 0 ? source.view({1}) : source;
  const Tensor added = alpha.equal(1) ? src : at::mul(src, alpha);
  const Tensor target = out.dim() == 0 ? out.view({1}) : out;
  if (!out.is_same(self)) out.copy_(self);
  scatter_into(target, target, dim, positions_along(index, src.sizes(), dim), added, 0, launch::Fold::kSum);
}

// index_copy: self[..., index[i], ...] = source[..., i, ...] (a repeated position keeps any one).
void index_copy_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const Tensor src = source.dim() == 0 ? source.view({1}) : source;
  const Tensor target = out.dim() == 0 ? out.view({1}) : out;
  if (!out.is_same(self)) out.copy_(self);
  scatter_into(target, target, dim, positions_along(index, src.sizes(), dim), src, 0);
}

// index_fill_: self[..., index[i], ...] = value. As on CUDA the index may also be a CPU tensor.
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const c10::Scalar& value) {
  TORCH_CHECK_INDEX(index.scalar_type() == at::kLong, "index_fill_(): Expected dtype int64 for index.");
  TORCH_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const c10::DeviceGuard guard(self.device());
  const Tensor positions = index.to(self.device()).reshape(-1);
  if (positions.numel() == 0 || self.numel() == 0) return self;
  const Tensor target = self.dim() == 0 ? self.view({1}) : self;
  const Tensor wrapped = launch::launch_positions(positions, target.size(dim), /*wrap=*/true, /*for_writes=*/true);
  std::vector<int64_t> shape = target.sizes().vec();
  shape[dim] = positions.numel();
  scatter_into(target, target, dim, positions_along(wrapped, shape, dim), Tensor(), value);
  return self;
}

Tensor& index_fill_tensor_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return index_fill_(self, dim, index, value.item());
}

// take and put_ index the tensor as if it were 1-d; negative positions count from the end. The
// index, checked as CPU checks it before its positions, flattened.
Tensor flat_index(const char* op, const char* empty_message, const Tensor& self, const Tensor& index) {
  TORCH_CHECK(index.scalar_type() == at::kLong, op, "(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK(index.device() == self.device(), "Expected all tensors to be on the same device, but found at least two ",
              "devices, ", self.device(), " and ", index.device(), "! (in ", op, "(): index)");
  const int64_t n = self.numel();
  TORCH_CHECK_INDEX(n > 0 || index.numel() == 0, op, "(): ", empty_message);
  return index.reshape(-1);
}

Tensor& take_out(const Tensor& self, const Tensor& index, Tensor& out) {
  TORCH_CHECK(out.scalar_type() == self.scalar_type(),
              "take(): self and result expected to have the same dtype, but got self.dtype = ", self.scalar_type(),
              " and result.dtype = ", out.scalar_type());
  at::assert_no_internal_overlap(out);
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, index);
  const c10::DeviceGuard guard(self.device());
  const Tensor flat = flat_index("take", "tried to take from an empty tensor", self, index);
  const Tensor positions = launch::launch_positions(flat, self.numel(), /*wrap=*/true, /*for_writes=*/false);
  const Tensor values = at::index_select(self.reshape(-1), 0, positions);
  at::native::resize_output(out, index.sizes());
  out.copy_(values.view(index.sizes()));
  return out;
}

Tensor take(const Tensor& self, const Tensor& index) {
  Tensor out = at::empty({0}, self.options());
  return take_out(self, index, out);
}

Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "put_(): self and source expected to have the same dtype, but got self.dtype = ", self.scalar_type(),
              " and source.dtype = ", source.scalar_type());
  TORCH_CHECK(index.numel() == source.numel(),
              "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
              source.numel(), ", index.numel() = ", index.numel());
  const c10::DeviceGuard guard(self.device());
  const Tensor positions = flat_index("put_", "Tried to put elements into an empty tensor", self, index);
  if (positions.numel() == 0) return self;
  Tensor flat = self.is_contiguous() ? self.view(-1) : self.reshape(-1).clone();
  flat.index_put_({positions}, source.reshape(-1), accumulate);  // which wraps and checks the positions
  if (!self.is_contiguous()) self.copy_(flat.view(self.sizes()));
  return self;
}

// As CPU: counts (or summed weights: float32 for float32 weights, float64 otherwise) of each value of
// a 1-d non-negative integer tensor, at least minlength of them (the size needs one wait).
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isIntegralType(self.scalar_type(), /*includeBool=*/false),
                              "\"bincount_cpu\" not implemented for '", c10::toString(self.scalar_type()), "'");
  TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
  const c10::DeviceGuard guard(self.device());
  int64_t lowest = 0, highest = -1;
  if (self.dim() == 1 && self.numel() > 0) {
    const auto [low, high] = at::aminmax(self);
    lowest = low.item<int64_t>();
    highest = high.item<int64_t>();
  }
  TORCH_CHECK(self.dim() == 1 && lowest >= 0, "bincount only supports 1-d non-negative integral inputs.");
  const bool weighted = weights && weights->defined();
  TORCH_CHECK(!weighted || (weights->dim() == 1 && weights->size(0) == self.size(0)),
              "weights should be 1-d and have the same length as input");
  const c10::ScalarType type =
      !weighted ? at::kLong : (weights->scalar_type() == at::kFloat ? at::kFloat : at::kDouble);
  Tensor out = at::zeros({std::max(highest + 1, minlength)}, self.options().dtype(type));
  if (self.numel() == 0) return out;
  const Tensor added = weighted ? weights->to(type) : at::ones({self.size(0)}, out.options());
  scatter_into(out, out, 0, self, added, 0, launch::Fold::kSum);
  return out;
}

// A histogram of `bins` equal bins over [min, max] (the data's range when both are equal), elements
// outside the range (and NaNs) left out, the maximum in the last bin. Floating inputs as on CPU,
// positions computed in self's dtype; integer inputs as on CUDA (the CPU takes none; transformers'
// mixture-of-experts layers count their experts so off the CPU): min and max converted to the
// dtype, element v in bin (v - min) * bins / (max - min), in integers.
Tensor histogram_counts(const Tensor& self, int64_t bins, const c10::Scalar& min, const c10::Scalar& max) {
  const bool integral = c10::isIntegralType(self.scalar_type(), /*includeBool=*/false);
  TORCH_CHECK_NOT_IMPLEMENTED(integral || c10::isFloatingType(self.scalar_type()), "\"histc\" not implemented for '",
                              c10::toString(self.scalar_type()), "'");
  TORCH_CHECK(bins > 0, "torch.histc: bins must be > 0, but got ", bins);
  const c10::DeviceGuard guard(self.device());
  double low = min.toDouble(), high = max.toDouble();
  if (integral) {
    AT_DISPATCH_INTEGRAL_TYPES(self.scalar_type(), "histc", [&] {
      low = static_cast<double>(min.to<scalar_t>());
      high = static_cast<double>(max.to<scalar_t>());
    });
  }
  if (low == high && self.numel() > 0) {
    const auto [smallest, largest] = at::aminmax(self);
    low = smallest.item<double>();
    high = largest.item<double>();
  }
  if (low == high) {
    low -= 1;
    high += 1;
  }
  TORCH_CHECK(std::isfinite(low) && std::isfinite(high), "torch.histc: range of [", low, ", ", high,
              "] is not finite");
  TORCH_CHECK(low < high, "torch.histc: max must be larger than min");
  Tensor positions;
  if (integral) {
    // In int64, where min - 1 and max + 1 of the dtype's extremes still fit.
    const Tensor x = self.reshape({-1}).to(at::kLong);
    const auto left = static_cast<int64_t>(low), width = static_cast<int64_t>(high) - left;
    positions = (at::masked_select(x, x.ge(left).logical_and_(x.le(static_cast<int64_t>(high)))) - left)
                    .mul_(bins)
                    .div_(width, "floor");
  } else {
    const Tensor x = self.reshape({-1});
    const Tensor left = at::scalar_tensor(low, x.options()), right = at::scalar_tensor(high, x.options());
    const Tensor inside = x.ge(left).logical_and_(x.le(right));
    positions = ((at::masked_select(x, inside) - left) * static_cast<double>(bins) / (right - left)).to(at::kLong);
  }
  return at::bincount(positions.clamp_max_(bins - 1), std::nullopt, bins).to(self.scalar_type());
}

Tensor& histc_out(const Tensor& self, int64_t bins, const c10::Scalar& min, const c10::Scalar& max, Tensor& out) {
  const Tensor counts = histogram_counts(self, bins, min, max);
  at::native::resize_output(out, counts.sizes());
  return out.copy_(counts);
}

// index_reduce is scatter_reduce with the index spread over the source's other dims.
void index_reduce_kernel(at::meta::structured_index_reduce& op, const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& source, c10::string_view reduce, bool include_self) {
  const Tensor& out = op.maybe_get_output(0);
  const c10::DeviceGuard guard(self.device());
  if (!out.is_same(self)) out.copy_(self);
  if (source.numel() == 0) return;
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(source.dim(), 1));
  const Tensor src = source.dim() == 0 ? source.view({1}) : source;
  std::vector<int64_t> shape(src.dim(), 1);
  shape[dim] = -1;
  out.scatter_reduce_(dim, index.reshape(shape).expand(src.sizes()), src, reduce, include_self);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("bincount", bincount);
  m.impl("histc", histogram_counts);
  m.impl("histc.out", histc_out);
  register_structured_with_self<at::meta::structured_index_reduce, int64_t, const Tensor&, const Tensor&,
                                c10::string_view, bool>(m, "index_reduce", "index_reduce_", "index_reduce.out",
                                                        index_reduce_kernel);
  m.impl("index_fill_.int_Scalar", index_fill_);
  m.impl("index_fill_.int_Tensor", index_fill_tensor_);
  m.impl("take", take);
  m.impl("take.out", take_out);
  m.impl("put_", put_);
  register_structured_with_self<at::meta::structured_gather, int64_t, const Tensor&, bool>(m, "gather", nullptr,
                                                                                            "gather.out", gather_kernel);
  register_structured_with_self<at::meta::structured_scatter_src, int64_t, const Tensor&, const Tensor&>(
      m, "scatter.src", "scatter_.src", "scatter.src_out",
      [](at::meta::structured_scatter_src& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& src) { scatter_into(op.maybe_get_output(0), self, dim, index, src, 0); });
  register_structured_with_self<at::meta::structured_scatter_value, int64_t, const Tensor&, const c10::Scalar&>(
      m, "scatter.value", "scatter_.value", "scatter.value_out",
      [](at::meta::structured_scatter_value& op, const Tensor& self, int64_t dim, const Tensor& index,
         const c10::Scalar& value) { scatter_into(op.maybe_get_output(0), self, dim, index, Tensor(), value); });
  register_structured_with_self<at::meta::structured_scatter_add, int64_t, const Tensor&, const Tensor&>(
      m, "scatter_add", "scatter_add_", "scatter_add.out",
      [](at::meta::structured_scatter_add& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& src) {
        scatter_into(op.maybe_get_output(0), self, dim, index, src, 0, launch::Fold::kSum);
      });
  // scatter's reduce="add"/"multiply" (the older API) and scatter_reduce.
  register_structured_with_self<at::meta::structured_scatter_reduce, int64_t, const Tensor&, const Tensor&,
                                c10::string_view>(
      m, "scatter.reduce", "scatter_.reduce", "scatter.reduce_out",
      [](at::meta::structured_scatter_reduce& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& src, c10::string_view reduce) {
        scatter_into(op.maybe_get_output(0), self, dim, index, src, 0,
                     reduce == "add" ? launch::Fold::kSum : launch::Fold::kProd);
      });
  register_structured_with_self<at::meta::structured_scatter_value_reduce, int64_t, const Tensor&,
                                const c10::Scalar&, c10::string_view>(
      m, "scatter.value_reduce", "scatter_.value_reduce", "scatter.value_reduce_out",
      [](at::meta::structured_scatter_value_reduce& op, const Tensor& self, int64_t dim, const Tensor& index,
         const c10::Scalar& value, c10::string_view reduce) {
        const Tensor& out = op.maybe_get_output(0);
        scatter_into(out, self, dim, index, at::full(index.sizes(), value, out.options()), 0,
                     reduce == "add" ? launch::Fold::kSum : launch::Fold::kProd);
      });
  register_structured_with_self<at::meta::structured_scatter_reduce_two, int64_t, const Tensor&, const Tensor&,
                                c10::string_view, bool>(
      m, "scatter_reduce.two", "scatter_reduce_.two", "scatter_reduce.two_out",
      [](at::meta::structured_scatter_reduce_two& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& src, c10::string_view reduce, bool include_self) {
        scatter_reduce_kernel(op.maybe_get_output(0), self, dim, index, src, reduce, include_self);
      });
  register_structured_with_self<at::meta::structured_index_copy, int64_t, const Tensor&, const Tensor&>(
      m, "index_copy", "index_copy_", "index_copy.out",
      [](at::meta::structured_index_copy& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& source) { index_copy_kernel(op.maybe_get_output(0), self, dim, index, source); });
  register_structured_with_self<at::meta::structured_index_add, int64_t, const Tensor&, const Tensor&,
                                const c10::Scalar&>(
      m, "index_add", "index_add_", "index_add.out",
      [](at::meta::structured_index_add& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& source, const c10::Scalar& alpha) {
        index_add_kernel(op.maybe_get_output(0), self, dim, index, source, alpha);
      });
}

}  // namespace foo_cl::aten
