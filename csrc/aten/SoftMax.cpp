// softmax and log_softmax, forward and backward, along any dim (launch/Softmax), with PyTorch's
// structured meta functions for checks and shapes.
#include "aten/Structured.h"
#include "launch/Softmax.h"

#include <ATen/ops/_log_softmax_backward_data_meta.h>
#include <ATen/ops/_log_softmax_meta.h>
#include <ATen/ops/_softmax_backward_data_meta.h>
#include <ATen/ops/_softmax_meta.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

template <class Meta>
void register_forward(torch::Library& m, const char* functional, const char* out, bool log) {
  register_structured_with_self<Meta, int64_t, bool>(
      m, functional, nullptr, out, [log, functional](Meta& op, const Tensor& self, int64_t dim, bool) {
        TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), "foo-cl: ", functional,
                                    " is not implemented for '", self.scalar_type(), "'");
        launch::launch_softmax(self.contiguous(), dim, log, op.maybe_get_output(0));
      });
}

template <class Meta>
void register_backward(torch::Library& m, const char* functional, const char* out, bool log) {
  register_structured_with_self<Meta, const Tensor&, int64_t, at::ScalarType>(
      m, functional, nullptr, out,
      [log](Meta& op, const Tensor& grad_output, const Tensor& output, int64_t dim, at::ScalarType) {
        const Tensor& grad_input = op.maybe_get_output(0);
        const Tensor grad = grad_output.contiguous();
        // The kernel reads the forward output in grad_input's dtype (they differ after half_to_float).
        const Tensor forward = output.to(grad_input.scalar_type()).contiguous();
        launch::launch_softmax_backward(grad, forward, dim, log, grad_input);
      });
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_forward<at::meta::structured__softmax>(m, "_softmax", "_softmax.out", false);
  register_forward<at::meta::structured__log_softmax>(m, "_log_softmax", "_log_softmax.out", true);
  register_backward<at::meta::structured__softmax_backward_data>(m, "_softmax_backward_data",
                                                                 "_softmax_backward_data.out", false);
  register_backward<at::meta::structured__log_softmax_backward_data>(m, "_log_softmax_backward_data",
                                                                     "_log_softmax_backward_data.out", true);
}

}  // namespace foo_cl::aten
