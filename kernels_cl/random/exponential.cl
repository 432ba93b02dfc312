// random/exponential: -log(U) / lambda with U in (0, 1), so never 0 (multinomial divides by it).
#include "random/random.clh"

#if BITS == 64
double8 sample(ulong8 w, double lambda, double unused) {
  return -log(foo_open_uniform8d(w)) / lambda;
}
#else
float8 sample(uint8 w, float lambda, float unused) {
  return -log(foo_open_uniform8(w)) / lambda;
}
#endif
