// out= variants computed by their functional kernels: each result resized into, and copied to, the
// given out tensor (as PyTorch's generated out= wrappers for composite kernels do).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>

#include <tuple>

namespace foo_cl::aten {

inline at::Tensor& write_out(const at::Tensor& result, at::Tensor& out) {
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

inline std::tuple<at::Tensor&, at::Tensor&> write_out(const std::tuple<at::Tensor, at::Tensor>& results,
                                                      at::Tensor& first, at::Tensor& second) {
  write_out(std::get<0>(results), first);
  write_out(std::get<1>(results), second);
  return {first, second};
}

}  // namespace foo_cl::aten
