// activation/gelu_tanh: the tanh approximation of gelu, 0.5 x (1 + tanh(u)), computed as
// x sigmoid(2u): 1 + tanh(u) cancels near u = -inf, where vector tanh is an ulp off -1.
#define OP_VECTOR_SAFE
#define NIN 1
#define FOO_GELU_U(a) ((ct)0.79788456080286535588 * ((a) + (ct)0.044715 * (a) * (a) * (a)))
#define OP(a) ((a) / (1 + exp(-2 * FOO_GELU_U(a))))
#include "pointwise.clh"
