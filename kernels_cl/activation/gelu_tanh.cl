// activation/gelu_tanh: tanh approximation of gelu.
#define OP_VECTOR_SAFE
#define NIN 1
#define OP(a) ((ct)0.5 * (a) * (1 + tanh((ct)0.79788456080286535588 * ((a) + (ct)0.044715 * (a) * (a) * (a)))))
#include "pointwise.clh"
