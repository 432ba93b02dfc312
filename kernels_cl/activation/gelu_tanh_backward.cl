// activation/gelu_tanh_backward: a: gradient, b: x. With s = sigmoid(2u) = (1 + tanh(u)) / 2, the
// derivative is s + 2 x s (1 - s) beta (1 + 3 kappa x^2), free of the cancellation in 1 + tanh(u).
#define NIN 2
#include "compute.clh"

inline ct foo_gelu_tanh_backward(ct grad, ct x) {
  const ct beta = (ct)0.79788456080286535588, kappa = (ct)0.044715;
  const ct s = 1 / (1 + exp(-2 * beta * (x + kappa * x * x * x)));
  return grad * (s + 2 * x * s * (1 - s) * beta * (1 + 3 * kappa * x * x));
}
#define OP(a, b) foo_gelu_tanh_backward(a, b)

#include "pointwise.clh"
