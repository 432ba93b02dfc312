// activation/gelu_tanh_backward: a: gradient, b: x.
#define NIN 2
#include "compute.clh"

inline ct foo_gelu_tanh_backward(ct grad, ct x) {
  const ct beta = (ct)0.79788456080286535588, kappa = (ct)0.044715;
  const ct inner = beta * (x + kappa * x * x * x);
  const ct tanh_inner = tanh(inner);
  const ct left_derivative = (ct)0.5 * (1 + tanh_inner);
  const ct right_derivative = (ct)0.5 * x * (1 - tanh_inner * tanh_inner) * beta * (1 + 3 * kappa * x * x);
  return grad * (left_derivative + right_derivative);
}
#define OP(a, b) foo_gelu_tanh_backward(a, b)

#include "pointwise.clh"
