// unary/log_ndtr: the log of the standard normal distribution function, as PyTorch's calc_log_ndtr:
// through erfcx below -1, where erfc's tail underflows.
#define NIN 1
#include "compute.clh"
#include "special.clh"

#define OP(a) foo_log_ndtr(a)
#include "pointwise.clh"
