// reduce/var: variance by Welford's algorithm, with Chan's formula to combine partial results;
// s0 is the correction (1: unbiased); STD takes the square root.
#include "compute.clh"

typedef struct {
  ct mean;
  ct m2;
  ct n;
} foo_welford;

inline foo_welford foo_welford_add(foo_welford a, ct x) {
  a.n += 1;
  const ct delta = x - a.mean;
  a.mean += delta * (1 / a.n);  // the reciprocal waits for the count only, not for the last mean
  a.m2 += delta * (x - a.mean);
  return a;
}

inline foo_welford foo_welford_combine(foo_welford a, foo_welford b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  foo_welford c;
  c.n = a.n + b.n;
  const ct delta = b.mean - a.mean;
  c.mean = a.mean + delta * b.n / c.n;
  c.m2 = a.m2 + b.m2 + delta * delta * a.n * b.n / c.n;
  return c;
}

// As CPU: a non-positive divisor gives inf (or NaN for zero spread), never a negative variance.
inline ct foo_welford_var(foo_welford a, ct correction) {
  return a.m2 / fmax(a.n - correction, (ct)0);
}

#define ACC_T foo_welford
#define INIT ((foo_welford){0, 0, 0})
#define REDUCE(acc, x, idx) foo_welford_add(acc, x)
#define COMBINE(a, b) foo_welford_combine(a, b)
#ifdef STD
#define PROJECT(acc) sqrt(foo_welford_var(acc, s0))
#else
#define PROJECT(acc) foo_welford_var(acc, s0)
#endif
#include "reduce/reduce.clh"
