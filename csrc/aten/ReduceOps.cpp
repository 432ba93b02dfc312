// Reductions: sums, means, products, extrema (with indices), logical all/any, norms, variance and
// standard deviation, counts. PyTorch's meta functions size and type the outputs where they exist;
// every reduction runs the launcher with its kernels_cl/reduce/<op>.cl program. equal, trace and
// renorm are composed of them.
#include "aten/Structured.h"
#include "launch/Dtypes.h"
#include "launch/Reduce.h"

#include <ATen/TensorOperators.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/ops/all_meta.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/amax_meta.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/renorm_meta.h>
#include <ATen/ops/where.h>
#include <ATen/ops/amin.h>
#include <ATen/ops/amin_meta.h>
#include <ATen/ops/aminmax_meta.h>
#include <ATen/ops/any_meta.h>
#include <ATen/ops/argmax_meta.h>
#include <ATen/ops/argmin_meta.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/linalg_vector_norm_meta.h>
#include <ATen/ops/mean.h>
#include <ATen/ops/mean_meta.h>
#include <ATen/ops/norm_meta.h>
#include <ATen/ops/prod_meta.h>
#include <ATen/ops/sum_meta.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using OptionalDims = at::OptionalIntArrayRef;
using OptionalDtype = std::optional<at::ScalarType>;

// Wrapped reduced dims; empty (or none given) means every dim, as in PyTorch, which also raises
// for a repeated dim and for more than 64 dims.
std::vector<int64_t> wrap_dims(const Tensor& self, OptionalDims dims) {
  std::vector<int64_t> wrapped;
  if (dims) {
    at::dim_list_to_bitset(*dims, self.dim());
    for (int64_t d : *dims) wrapped.push_back(c10::maybe_wrap_dim(d, self.dim()));
  }
  return wrapped;
}

// The shape of a reduction's output, for the ops PyTorch sizes without a meta function.
std::vector<int64_t> reduced_shape(const Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  std::vector<bool> reduced(self.dim(), dims.empty());
  for (int64_t d : dims) {
    if (d < self.dim()) reduced[d] = true;  // a 0-dim tensor's dim 0 names no real dim
  }
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!reduced[d]) {
      shape.push_back(self.size(d));
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return shape;
}

int64_t reduced_count(const Tensor& self, const Tensor& out) {
  return out.numel() == 0 ? 0 : self.numel() / out.numel();
}

void reduce(const Tensor& self, const Tensor& out, const std::vector<int64_t>& dims, bool keepdim,
            const launch::ReduceOp& op, const Tensor& indices = Tensor()) {
  launch::launch_reduce(self, out, indices, dims, keepdim, op);
}

// ---- sums and products ----------------------------------------------------------------------------

void sum_kernel(at::meta::structured_sum_dim_IntList& op, const Tensor& self, OptionalDims dims, bool keepdim,
                OptionalDtype) {
  const Tensor& out = op.maybe_get_output(0);
  reduce(self, out, wrap_dims(self, dims), keepdim, {launch::Reduction::kSum, launch::compute_type(out.scalar_type())});
}

void mean_kernel(at::meta::structured_mean_dim& op, const Tensor& self, OptionalDims dims, bool keepdim,
                 OptionalDtype) {
  const Tensor& out = op.maybe_get_output(0);
  const double scale = 1.0 / static_cast<double>(reduced_count(self, out));
  reduce(self, out, wrap_dims(self, dims), keepdim, {launch::Reduction::kMean, launch::compute_type(out.scalar_type()), {scale}});
}

void prod_kernel(at::meta::structured_prod_dim_int& op, const Tensor& self, int64_t dim, bool keepdim, OptionalDtype) {
  const Tensor& out = op.maybe_get_output(0);
  reduce(self, out, {c10::maybe_wrap_dim(dim, self.dim())}, keepdim, {launch::Reduction::kProd, launch::compute_type(out.scalar_type())});
}

c10::ScalarType sum_dtype(const Tensor& self, OptionalDtype dtype) {
  if (dtype) return *dtype;
  return c10::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? at::kLong : self.scalar_type();
}

Tensor prod(const Tensor& self, OptionalDtype dtype) {
  Tensor out = at::empty({}, self.options().dtype(sum_dtype(self, dtype)));
  reduce(self, out, {}, false, {launch::Reduction::kProd, launch::compute_type(out.scalar_type())});
  return out;
}

Tensor& nansum_out(const Tensor& self, OptionalDims dims, bool keepdim, OptionalDtype dtype, Tensor& out) {
  const auto wrapped = wrap_dims(self, dims);
  at::native::resize_output(out, reduced_shape(self, wrapped, keepdim));
  TORCH_CHECK(out.scalar_type() == sum_dtype(self, dtype), "nansum: expected out dtype ", sum_dtype(self, dtype),
              " but got ", out.scalar_type());
  reduce(self, out, wrapped, keepdim, {launch::Reduction::kNansum, launch::compute_type(out.scalar_type())});
  return out;
}

Tensor nansum(const Tensor& self, OptionalDims dims, bool keepdim, OptionalDtype dtype) {
  Tensor out = at::empty({0}, self.options().dtype(sum_dtype(self, dtype)));
  return nansum_out(self, dims, keepdim, dtype, out);
}

// ---- extrema ----------------------------------------------------------------------------------------

template <class Meta>
void extremum_kernel(Meta& op, const Tensor& self, c10::IntArrayRef dims, bool keepdim, launch::Reduction reduction) {
  const Tensor& out = op.maybe_get_output(0);
  std::vector<int64_t> wrapped;
  for (int64_t d : dims) wrapped.push_back(c10::maybe_wrap_dim(d, self.dim()));
  reduce(self, out, wrapped, keepdim, {reduction, launch::compute_type(self.scalar_type())});
}

template <class Meta>
void arg_kernel(Meta& op, const Tensor& self, std::optional<int64_t> dim, bool keepdim, bool is_min) {
  const Tensor& out = op.maybe_get_output(0);
  const std::vector<int64_t> dims = dim ? std::vector<int64_t>{c10::maybe_wrap_dim(*dim, self.dim())} : std::vector<int64_t>{};
  reduce(self, out, dims, dim ? keepdim : false, {is_min ? launch::Reduction::kArgmin : launch::Reduction::kArgmax, launch::compute_type(self.scalar_type())});
}

// max.dim and min.dim: values and first indices.
std::tuple<Tensor&, Tensor&> extremum_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                              Tensor& indices, bool is_min) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const char* name = is_min ? "min()" : "max()";
  TORCH_CHECK_INDEX(self.dim() == 0 || self.size(dim) > 0, name, ": Expected reduction dim ", dim,
                    " to have non-zero size.");
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), name, ": expected values dtype ", self.scalar_type(),
              " but got ", values.scalar_type());
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": expected indices dtype int64 but got ",
              indices.scalar_type());
  const std::vector<int64_t> dims = self.dim() == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{dim};
  const auto shape = self.dim() == 0 ? std::vector<int64_t>{} : reduced_shape(self, dims, keepdim);
  at::native::resize_output(values, shape);
  at::native::resize_output(indices, shape);
  reduce(self, values, dims, keepdim,
         {is_min ? launch::Reduction::kMin : launch::Reduction::kMax, launch::compute_type(self.scalar_type())},
         indices);
  return {values, indices};
}

std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  Tensor values = at::empty({0}, self.options()), indices = at::empty({0}, self.options().dtype(at::kLong));
  extremum_dim_out(self, dim, keepdim, values, indices, false);
  return {values, indices};
}

std::tuple<Tensor, Tensor> min_dim(const Tensor& self, int64_t dim, bool keepdim) {
  Tensor values = at::empty({0}, self.options()), indices = at::empty({0}, self.options().dtype(at::kLong));
  extremum_dim_out(self, dim, keepdim, values, indices, true);
  return {values, indices};
}

std::tuple<Tensor&, Tensor&> max_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                         Tensor& indices) {
  return extremum_dim_out(self, dim, keepdim, values, indices, false);
}

std::tuple<Tensor&, Tensor&> min_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                         Tensor& indices) {
  return extremum_dim_out(self, dim, keepdim, values, indices, true);
}

// max() and min() of a whole tensor.
Tensor& full_extremum_out(const Tensor& self, Tensor& out, bool is_min) {
  TORCH_CHECK(self.numel() > 0, is_min ? "min()" : "max()",
              ": Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
              "'dim' argument.");
  at::native::resize_output(out, {});
  reduce(self, out, {}, false, {is_min ? launch::Reduction::kAmin : launch::Reduction::kAmax, launch::compute_type(self.scalar_type())});
  return out;
}

Tensor max_all(const Tensor& self) {
  Tensor out = at::empty({}, self.options());
  return full_extremum_out(self, out, false);
}

Tensor min_all(const Tensor& self) {
  Tensor out = at::empty({}, self.options());
  return full_extremum_out(self, out, true);
}

Tensor& max_all_out(const Tensor& self, Tensor& out) {
  return full_extremum_out(self, out, false);
}

Tensor& min_all_out(const Tensor& self, Tensor& out) {
  return full_extremum_out(self, out, true);
}

void aminmax_kernel(at::meta::structured_aminmax& op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const std::vector<int64_t> dims = dim ? std::vector<int64_t>{c10::maybe_wrap_dim(*dim, self.dim())} : std::vector<int64_t>{};
  const bool keep = dim ? keepdim : false;
  reduce(self, op.maybe_get_output(0), dims, keep, {launch::Reduction::kAmin, launch::compute_type(self.scalar_type())});
  reduce(self, op.maybe_get_output(1), dims, keep, {launch::Reduction::kAmax, launch::compute_type(self.scalar_type())});
}

// ---- logical ----------------------------------------------------------------------------------------

template <class Meta>
void logical_kernel(Meta& op, const Tensor& self, std::vector<int64_t> dims, bool keepdim, launch::Reduction reduction) {
  reduce(self, op.maybe_get_output(0), dims, keepdim, {reduction, launch::compute_type(self.scalar_type())});
}

// ---- norms --------------------------------------------------------------------------------------------

launch::ReduceOp norm_op(double p, c10::ScalarType compute) {
  if (p == 2) return {launch::Reduction::kNorm2, compute};
  if (p == 1) return {launch::Reduction::kNorm1, compute};
  if (p == 0) return {launch::Reduction::kNorm0, compute};
  if (std::isinf(p)) return {p > 0 ? launch::Reduction::kNormInf : launch::Reduction::kNormNegInf, compute};
  return {launch::Reduction::kNorm, compute, {p, 1.0 / p}};
}

void norm_into(const Tensor& self, const Tensor& out, double p, std::vector<int64_t> dims, bool keepdim) {
  // The elements are read in out's precision (a float32 norm of float16 input upcasts, as CPU).
  reduce(self, out, dims, keepdim, norm_op(p, launch::compute_type(out.scalar_type())));
}

// ---- variance -----------------------------------------------------------------------------------------

Tensor& var_std_out(const Tensor& self, OptionalDims dims, const std::optional<at::Scalar>& correction, bool keepdim,
                    Tensor& out, bool is_std) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), is_std ? "std" : "var",
              " only supports floating point and complex dtypes");
  const auto wrapped = wrap_dims(self, dims);
  at::native::resize_output(out, reduced_shape(self, wrapped, keepdim));
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ", self.scalar_type(),
              ", but got ", out.scalar_type(), " instead");
  const double c = correction ? correction->toDouble() : 1.0;
  reduce(self, out, wrapped, keepdim, {is_std ? launch::Reduction::kStd : launch::Reduction::kVar, launch::compute_type(self.scalar_type()), {c}});
  return out;
}

Tensor var_correction(const Tensor& self, OptionalDims dims, const std::optional<at::Scalar>& correction,
                      bool keepdim) {
  Tensor out = at::empty({0}, self.options());
  return var_std_out(self, dims, correction, keepdim, out, false);
}

Tensor std_correction(const Tensor& self, OptionalDims dims, const std::optional<at::Scalar>& correction,
                      bool keepdim) {
  Tensor out = at::empty({0}, self.options());
  return var_std_out(self, dims, correction, keepdim, out, true);
}

Tensor& var_correction_out(const Tensor& self, OptionalDims dims, const std::optional<at::Scalar>& correction,
                           bool keepdim, Tensor& out) {
  return var_std_out(self, dims, correction, keepdim, out, false);
}

Tensor& std_correction_out(const Tensor& self, OptionalDims dims, const std::optional<at::Scalar>& correction,
                           bool keepdim, Tensor& out) {
  return var_std_out(self, dims, correction, keepdim, out, true);
}

std::tuple<Tensor, Tensor> var_mean_correction(const Tensor& self, OptionalDims dims,
                                               const std::optional<at::Scalar>& correction, bool keepdim) {
  return {var_correction(self, dims, correction, keepdim), at::mean(self, dims, keepdim)};
}

std::tuple<Tensor, Tensor> std_mean_correction(const Tensor& self, OptionalDims dims,
                                               const std::optional<at::Scalar>& correction, bool keepdim) {
  return {std_correction(self, dims, correction, keepdim), at::mean(self, dims, keepdim)};
}

// ---- counts -------------------------------------------------------------------------------------------

Tensor count_nonzero_dims(const Tensor& self, c10::IntArrayRef dims) {
  const std::vector<int64_t> wrapped = wrap_dims(self, dims);
  Tensor out = at::empty(reduced_shape(self, wrapped, false), self.options().dtype(at::kLong));
  reduce(self, out, wrapped, false, {launch::Reduction::kCountNonzero, launch::compute_type(self.scalar_type())});
  return out;
}

// Whether two tensors have the same sizes and equal elements (NaN equals nothing), as CPU's equal.
bool equal(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(self.device() == other.device(), "Cannot compare two tensors on different devices. Got: ", self.device(),
              " and ", other.device());
  return self.sizes() == other.sizes() && at::eq(self, other).all().item<bool>();
}

Tensor trace(const Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return self.diagonal().sum();
}

// Each slice along `dim` whose p-norm exceeds maxnorm scaled to norm maxnorm, as CPU (its factor
// maxnorm / (norm + 1e-7)); norms accumulate in float32 for 16-bit floats.
void renorm_kernel(at::meta::structured_renorm& op, const Tensor& self, const at::Scalar& p, int64_t dim,
                   const at::Scalar& maxnorm) {
  const Tensor& out = op.maybe_get_output(0);
  const c10::DeviceGuard guard(self.device());
  std::vector<int64_t> reduced;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d != at::maybe_wrap_dim(dim, self.dim())) reduced.push_back(d);
  }
  const Tensor norm =
      at::linalg_vector_norm(self, p, reduced, /*keepdim=*/true, launch::float_accumulate_type(self.scalar_type()));
  const double limit = maxnorm.toDouble();
  const Tensor factor = at::where(norm > limit, limit / (norm + 1e-7), 1);
  out.copy_(self * factor.to(self.scalar_type()));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("equal", equal);
  m.impl("trace", trace);
  register_structured_with_self<at::meta::structured_renorm, const at::Scalar&, int64_t, const at::Scalar&>(
      m, "renorm", "renorm_", "renorm.out", renorm_kernel);
  using Sum = at::meta::structured_sum_dim_IntList;
  register_structured_with_self<Sum, OptionalDims, bool, OptionalDtype>(m, "sum.dim_IntList", nullptr,
                                                                        "sum.IntList_out", sum_kernel);
  using Mean = at::meta::structured_mean_dim;
  register_structured_with_self<Mean, OptionalDims, bool, OptionalDtype>(m, "mean.dim", nullptr, "mean.out",
                                                                         mean_kernel);
  using Prod = at::meta::structured_prod_dim_int;
  register_structured_with_self<Prod, int64_t, bool, OptionalDtype>(m, "prod.dim_int", nullptr, "prod.int_out",
                                                                    prod_kernel);
  m.impl("prod", prod);
  m.impl("nansum", nansum);
  m.impl("nansum.out", nansum_out);

  using Amax = at::meta::structured_amax;
  register_structured_with_self<Amax, c10::IntArrayRef, bool>(
      m, "amax", nullptr, "amax.out",
      [](Amax& op, const Tensor& self, c10::IntArrayRef dims, bool keepdim) {
        extremum_kernel(op, self, dims, keepdim, launch::Reduction::kAmax);
      });
  using Amin = at::meta::structured_amin;
  register_structured_with_self<Amin, c10::IntArrayRef, bool>(
      m, "amin", nullptr, "amin.out",
      [](Amin& op, const Tensor& self, c10::IntArrayRef dims, bool keepdim) {
        extremum_kernel(op, self, dims, keepdim, launch::Reduction::kAmin);
      });
  using Argmax = at::meta::structured_argmax;
  register_structured_with_self<Argmax, std::optional<int64_t>, bool>(
      m, "argmax", nullptr, "argmax.out",
      [](Argmax& op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
        arg_kernel(op, self, dim, keepdim, false);
      });
  using Argmin = at::meta::structured_argmin;
  register_structured_with_self<Argmin, std::optional<int64_t>, bool>(
      m, "argmin", nullptr, "argmin.out",
      [](Argmin& op, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
        arg_kernel(op, self, dim, keepdim, true);
      });
  m.impl("max.dim", max_dim);
  m.impl("min.dim", min_dim);
  m.impl("max.dim_max", max_dim_out);
  m.impl("min.dim_min", min_dim_out);
  m.impl("max", max_all);
  m.impl("min", min_all);
  m.impl("max.unary_out", max_all_out);
  m.impl("min.unary_out", min_all_out);
  using Aminmax = at::meta::structured_aminmax;
  m.impl("aminmax", [](const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
    detail::FunctionalOp<Aminmax> op;
    op.meta(self, dim, keepdim);
    aminmax_kernel(op, self, dim, keepdim);
    return std::make_tuple(std::move(op.outputs[0]), std::move(op.outputs[1]));
  });
  m.impl("aminmax.out", [](const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& min,
                           Tensor& max) -> std::tuple<Tensor&, Tensor&> {
    detail::GivenOutputOp<Aminmax, false> op(min, max);
    op.meta(self, dim, keepdim);
    aminmax_kernel(op, self, dim, keepdim);
    op.finish();
    return {min, max};
  });

  using AllDim = at::meta::structured_all_dim;
  register_structured_with_self<AllDim, int64_t, bool>(
      m, "all.dim", nullptr, "all.out", [](AllDim& op, const Tensor& self, int64_t dim, bool keepdim) {
        logical_kernel(op, self, {c10::maybe_wrap_dim(dim, self.dim())}, keepdim, launch::Reduction::kAll);
      });
  using AllDims = at::meta::structured_all_dims;
  register_structured_with_self<AllDims, OptionalDims, bool>(
      m, "all.dims", nullptr, "all.dims_out", [](AllDims& op, const Tensor& self, OptionalDims dims, bool keepdim) {
        logical_kernel(op, self, wrap_dims(self, dims), keepdim, launch::Reduction::kAll);
      });
  using All = at::meta::structured_all;
  register_structured_with_self<All>(m, "all", nullptr, "all.all_out", [](All& op, const Tensor& self) {
    logical_kernel(op, self, {}, false, launch::Reduction::kAll);
  });
  using AnyDim = at::meta::structured_any_dim;
  register_structured_with_self<AnyDim, int64_t, bool>(
      m, "any.dim", nullptr, "any.out", [](AnyDim& op, const Tensor& self, int64_t dim, bool keepdim) {
        logical_kernel(op, self, {c10::maybe_wrap_dim(dim, self.dim())}, keepdim, launch::Reduction::kAny);
      });
  using AnyDims = at::meta::structured_any_dims;
  register_structured_with_self<AnyDims, OptionalDims, bool>(
      m, "any.dims", nullptr, "any.dims_out", [](AnyDims& op, const Tensor& self, OptionalDims dims, bool keepdim) {
        logical_kernel(op, self, wrap_dims(self, dims), keepdim, launch::Reduction::kAny);
      });
  using Any = at::meta::structured_any;
  register_structured_with_self<Any>(m, "any", nullptr, "any.all_out", [](Any& op, const Tensor& self) {
    logical_kernel(op, self, {}, false, launch::Reduction::kAny);
  });

  using Norm = at::meta::structured_norm_ScalarOpt_dim;
  register_structured_with_self<Norm, const std::optional<at::Scalar>&, c10::IntArrayRef, bool>(
      m, "norm.ScalarOpt_dim", nullptr, "norm.out",
      [](Norm& op, const Tensor& self, const std::optional<at::Scalar>& p, c10::IntArrayRef dims, bool keepdim) {
        norm_into(self, op.maybe_get_output(0), p ? p->toDouble() : 2.0, wrap_dims(self, dims), keepdim);
      });
  using NormDtype = at::meta::structured_norm_ScalarOpt_dim_dtype;
  register_structured_with_self<NormDtype, const std::optional<at::Scalar>&, c10::IntArrayRef, bool, at::ScalarType>(
      m, "norm.ScalarOpt_dim_dtype", nullptr, "norm.dtype_out",
      [](NormDtype& op, const Tensor& self, const std::optional<at::Scalar>& p, c10::IntArrayRef dims, bool keepdim,
         at::ScalarType) {
        norm_into(self, op.maybe_get_output(0), p ? p->toDouble() : 2.0, wrap_dims(self, dims), keepdim);
      });
  using VectorNorm = at::meta::structured_linalg_vector_norm;
  register_structured_with_self<VectorNorm, const at::Scalar&, OptionalDims, bool, OptionalDtype>(
      m, "linalg_vector_norm", nullptr, "linalg_vector_norm.out",
      [](VectorNorm& op, const Tensor& self, const at::Scalar& ord, OptionalDims dims, bool keepdim, OptionalDtype) {
        norm_into(self, op.maybe_get_output(0), ord.toDouble(), wrap_dims(self, dims), keepdim);
      });

  m.impl("var.correction", var_correction);
  m.impl("var.correction_out", var_correction_out);
  m.impl("std.correction", std_correction);
  m.impl("std.correction_out", std_correction_out);
  m.impl("var_mean.correction", var_mean_correction);
  m.impl("std_mean.correction", std_mean_correction);
  m.impl("count_nonzero.dim_IntList", count_nonzero_dims);
}

}  // namespace foo_cl::aten
