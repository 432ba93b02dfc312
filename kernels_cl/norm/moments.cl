// norm/moments: the mean and biased variance of each of G groups of elements, for batch, layer
// and group normalisation. Group g holds `outer` blocks of `inner` contiguous elements, block j at
// element (j * G + g) * inner (layer_norm: one block per row; batch_norm: one block per image and
// channel). Two passes over the group (mean, then squared deviations) keep the variance accurate.
// A work-group of LOCAL_SIZE items takes one group. Build options: DT, ACC (dtype names),
// LOCAL_SIZE.
#include "common.clh"
#include "norm/norm.clh"

typedef FOO_STORAGE(DT) st;

__kernel void moments(__global const char* input, ulong input_offset, __global char* mean, ulong mean_offset,
                      __global char* var, ulong var_offset, ulong groups, ulong outer, ulong inner) {
  __global const st* x = FOO_PTR(const st, input, input_offset);
  __global acc_t* m = FOO_PTR(acc_t, mean, mean_offset);
  __global acc_t* v = FOO_PTR(acc_t, var, var_offset);
  __local acc_t scratch[LOCAL_SIZE];
  const uint lid = get_local_id(0);
  const acc_t count = (acc_t)(outer * inner);
  FOO_GROUP_LOOP(g, groups) {
    foo_sum sum = FOO_SUM_ZERO;
    for (ulong j = 0; j < outer; ++j) {
      __global const st* block = x + (j * groups + g) * inner;
      ulong i = lid;
      for (; i + 7 * LOCAL_SIZE < inner; i += 8 * LOCAL_SIZE) foo_sum_add8(&sum, FOO_LOAD8(block, i));
      for (; i < inner; i += LOCAL_SIZE) foo_sum_add(&sum, FOO_LOAD_ACC(block, i));
    }
    const acc_t mu = foo_group_sum(scratch, foo_sum_value(sum)) / count;
    foo_sum squares = FOO_SUM_ZERO;
    for (ulong j = 0; j < outer; ++j) {
      __global const st* block = x + (j * groups + g) * inner;
      ulong i = lid;
      for (; i + 7 * LOCAL_SIZE < inner; i += 8 * LOCAL_SIZE) {
        const acc8_t d = FOO_LOAD8(block, i) - mu;
        foo_sum_add8(&squares, d * d);
      }
      for (; i < inner; i += LOCAL_SIZE) {
        const acc_t d = FOO_LOAD_ACC(block, i) - mu;
        foo_sum_add(&squares, d * d);
      }
    }
    const acc_t variance = foo_group_sum(scratch, foo_sum_value(squares)) / count;
    if (lid == 0) {
      m[g] = mu;
      v[g] = variance;
    }
  }
}
