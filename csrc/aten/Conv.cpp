// Convolutions, 1-d, 2-d and 3-d (strided, padded, dilated, grouped, transposed), and their
// backward, as column matrices (launch/Conv.h) times the weights (launch/Gemm.h); nn.Unfold and
// nn.Fold (im2col, col2im) are the column matrices alone. 1-d and 2-d convolutions run as 3-d ones
// with depth (and height) 1. The batch is processed in chunks whose column matrices stay under
// kColumnBytes, or one image at a time when a single image's does not (a large 3-d volume's can
// take gigabytes; allocation failure raises torch.OutOfMemoryError).
//
// A convolution relates an "image" side, whose windows the column matrices gather, and an "other"
// side: for a convolution the image is the input and the other side the output; a transposed
// convolution swaps them. In both cases the weight, viewed as [other channels, image channels /
// groups * kd * kh * kw] (wm below), gives other = wm @ im2col(image) and
// image = col2im(wm^T @ other).
//
// Results are contiguous whatever the input's and weight's memory formats: the format PyTorch
// assigns to convolution_overrideable (torch._C._conv_determine_backend_memory_format), which
// torch.compile's fake tensors assume and its compiled code asserts. (CPU and CUDA give channels_last
// results when the input or the weight is channels_last; matching them broke compiled graphs whose
// Inductor made a convolution's input channels_last.)
#include "launch/Conv.h"
#include "launch/Gemm.h"

#include <ATen/native/im2col_shape_check.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <algorithm>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using launch::ConvWindow;

constexpr int64_t kColumnBytes = int64_t{64} << 20;

int64_t chunk_of(const Tensor& image, const ConvWindow& w, int64_t positions) {
  const int64_t per_image = image.size(1) * w.kd * w.kh * w.kw * positions * image.element_size();
  return std::clamp<int64_t>(kColumnBytes / std::max<int64_t>(per_image, 1), 1, std::max<int64_t>(image.size(0), 1));
}

Tensor columns(const Tensor& images, const ConvWindow& w, int64_t positions) {
  Tensor cols = at::empty({images.size(0), images.size(1) * w.kd * w.kh * w.kw, positions}, images.options());
  launch::launch_im2col(images, cols, w);
  return cols;
}

// other [N, Co, L] = wm @ im2col(image) (+ bias per channel); image contiguous [N, Ci, D, H, W],
// other contiguous.
void other_from_image(const Tensor& image, const Tensor& wm, const Tensor& other, const ConvWindow& w, int64_t groups,
                      const std::optional<Tensor>& bias) {
  const int64_t positions = other.size(2), co = other.size(1) / groups, k = wm.size(1);
  const int64_t chunk = chunk_of(image, w, positions);
  for (int64_t n0 = 0; n0 < image.size(0); n0 += chunk) {
    const int64_t nb = std::min(chunk, image.size(0) - n0);
    const Tensor cols = columns(image.narrow(0, n0, nb), w, positions);
    for (int64_t g = 0; g < groups; ++g) {
      const Tensor a = wm.narrow(0, g * co, co).unsqueeze(0).expand({nb, co, k});
      const Tensor d = bias ? bias->narrow(0, g * co, co).view({1, co, 1}).expand({nb, co, positions}) : Tensor();
      launch::launch_gemm(other.narrow(0, n0, nb).narrow(1, g * co, co), a, cols.narrow(1, g * k, k), d, 1,
                          bias ? 1 : 0);
    }
  }
}

// image [N, Ci, D, H, W] (contiguous, overwritten) = col2im(wm^T @ other), other [N, Co, L].
void image_from_other(const Tensor& other, const Tensor& wm, const Tensor& image, const ConvWindow& w, int64_t groups) {
  const int64_t positions = other.size(2), co = other.size(1) / groups, k = wm.size(1);
  const int64_t chunk = chunk_of(image, w, positions);
  for (int64_t n0 = 0; n0 < image.size(0); n0 += chunk) {
    const int64_t nb = std::min(chunk, image.size(0) - n0);
    const Tensor cols = at::empty({nb, groups * k, positions}, image.options());
    for (int64_t g = 0; g < groups; ++g) {
      const Tensor a = wm.narrow(0, g * co, co).t().unsqueeze(0).expand({nb, k, co});
      launch::launch_gemm(cols.narrow(1, g * k, k), a, other.narrow(0, n0, nb).narrow(1, g * co, co), Tensor(), 1, 0);
    }
    launch::launch_col2im(cols, image.narrow(0, n0, nb), w);
  }
}

// The weight gradient [Co, K] = sum over images of other[n] @ im2col(image[n])^T, accumulated in
// float32 for float16/bfloat16: a batched product per chunk of images (no copies of the column
// matrices), then its sum over the batch.
Tensor weight_grad(const Tensor& other, const Tensor& image, const ConvWindow& w, int64_t groups, int64_t k) {
  const int64_t positions = other.size(2), co = other.size(1) / groups;
  const c10::ScalarType acc = other.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const Tensor grad = at::zeros({other.size(1), k}, other.options().dtype(acc));
  // The per-image products of a chunk stay under kColumnBytes too.
  const int64_t per_image_bytes = std::max<int64_t>(other.size(1) * k * grad.element_size(), 1);
  const int64_t chunk =
      std::min(chunk_of(image, w, positions), std::max<int64_t>(1, kColumnBytes / per_image_bytes));
  for (int64_t n0 = 0; n0 < image.size(0); n0 += chunk) {
    const int64_t nb = std::min(chunk, image.size(0) - n0);
    const Tensor cols = columns(image.narrow(0, n0, nb), w, positions);
    const Tensor per_image = at::empty({nb, other.size(1), k}, grad.options());
    for (int64_t g = 0; g < groups; ++g) {
      launch::launch_gemm(per_image.narrow(1, g * co, co), other.narrow(0, n0, nb).narrow(1, g * co, co),
                          cols.narrow(1, g * k, k).transpose(1, 2), Tensor(), 1, 0);
    }
    grad.add_(per_image.sum(0));
  }
  return grad;
}

// Whether a (not transposed) convolution is depthwise: one input channel per group, of several
// groups. It then runs directly (launch_depthwise) rather than as a GEMM per group of 1 x taps rows
// (16x64x32x32 by 64 3x3 filters: 4.2 ms, the CPU 0.4 ms).
bool depthwise(const Tensor& x, const Tensor& weights, int64_t groups) {
  return groups > 1 && x.size(1) == groups && weights.size(1) == 1;
}

struct Conv {
  ConvWindow window;
  int64_t dims;  // 1, 2 or 3
};

// Window parameter `i` (0: depth, 1: height, 2: width) of a `dims`-d convolution's `v`, or
// `missing` along the dims it lacks.
int64_t along(c10::IntArrayRef v, int64_t dims, int64_t i, int64_t missing) {
  return i < 3 - dims ? missing : v[i - (3 - dims)];
}

Conv conv_of(const Tensor& weight, c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation) {
  const int64_t dims = weight.dim() - 2;
  TORCH_CHECK(dims >= 1 && dims <= 3, "foo-cl: convolution supports 1-d, 2-d and 3-d convolutions, got a ", dims,
              "-d one");
  auto k = [&](int64_t i) { return i < 3 - dims ? 1 : weight.size(2 + i - (3 - dims)); };
  ConvWindow w{k(0), k(1), k(2),
               along(stride, dims, 0, 1), along(stride, dims, 1, 1), along(stride, dims, 2, 1),
               along(padding, dims, 0, 0), along(padding, dims, 1, 0), along(padding, dims, 2, 0),
               along(dilation, dims, 0, 1), along(dilation, dims, 1, 1), along(dilation, dims, 2, 1)};
  return {w, dims};
}

// [N, C, (D, (H,)) W] as [N, C, D, H, W].
Tensor as_3d(const Tensor& t, const Conv& conv) {
  Tensor v = t;
  for (int64_t d = conv.dims; d < 3; ++d) v = v.unsqueeze(2);
  return v;
}

Tensor from_3d(const Tensor& t, const Conv& conv) {
  Tensor v = t;
  for (int64_t d = conv.dims; d < 3; ++d) v = v.squeeze(2);
  return v;
}

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                   c10::IntArrayRef output_padding, int64_t groups) {
  const c10::DeviceGuard guard(input.device());
  const Conv conv = conv_of(weight, stride, padding, dilation);
  ConvWindow w = conv.window;
  const Tensor x = as_3d(input, conv).contiguous();
  const Tensor weights = as_3d(weight, conv).contiguous();
  const Tensor wm = weights.view({weights.size(0), -1});
  const int64_t n = x.size(0);
  const std::optional<Tensor> b = bias && bias->defined() ? bias : std::nullopt;
  if (!transposed) {
    w.out_d = launch::conv_out_size(x.size(2), w.kd, w.sd, w.pd, w.dd);
    w.out_h = launch::conv_out_size(x.size(3), w.kh, w.sh, w.ph, w.dh);
    w.out_w = launch::conv_out_size(x.size(4), w.kw, w.sw, w.pw, w.dw);
    const Tensor out = at::empty({n, weights.size(0), w.out_d * w.out_h * w.out_w}, x.options());
    if (depthwise(x, weights, groups)) {
      launch::launch_depthwise(x, weights, b ? b->contiguous() : Tensor(), out, w);
    } else {
      other_from_image(x, wm, out, w, groups, b);
    }
    return from_3d(out.view({n, weights.size(0), w.out_d, w.out_h, w.out_w}), conv);
  }
  // Transposed: the window's positions are the input's; the output is the image side.
  auto image_size = [&](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t i) {
    return (in - 1) * s - 2 * p + d * (k - 1) + along(output_padding, conv.dims, i, 0) + 1;
  };
  Tensor out = at::empty({n, weights.size(1) * groups, image_size(x.size(2), w.kd, w.sd, w.pd, w.dd, 0),
                          image_size(x.size(3), w.kh, w.sh, w.ph, w.dh, 1),
                          image_size(x.size(4), w.kw, w.sw, w.pw, w.dw, 2)},
                         x.options());
  w.out_d = x.size(2);
  w.out_h = x.size(3);
  w.out_w = x.size(4);
  image_from_other(x.view({n, x.size(1), -1}), wm, out, w, groups);
  if (b) out.add_(b->view({1, -1, 1, 1, 1}));
  return from_3d(out, conv);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, c10::IntArrayRef stride,
                                                        c10::IntArrayRef padding, c10::IntArrayRef dilation,
                                                        bool transposed, c10::IntArrayRef, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const c10::DeviceGuard guard(input.device());
  const Conv conv = conv_of(weight, stride, padding, dilation);
  ConvWindow w = conv.window;
  const Tensor x = as_3d(input, conv).contiguous();
  const Tensor gy = as_3d(grad_output, conv).contiguous();
  const Tensor weights = as_3d(weight, conv).contiguous();
  const Tensor wm = weights.view({weights.size(0), -1});
  // The image side is the input of a convolution and the output of a transposed one.
  const Tensor& image = transposed ? gy : x;
  const Tensor& other = transposed ? x : gy;
  w.out_d = other.size(2);
  w.out_h = other.size(3);
  w.out_w = other.size(4);
  const Tensor other_flat = other.view({other.size(0), other.size(1), -1});
  Tensor grad_input, grad_weight, grad_bias;
  const bool direct = !transposed && depthwise(x, weights, groups);
  if (output_mask[0]) {
    if (direct) {
      grad_input = at::empty_like(x);
      launch::launch_depthwise_input_grad(gy, weights, grad_input, w);
    } else if (!transposed) {
      grad_input = at::empty_like(x);
      image_from_other(other_flat, wm, grad_input, w, groups);
    } else {
      grad_input = at::empty({x.size(0), x.size(1), w.out_d * w.out_h * w.out_w}, x.options());
      other_from_image(gy, wm, grad_input, w, groups, std::nullopt);
      grad_input = grad_input.view(x.sizes());
    }
    grad_input = from_3d(grad_input, conv);
  }
  if (output_mask[1]) {
    const Tensor grad = direct ? launch::launch_depthwise_weight_grad(gy, x, w, weights.size(0))
                               : weight_grad(other_flat, image, w, groups, wm.size(1));
    grad_weight = from_3d(grad.to(weight.scalar_type()).view(weights.sizes()), conv);
  }
  if (output_mask[2]) grad_bias = gy.sum({0, 2, 3, 4});
  return {grad_input, grad_weight, grad_bias};
}

// nn.Unfold and nn.Fold (aten::im2col and col2im, each the other's gradient): the column matrices of
// a 2-d window over [N, C, H, W] (or [C, H, W]) images, and their sum back into images.
ConvWindow window_2d(c10::IntArrayRef kernel, c10::IntArrayRef dilation, c10::IntArrayRef padding,
                     c10::IntArrayRef stride, int64_t height, int64_t width) {
  // Kernel, stride, padding and dilation, each (depth, height, width): a window of depth 1.
  ConvWindow w{1, kernel[0], kernel[1], 1, stride[0], stride[1],
               0, padding[0], padding[1], 1, dilation[0], dilation[1]};
  w.out_d = 1;
  w.out_h = launch::conv_out_size(height, w.kh, w.sh, w.ph, w.dh);
  w.out_w = launch::conv_out_size(width, w.kw, w.sw, w.pw, w.dw);
  return w;
}

Tensor im2col(const Tensor& self, c10::IntArrayRef kernel, c10::IntArrayRef dilation, c10::IntArrayRef padding,
              c10::IntArrayRef stride) {
  TORCH_CHECK(kernel.size() == 2 && dilation.size() == 2 && padding.size() == 2 && stride.size() == 2,
              "im2col: kernel_size, dilation, padding and stride take two values each");
  at::native::im2col_shape_check(self, Tensor(), kernel[0], kernel[1], dilation[0], dilation[1], padding[0],
                                 padding[1], stride[0], stride[1]);
  const c10::DeviceGuard guard(self.device());
  const Tensor images = (self.dim() == 4 ? self : self.unsqueeze(0)).contiguous();
  const ConvWindow w = window_2d(kernel, dilation, padding, stride, images.size(2), images.size(3));
  const Tensor cols = columns(images.unsqueeze(2), w, w.out_h * w.out_w);
  return self.dim() == 4 ? cols : cols.squeeze(0);
}

Tensor col2im(const Tensor& self, c10::IntArrayRef output_size, c10::IntArrayRef kernel, c10::IntArrayRef dilation,
              c10::IntArrayRef padding, c10::IntArrayRef stride) {
  TORCH_CHECK(output_size.size() == 2 && kernel.size() == 2 && dilation.size() == 2 && padding.size() == 2 &&
                  stride.size() == 2,
              "col2im: output_size, kernel_size, dilation, padding and stride take two values each");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "col2im: foo supports floating-point dtypes, got ",
              self.scalar_type());
  at::native::col2im_shape_check(self, Tensor(), output_size[0], output_size[1], kernel[0], kernel[1], dilation[0],
                                 dilation[1], padding[0], padding[1], stride[0], stride[1]);
  const c10::DeviceGuard guard(self.device());
  const Tensor cols = (self.dim() == 3 ? self : self.unsqueeze(0)).contiguous();
  const ConvWindow w = window_2d(kernel, dilation, padding, stride, output_size[0], output_size[1]);
  Tensor images = at::empty({cols.size(0), cols.size(1) / (w.kh * w.kw), 1, output_size[0], output_size[1]},
                            cols.options());
  launch::launch_col2im(cols, images, w);
  images = images.squeeze(2);
  return self.dim() == 3 ? images : images.squeeze(0);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("im2col", im2col);
  m.impl("col2im", col2im);
  m.impl("convolution_overrideable", convolution);
  m.impl("convolution_backward_overrideable", convolution_backward);
}

}  // namespace foo_cl::aten
