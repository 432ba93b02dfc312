// random/bernoulli: 1 with probability p (U[0, 1) < p), else 0; p a scalar (s0) or, with
// WITH_INPUT, each element's own.
#define RESULT_T uchar
#include "random/random.clh"

#ifdef WITH_INPUT
uchar8 sample(uint8 w, pt8 p, pt unused0, pt unused1) {
  return convert_uchar8(foo_uniform8(w, 24) < convert_float8(p)) & (uchar8)(1);
}
#else
uchar8 sample(uint8 w, pt p, pt unused) {
  return convert_uchar8(foo_uniform8(w, 24) < (float)p) & (uchar8)(1);
}
#endif
