// norm/normalize: out = (x - mean[g]) * rstd[g] * weight + bias over blocks of `inner` contiguous
// elements, block b = j * groups + g belonging to group g (the layout of norm/moments.cl). The
// affine parameters are per element of the block (layer_norm: PER_ELEMENT) or per group
// (batch_norm), in ACC. Work-items share the elements (foo_block_walk of norm/norm.clh). Build options:
// DT, ACC (dtype names), INDEX_T, PER_ELEMENT, WITH_WEIGHT, WITH_BIAS.
#include "common.clh"
#include "norm/norm.clh"

typedef FOO_STORAGE(DT) st;

__kernel void normalize_blocks(__global const char* input, ulong input_offset, __global const char* mean, ulong mean_offset,
                        __global const char* rstd, ulong rstd_offset, __global const char* weight, ulong weight_offset,
                        __global const char* bias, ulong bias_offset, __global char* output, ulong output_offset,
                        ulong groups, ulong inner, INDEX_T n) {
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global const acc_t* m = FOO_PTR(const acc_t, mean, mean_offset);
  __global const acc_t* r = FOO_PTR(const acc_t, rstd, rstd_offset);
  __global const acc_t* w = FOO_PTR(const acc_t, weight, weight_offset);
  __global const acc_t* b = FOO_PTR(const acc_t, bias, bias_offset);
  __global st* out = FOO_PTR(st, output, output_offset);
  foo_block_walk at;
  for (foo_block_walk_begin(&at, n, (INDEX_T)inner, (INDEX_T)groups); at.e < at.end; foo_block_walk_next(&at)) {
    const acc_t mu = m[at.g], scale = r[at.g];
    __global const st* xb = x + at.block * (INDEX_T)inner;
    __global st* ob = out + at.block * (INDEX_T)inner;
    INDEX_T i = at.i;
#if FOO_NORM_VECTORS
    for (; i + 8 <= at.i_end; i += 8) {
      vstore8(foo_affine8((vload8(0, xb + i) - mu) * scale, w, b, FOO_PARAM(at.g, i)), 0, ob + i);
    }
#endif
    for (; i < at.i_end; ++i) {
      const acc_t v = ((acc_t)FOO_CONVERT(DT, FOO_LOAD(DT, xb, i)) - mu) * scale;
      FOO_STORE(DT, ob, i, foo_affine(v, w, b, FOO_PARAM(at.g, i)));
    }
  }
}
