// random/log_normal: exp(mean + std * N(0, 1)).
#define PAIRED
#include "random/random.clh"

#if BITS == 64
void sample_pair(ulong8 a, ulong8 b, double mean, double std, double8* first, double8* second) {
  foo_normal8d(foo_open_uniform8d(a), foo_uniform8d(b), first, second);
#else
void sample_pair(uint8 a, uint8 b, float mean, float std, float8* first, float8* second) {
  foo_normal8(foo_open_uniform8(a), foo_uniform8(b, 24), first, second);
#endif
  *first = exp(mean + std * *first);
  *second = exp(mean + std * *second);
}
