// unary/lgamma: log |gamma(a)|.
#define NIN 1
#include "compute.clh"

// NOTE: Mesa 22's libclc (rusticl) gives -inf at -inf, and inf for a in about (-5.4e-20, -8.5e-22).
// Below 2^-56 in magnitude, -log|a| is lgamma(a) to double precision (the next term, -0.58 a, is
// below its ulp).
inline ct foo_lgamma(ct a) {
  if (isinf(a)) return (ct)INFINITY;
  if (fabs(a) < (ct)0x1p-56) return -log(fabs(a));
  return lgamma(a);
}

#define OP(a) foo_lgamma(a)
#include "pointwise.clh"
