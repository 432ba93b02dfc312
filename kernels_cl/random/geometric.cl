// random/geometric: the number of Bernoulli(p) trials up to the first success, ceil(log(U) / log1p(-p)).
#include "random/random.clh"

#if BITS == 64
double8 sample(ulong8 w, double p, double unused) {
  return ceil(log(foo_open_uniform8d(w)) / log1p(-p));
}
#else
float8 sample(uint8 w, float p, float unused) {
  return ceil(log(foo_open_uniform8(w)) / log1p(-p));
}
#endif
