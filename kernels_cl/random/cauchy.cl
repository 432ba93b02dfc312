// random/cauchy: median + sigma * tan(pi * (U - 1/2)) with U in (0, 1).
#include "random/random.clh"

#if BITS == 64
double8 sample(ulong8 w, double median, double sigma) {
  return median + sigma * tan(M_PI * (foo_open_uniform8d(w) - 0.5));
}
#else
float8 sample(uint8 w, float median, float sigma) {
  return median + sigma * tan(M_PI_F * (foo_open_uniform8(w) - 0.5f));
}
#endif
