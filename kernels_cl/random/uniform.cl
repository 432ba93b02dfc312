// random/uniform: from + (to - from) * U[0, 1), U with as many bits as the dtype's significand.
#include "random/random.clh"

#if BITS == 64
double8 sample(ulong8 w, double from, double to) {
  return from + (to - from) * foo_uniform8d(w);
}
#else
float8 sample(uint8 w, float from, float to) {
  return from + (to - from) * foo_uniform8(w, FOO_DIGITS(OUT));
}
#endif
