// Reflection and replication padding (1-d, 2-d and 3-d), forward and backward, as gathers along
// each padded dim: the output's positions read input positions from an index built on the host
// (foo's index_select), and the gradient flows back through the same indices (index_add).
#include "aten/Out.h"

#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <vector>

namespace foo_cl::aten {
namespace {

using at::Tensor;

enum class Mode { reflect, replicate };

// The input position each of the size + before + after output positions reads along one dim.
Tensor source_positions(int64_t size, int64_t before, int64_t after, Mode mode, const c10::Device& device) {
  std::vector<int64_t> positions;
  for (int64_t o = -before; o < size + after; ++o) {
    if (mode == Mode::replicate) {
      positions.push_back(std::clamp<int64_t>(o, 0, size - 1));
    } else {
      positions.push_back(o < 0 ? -o : o >= size ? 2 * (size - 1) - o : o);
    }
  }
  return at::tensor(positions, at::TensorOptions().dtype(at::kLong)).to(device);
}

// PyTorch's checks: a batch dim is optional, padding comes last dim first as (before, after) pairs.
void check_padding(const Tensor& self, c10::IntArrayRef padding, int64_t dims, Mode mode) {
  const char* name = mode == Mode::reflect ? "reflection" : "replication";
  TORCH_CHECK(static_cast<int64_t>(padding.size()) == 2 * dims, name, "_pad", dims, "d: padding size is expected to be ",
              2 * dims, ", but got: ", padding.size());
  TORCH_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, "Expected ", dims + 1, "D or ", dims + 2,
              "D (batch mode) tensor for input, but got: ", self.sizes());
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = self.dim() - 1 - k, size = self.size(dim);
    const int64_t before = padding[2 * k], after = padding[2 * k + 1];
    TORCH_CHECK(size > 0, name, "_pad", dims, "d: expected input to have a non-empty dim ", dim, ", got ",
                self.sizes());
    if (mode == Mode::reflect) {
      TORCH_CHECK(before < size && after < size, "Argument #4: Padding size should be less than the corresponding ",
                  "input dimension, but got: padding (", before, ", ", after, ") at dimension ", dim, " of input ",
                  self.sizes());
    }
    TORCH_CHECK(size + before + after >= 1, name, "_pad", dims, "d: output size is too small for input ",
                self.sizes(), " and padding ", padding);
  }
}

Tensor pad(const Tensor& self, c10::IntArrayRef padding, int64_t dims, Mode mode) {
  check_padding(self, padding, dims, mode);
  const c10::DeviceGuard guard(self.device());
  Tensor out = self;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = self.dim() - 1 - k;
    out = out.index_select(dim, source_positions(self.size(dim), padding[2 * k], padding[2 * k + 1], mode,
                                                 self.device()));
  }
  return out.contiguous(self.suggest_memory_format());
}

Tensor pad_backward(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef padding, int64_t dims, Mode mode) {
  check_padding(self, padding, dims, mode);
  const c10::DeviceGuard guard(self.device());
  Tensor grad = grad_output;
  for (int64_t k = dims - 1; k >= 0; --k) {  // the reverse of the forward's gathers
    const int64_t dim = self.dim() - 1 - k;
    std::vector<int64_t> sizes = grad.sizes().vec();
    sizes[dim] = self.size(dim);
    grad = at::zeros(sizes, grad.options())
               .index_add_(dim, source_positions(self.size(dim), padding[2 * k], padding[2 * k + 1], mode,
                                                 self.device()),
                           grad);
  }
  return grad;
}

template <int64_t Dims, Mode M>
Tensor pad_functional(const Tensor& self, c10::IntArrayRef padding) {
  return pad(self, padding, Dims, M);
}

template <int64_t Dims, Mode M>
Tensor& pad_out(const Tensor& self, c10::IntArrayRef padding, Tensor& out) {
  const Tensor result = pad(self, padding, Dims, M);
  return write_out(result, out);
}

template <int64_t Dims, Mode M>
Tensor pad_backward_functional(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef padding) {
  return pad_backward(grad_output, self, padding, Dims, M);
}

template <int64_t Dims, Mode M>
Tensor& pad_backward_out(const Tensor& grad_output, const Tensor& self, c10::IntArrayRef padding, Tensor& grad_input) {
  at::native::resize_output(grad_input, self.sizes());
  return grad_input.copy_(pad_backward(grad_output, self, padding, Dims, M));
}

}  // namespace

#define FOO_PADDING(m, name, dims, mode)                                                         \
  m.impl(#name, pad_functional<dims, mode>);                                                    \
  m.impl(#name ".out", pad_out<dims, mode>);                                                    \
  m.impl(#name "_backward", pad_backward_functional<dims, mode>);                               \
  m.impl(#name "_backward.grad_input", pad_backward_out<dims, mode>)

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  FOO_PADDING(m, reflection_pad1d, 1, Mode::reflect);
  FOO_PADDING(m, reflection_pad2d, 2, Mode::reflect);
  FOO_PADDING(m, reflection_pad3d, 3, Mode::reflect);
  FOO_PADDING(m, replication_pad1d, 1, Mode::replicate);
  FOO_PADDING(m, replication_pad2d, 2, Mode::replicate);
  FOO_PADDING(m, replication_pad3d, 3, Mode::replicate);
}

}  // namespace foo_cl::aten
