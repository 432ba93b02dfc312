// unary/log_ndtr: the log of the standard normal distribution function, as PyTorch's calc_log_ndtr:
// through erfcx below -1, where erfc's tail underflows.
#define NIN 1
#include "compute.clh"
#include "special.clh"

inline ct foo_log_ndtr(ct x) {
  const ct t = x * (ct)0.707106781186547524400844362104849039;  // 1 / sqrt(2)
  if (x < -1) return log(foo_erfcx(-t) / 2) - t * t;
  return log1p(-erfc(t) / 2);
}

#define OP(a) foo_log_ndtr(a)
#include "pointwise.clh"
