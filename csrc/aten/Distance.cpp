// Pairwise distances: cdist and pdist forward (p-norms of the broadcast differences) and backward
// (CPU's per-p gradient formulas), composed of foo's elementwise, reduction and indexing kernels.
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/triu_indices.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <cmath>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// x1[..., i, :] - x2[..., j, :] at [..., i, j, :], batch dims broadcast.
Tensor differences(const Tensor& x1, const Tensor& x2) {
  return x1.unsqueeze(-2) - x2.unsqueeze(-3);
}

Tensor cdist_forward(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> /*compute_mode*/) {
  TORCH_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  TORCH_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  TORCH_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
              " X2: ", x2.size(-1));
  TORCH_CHECK(c10::isFloatingType(x1.scalar_type()), "cdist only supports floating-point dtypes, X1 got: ",
              x1.scalar_type());
  TORCH_CHECK(c10::isFloatingType(x2.scalar_type()), "cdist only supports floating-point dtypes, X2 got: ",
              x2.scalar_type());
  TORCH_CHECK(p >= 0, "cdist only supports non-negative p values");
  const c10::DeviceGuard guard(x1.device());
  return at::linalg_vector_norm(differences(x1, x2), p, {-1});
}

// The gradient with respect to x1 of distances `dist` = cdist(x1, x2, p), as CPU's cdist backward:
// a term per pair (zero where the distance is zero), summed over x2's rows.
Tensor cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p, const Tensor& dist) {
  const c10::DeviceGuard guard(x1.device());
  const Tensor diff = differences(x1, x2);
  if (p == 0 || diff.numel() == 0) {
    std::vector<int64_t> shape = diff.sizes().vec();
    shape.erase(shape.end() - 2);
    return at::zeros(shape, x1.options());
  }
  const Tensor g = grad.unsqueeze(-1), d = dist.unsqueeze(-1);
  const Tensor zero_distance = d == 0;
  Tensor term;
  if (p == 1) {
    term = g * diff.sign();
  } else if (p < 2) {
    term = at::where(zero_distance.logical_or(diff == 0 & (p < 1)), 0,
                     diff.sign() * diff.abs().pow(p - 1) * g / d.pow(p - 1));
  } else if (p == 2) {
    term = at::where(zero_distance, 0, g * diff / d);
  } else if (std::isinf(p)) {
    term = g * diff.sign() * (diff.abs() == d);
  } else {
    term = at::where(zero_distance, 0, diff * diff.abs().pow(p - 2) * g / d.pow(p - 1));
  }
  return term.sum(-2);
}

// The upper triangle (i < j, row by row) of an n x n matrix's positions.
Tensor upper_pairs(int64_t n, const c10::Device& device) {
  return at::triu_indices(n, n, 1, at::TensorOptions().dtype(at::kLong)).to(device);
}

Tensor pdist_forward(const Tensor& self, double p) {
  TORCH_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "pdist only supports floating-point dtypes");
  TORCH_CHECK(p >= 0, "pdist only supports non-negative p values");
  const c10::DeviceGuard guard(self.device());
  const Tensor pairs = upper_pairs(self.size(0), self.device());
  const Tensor all = cdist_forward(self, self, p, std::nullopt);
  return all.index({pairs[0], pairs[1]});
}

// pdist's gradient: its pairs' gradients placed symmetrically in an n x n matrix, through cdist's.
Tensor pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& pdist) {
  const c10::DeviceGuard guard(self.device());
  const int64_t n = self.size(0);
  const Tensor pairs = upper_pairs(n, self.device());
  Tensor grad_all = at::zeros({n, n}, grad.options()), dist_all = at::zeros({n, n}, pdist.options());
  for (const auto& [rows, columns] : {std::pair{pairs[0], pairs[1]}, std::pair{pairs[1], pairs[0]}}) {
    grad_all.index_put_({rows, columns}, grad);
    dist_all.index_put_({rows, columns}, pdist);
  }
  return cdist_backward(grad_all, self, self, p, dist_all);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_cdist_forward", cdist_forward);
  m.impl("_cdist_backward", cdist_backward);
  m.impl("_pdist_forward", pdist_forward);
  m.impl("_pdist_backward", pdist_backward);
}

}  // namespace foo_cl::aten
