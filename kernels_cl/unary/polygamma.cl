// unary/polygamma: the n-th derivative of digamma, n = s0 (an integer >= 0), as PyTorch's polygamma:
// digamma, trigamma, then calc_polygamma's (-1)^(n+1) n! zeta(n + 1, a).
#define NIN 1
#include "compute.clh"
#include "special.clh"

// PyTorch's trigamma: the reflection below 1/2, six steps of the recurrence, then the asymptotic series.
inline ct foo_trigamma(ct x) {
  ct sign = 1, result = 0;
  if (x < (ct)0.5) {
    sign = -1;
    const ct sin_pi_x = sin(FOO_PI * x);
    result -= FOO_PI * FOO_PI / (sin_pi_x * sin_pi_x);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const ct ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) + ixx * ((ct)1 / 6 - ixx * ((ct)1 / 30 - ixx * ((ct)1 / 42)))) / x;
  return sign * result;
}

// calc_polygamma, for n >= 2.
inline ct foo_polygamma(ct n, ct x) {
  return (fmod(n, 2) != 0 ? (ct)1 : (ct)-1) * exp(lgamma(n + 1)) * foo_zeta(n + 1, x);
}

#define OP(a) (s0 == 0 ? foo_digamma(a) : s0 == 1 ? foo_trigamma(a) : foo_polygamma(s0, a))
#include "pointwise.clh"
