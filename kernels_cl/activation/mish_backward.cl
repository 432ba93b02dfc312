// activation/mish_backward: a: gradient, b: x.
#define NIN 2
#include "compute.clh"

inline ct foo_mish_backward(ct grad, ct x) {
  const ct tanh_softplus = foo_tanh(log1p(exp(x)));
  return grad * (tanh_softplus + x * foo_sigmoid(x) * (1 - tanh_softplus * tanh_softplus));
}
#define OP(a, b) foo_mish_backward(a, b)

#include "pointwise.clh"
