// binary/nextafter: the next representable value after a toward b, in the output's own format
// (float16 and bfloat16 compute in float32 but step in their 16-bit formats).
#define NIN 2
#include "compute.clh"

// a and b are values of the 16-bit format; `bits` is a's encoding, stepped by one toward b.
inline uint foo_next_bits(float a, float b, uint bits) {
  return (a < b) == (a > 0) ? bits + 1 : bits - 1;
}

inline float foo_nextafter_bfloat16(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return b;
  if (a == 0) return copysign(as_float(1u << 16), b);
  return as_float(foo_next_bits(a, b, as_uint(a) >> 16) << 16);
}

inline float foo_nextafter_half(float a, float b) {
  if (isnan(a) || isnan(b)) return a + b;
  if (a == b) return b;
  if (a == 0) return copysign(0x1p-24f, b);
  ushort bits;
  vstore_half(a, 0, (__private half*)&bits);
  const ushort next = (ushort)foo_next_bits(a, b, bits);
  return vload_half(0, (__private const half*)&next);
}

#define NEXTAFTER_float nextafter
#define NEXTAFTER_double nextafter
#define NEXTAFTER_half foo_nextafter_half
#define NEXTAFTER_bfloat16 foo_nextafter_bfloat16
#define OP(a, b) FOO_CAT(NEXTAFTER_, OUT)(a, b)
#include "pointwise.clh"
