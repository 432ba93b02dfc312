// The softmax launchers (kernels_cl/softmax/softmax.cl): softmax or log_softmax along one dim of
// contiguous tensors viewed as [outer, dim, inner], forward and backward; half and bfloat16 compute
// in float. Results may have any layout (written densely, then copied in).
#pragma once

#include <ATen/core/Tensor.h>

namespace foo_cl::launch {

void launch_softmax(const at::Tensor& input, int64_t dim, bool log, const at::Tensor& out);

// grad_input from the incoming gradient and the forward output (both contiguous, in grad_input's dtype).
void launch_softmax_backward(const at::Tensor& grad, const at::Tensor& output, int64_t dim, bool log,
                             const at::Tensor& grad_input);

}  // namespace foo_cl::launch
