// Convolutions, 1-d and 2-d (strided, padded, dilated, grouped, transposed), and their backward,
// as column matrices (launch/Conv.h) times the weights (launch/Gemm.h). The batch is processed in
// chunks whose column matrices stay under kColumnBytes, so memory stays bounded.
//
// A convolution relates an "image" side, whose windows the column matrices gather, and an "other"
// side: for conv2d the image is the input and the other side the output; a transposed
// convolution swaps them. In both cases the weight, viewed as [other channels, image channels /
// groups * kh * kw] (wm below), gives other = wm @ im2col(image) and image = col2im(wm^T @ other).
#include "aten/Fallback.h"
#include "launch/Conv.h"
#include "launch/Gemm.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/sum.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <algorithm>

namespace foo_cl::aten {
namespace {

using at::Tensor;
using launch::ConvWindow;

constexpr int64_t kColumnBytes = int64_t{64} << 20;

int64_t chunk_of(const Tensor& image, const ConvWindow& w, int64_t positions) {
  const int64_t per_image = image.size(1) * w.kh * w.kw * positions * image.element_size();
  return std::clamp<int64_t>(kColumnBytes / std::max<int64_t>(per_image, 1), 1, std::max<int64_t>(image.size(0), 1));
}

Tensor columns(const Tensor& images, const ConvWindow& w, int64_t positions) {
  Tensor cols = at::empty({images.size(0), images.size(1) * w.kh * w.kw, positions}, images.options());
  launch::launch_im2col(images, cols, w);
  return cols;
}

// other [N, Co, L] = wm @ im2col(image) (+ bias per channel); image contiguous [N, Ci, H, W].
// NOTE: computed transposed, other^T [L, Co] = im2col^T @ wm^T: GEMM tiles fill better with the
// many positions as rows than with the few channels.
void other_from_image(const Tensor& image, const Tensor& wm, const Tensor& other, const ConvWindow& w, int64_t groups,
                      const std::optional<Tensor>& bias) {
  const int64_t positions = other.size(2), co = other.size(1) / groups, k = wm.size(1);
  const int64_t chunk = chunk_of(image, w, positions);
  for (int64_t n0 = 0; n0 < image.size(0); n0 += chunk) {
    const int64_t nb = std::min(chunk, image.size(0) - n0);
    const Tensor cols = columns(image.narrow(0, n0, nb), w, positions);
    const Tensor out_t = at::empty({nb, positions, other.size(1)}, other.options());
    for (int64_t g = 0; g < groups; ++g) {
      const Tensor b = wm.narrow(0, g * co, co).t().unsqueeze(0).expand({nb, k, co});
      const Tensor d = bias ? bias->narrow(0, g * co, co).view({1, 1, co}).expand({nb, positions, co}) : Tensor();
      launch::launch_gemm(out_t.narrow(2, g * co, co), cols.narrow(1, g * k, k).transpose(1, 2), b, d, 1,
                          bias ? 1 : 0);
    }
    other.narrow(0, n0, nb).copy_(out_t.transpose(1, 2));
  }
}

// image [N, Ci, H, W] (contiguous, overwritten) = col2im(wm^T @ other), other [N, Co, L].
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
// float32 for float16/bfloat16.
Tensor weight_grad(const Tensor& other, const Tensor& image, const ConvWindow& w, int64_t groups, int64_t k) {
  const int64_t positions = other.size(2), co = other.size(1) / groups;
  const c10::ScalarType acc = other.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const Tensor grad = at::empty({other.size(1), k}, other.options().dtype(acc));
  const int64_t chunk = chunk_of(image, w, positions);
  for (int64_t n0 = 0; n0 < image.size(0); n0 += chunk) {
    const int64_t nb = std::min(chunk, image.size(0) - n0);
    const Tensor cols = columns(image.narrow(0, n0, nb), w, positions);
    for (int64_t g = 0; g < groups; ++g) {
      // Images side by side: [co, nb * L] and [k, nb * L].
      const Tensor o = other.narrow(0, n0, nb).narrow(1, g * co, co).transpose(0, 1).reshape({1, co, nb * positions});
      const Tensor c = cols.narrow(1, g * k, k).transpose(0, 1).reshape({1, k, nb * positions});
      const Tensor out = grad.narrow(0, g * co, co).unsqueeze(0);
      launch::launch_gemm(out, o, c.transpose(1, 2), out, 1, n0 == 0 ? 0 : 1);
    }
  }
  return grad;
}

struct Conv {
  ConvWindow window;
  bool one_d;
};

// 1-d convolutions run as 2-d ones of height 1.
Conv conv_of(const Tensor& weight, c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation) {
  TORCH_CHECK(weight.dim() == 3 || weight.dim() == 4, "foo-cl: convolution supports 1-d and 2-d convolutions, got a ",
              weight.dim() - 2, "-d one");
  if (weight.dim() == 3) return {{1, weight.size(2), 1, stride[0], 0, padding[0], 1, dilation[0]}, true};
  return {{weight.size(2), weight.size(3), stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1]},
          false};
}

Tensor as_2d(const Tensor& t, const Conv& conv) {
  return conv.one_d ? t.unsqueeze(2) : t;
}

Tensor from_2d(const Tensor& t, const Conv& conv) {
  return conv.one_d ? t.squeeze(2) : t;
}

// A 2-d result (computed contiguous) in the memory format CUDA's convolutions give: channels_last
// when the input or the weight is.
Tensor in_conv_format(const Tensor& t, const Tensor& input, const Tensor& weight) {
  if (t.dim() != 4) return t;
  const bool channels_last = input.suggest_memory_format() == c10::MemoryFormat::ChannelsLast ||
                             weight.suggest_memory_format() == c10::MemoryFormat::ChannelsLast;
  return channels_last ? t.contiguous(c10::MemoryFormat::ChannelsLast) : t;
}

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                   c10::IntArrayRef output_padding, int64_t groups) {
  if (weight.dim() > 4) {  // 3-d convolutions run on the CPU for now
    static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
    torch::jit::Stack stack;
    torch::jit::push(stack, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
    run_fallback(op, &stack);
    return stack.back().toTensor();
  }
  const c10::DeviceGuard guard(input.device());
  const Conv conv = conv_of(weight, stride, padding, dilation);
  ConvWindow w = conv.window;
  const Tensor x = as_2d(input, conv).contiguous();
  const Tensor weights = as_2d(weight, conv).contiguous();
  const Tensor wm = weights.view({weights.size(0), -1});
  const int64_t n = x.size(0);
  const std::optional<Tensor> b = bias && bias->defined() ? bias : std::nullopt;
  if (!transposed) {
    const int64_t out_h = launch::conv_out_size(x.size(2), w.kh, w.sh, w.ph, w.dh);
    const int64_t out_w = launch::conv_out_size(x.size(3), w.kw, w.sw, w.pw, w.dw);
    w.out_h = out_h;
    w.out_w = out_w;
    const Tensor out = at::empty({n, weights.size(0), out_h * out_w}, x.options());
    other_from_image(x, wm, out, w, groups, b);
    return in_conv_format(from_2d(out.view({n, weights.size(0), out_h, out_w}), conv), input, weight);
  }
  const int64_t pad_h = conv.one_d ? 0 : output_padding[0], pad_w = output_padding[conv.one_d ? 0 : 1];
  const int64_t out_h = (x.size(2) - 1) * w.sh - 2 * w.ph + w.dh * (w.kh - 1) + pad_h + 1;
  const int64_t out_w = (x.size(3) - 1) * w.sw - 2 * w.pw + w.dw * (w.kw - 1) + pad_w + 1;
  Tensor out = at::empty({n, weights.size(1) * groups, out_h, out_w}, x.options());
  w.out_h = x.size(2);  // the window's positions are the input's
  w.out_w = x.size(3);
  image_from_other(x.view({n, x.size(1), -1}), wm, out, w, groups);
  if (b) out.add_(b->view({1, -1, 1, 1}));
  return in_conv_format(from_2d(out, conv), input, weight);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, c10::IntArrayRef stride,
                                                        c10::IntArrayRef padding, c10::IntArrayRef dilation,
                                                        bool transposed, c10::IntArrayRef output_padding,
                                                        int64_t groups, std::array<bool, 3> output_mask) {
  if (weight.dim() > 4) {  // 3-d convolutions run on the CPU for now
    static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution_backward", "");
    const std::vector<int64_t> bias_sizes{transposed ? weight.size(1) * groups : weight.size(0)};
    torch::jit::Stack stack;
    torch::jit::push(stack, grad_output, input, weight, std::optional<std::vector<int64_t>>(bias_sizes), stride,
                     padding, dilation, transposed, output_padding, groups, output_mask);
    run_fallback(op, &stack);
    return {stack[0].toTensor(), stack[1].toTensor(), stack[2].toTensor()};
  }
  const c10::DeviceGuard guard(input.device());
  const Conv conv = conv_of(weight, stride, padding, dilation);
  ConvWindow w = conv.window;
  const Tensor x = as_2d(input, conv).contiguous();
  const Tensor gy = as_2d(grad_output, conv).contiguous();
  const Tensor weights = as_2d(weight, conv).contiguous();
  const Tensor wm = weights.view({weights.size(0), -1});
  // The image side is the input of a convolution and the output of a transposed one.
  const Tensor& image = transposed ? gy : x;
  const Tensor& other = transposed ? x : gy;
  w.out_h = other.size(2);
  w.out_w = other.size(3);
  const Tensor other_flat = other.view({other.size(0), other.size(1), -1});
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    if (!transposed) {
      grad_input = at::empty_like(x);
      image_from_other(other_flat, wm, grad_input, w, groups);
    } else {
      grad_input = at::empty({x.size(0), x.size(1), x.size(2) * x.size(3)}, x.options());
      other_from_image(gy, wm, grad_input, w, groups, std::nullopt);
      grad_input = grad_input.view(x.sizes());
    }
    grad_input = in_conv_format(from_2d(grad_input, conv), input, weight);
  }
  if (output_mask[1]) {
    grad_weight = from_2d(weight_grad(other_flat, image, w, groups, wm.size(1)).to(weight.scalar_type())
                              .view(weights.sizes()), conv);
  }
  if (output_mask[2]) grad_bias = gy.sum({0, 2, 3});
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("convolution_overrideable", convolution);
  m.impl("convolution_backward_overrideable", convolution_backward);
}

}  // namespace foo_cl::aten
