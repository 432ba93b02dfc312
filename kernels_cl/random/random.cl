// random/random: integers base + (bits % range) from 32 or 64 random bits (BITS, chosen by the range
// as CPU PyTorch does), or every 64-bit value when range is 0; then converted to the output dtype.
#define PARAM_T ulong
#define RESULT_T long
#include "random/random.clh"

long8 sample(word8 w, ulong range, ulong base) {
  const ulong8 bits = convert_ulong8(w);
  return as_long8(range == 0 ? bits : bits % range + base);
}
