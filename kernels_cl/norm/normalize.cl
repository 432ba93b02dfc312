// norm/normalize: out = (x - mean[g]) * rstd[g] * weight + bias over blocks of `inner` contiguous
// elements, block b = j * groups + g belonging to group g (the layout of norm/moments.cl). The
// affine parameters are per element of the block (layer_norm: PER_ELEMENT) or per group
// (batch_norm), in ACC. A work-item normalises one block. Build options: DT, ACC (dtype names), INDEX_T,
// PER_ELEMENT, WITH_WEIGHT, WITH_BIAS.
#include "common.clh"

typedef FOO_STORAGE(DT) st;
typedef FOO_COMPUTE(ACC) acc_t;

__kernel void normalize_blocks(__global const char* input, ulong input_offset, __global const char* mean, ulong mean_offset,
                        __global const char* rstd, ulong rstd_offset, __global const char* weight, ulong weight_offset,
                        __global const char* bias, ulong bias_offset, __global char* output, ulong output_offset,
                        ulong groups, ulong inner, INDEX_T blocks) {
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const acc_t* m = FOO_PTR(const acc_t, mean, mean_offset);
  __global const acc_t* r = FOO_PTR(const acc_t, rstd, rstd_offset);
  __global const acc_t* w = FOO_PTR(const acc_t, weight, weight_offset);
  __global const acc_t* b = FOO_PTR(const acc_t, bias, bias_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  FOO_GRID_LOOP(block, blocks) {
    const ulong g = block % groups, base = block * inner;
    const acc_t mu = m[g], scale = r[g];
#ifndef PER_ELEMENT
#ifdef WITH_WEIGHT
    const acc_t gw = w[g];
#else
    const acc_t gw = 1;
#endif
#ifdef WITH_BIAS
    const acc_t gb = b[g];
#else
    const acc_t gb = 0;
#endif
#endif
    for (ulong i = 0; i < inner; ++i) {
      acc_t v = ((acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, x, base + i)) - mu) * scale;
#ifdef PER_ELEMENT
#ifdef WITH_WEIGHT
      v *= w[i];
#endif
#ifdef WITH_BIAS
      v += b[i];
#endif
#else
      v = v * gw + gb;
#endif
      FOO_STORE(DT, out, base + i, v);
    }
  }
}
