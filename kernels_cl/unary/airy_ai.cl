// unary/airy_ai: the Airy function Ai, as PyTorch's airy_ai_forward.
#define NIN 1
#include "compute.clh"
#include "special_bessel.clh"
#define OP(a) foo_airy_ai(a)
#include "pointwise.clh"
