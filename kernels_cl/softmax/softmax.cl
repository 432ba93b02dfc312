// softmax/softmax: softmax and log_softmax (LOG) along one dim of contiguous tensors viewed as
// [outer, D, inner], forward and backward. A work-group handles one row of D elements: the max,
// the sum of exponentials, then the outputs, each pass split over its work-items and combined in
// local memory; with VEC, softmax stores the exponentials and scales them in place. Build options:
// IN0 (input or gradient), OUT, COMPUTE (float for half/bfloat16), LOCAL_SIZE, LOG, and VEC when
// rows are contiguous (inner == 1) and every tensor is of the compute dtype, for vector math on
// CPU devices (LOCAL_SIZE 1).
#include "compute.clh"

typedef FOO_STORAGE(IN0) in_t;
typedef FOO_STORAGE(OUT) out_t;

#define FOO_GROUP_COMBINE(value, op)                                     \
  do {                                                                   \
    scratch[lid] = value;                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                        \
    for (uint step = L / 2; step > 0; step >>= 1) {                      \
      if (lid < step) scratch[lid] = op(scratch[lid], scratch[lid + step]); \
      barrier(CLK_LOCAL_MEM_FENCE);                                      \
    }                                                                    \
    value = scratch[0];                                                  \
    barrier(CLK_LOCAL_MEM_FENCE);                                        \
  } while (0)

#define FOO_ADD(a, b) ((a) + (b))

#ifdef VEC
#define VTYPE FOO_CAT(FOO_COMPUTE(COMPUTE), VEC)
#define VLOAD(p, i) FOO_CAT(vload, VEC)(0, (p) + (i))
#define VSTORE(v, p, i) FOO_CAT(vstore, VEC)(v, 0, (p) + (i))
#endif

__kernel void softmax_forward(__global char* out, ulong out_offset, __global const char* in, ulong in_offset,
                              ulong outer, ulong D, ulong inner) {
  __local ct scratch[LOCAL_SIZE];
  const uint L = get_local_size(0), lid = get_local_id(0);
  __global const in_t* x = FOO_PTR(const in_t, in, in_offset);
  __global out_t* y = FOO_PTR(out_t, out, out_offset);
  FOO_GROUP_LOOP(row, outer * inner) {
    const ulong base = (row / inner) * D * inner + row % inner;
    ulong d = lid;
    ct m = -INFINITY;
#ifdef VEC
    // Four running maxima: one would bind the pass to the latency of fmax.
    VTYPE vm = -INFINITY, vm1 = -INFINITY, vm2 = -INFINITY, vm3 = -INFINITY;
    for (; d + 4 * VEC <= D; d += 4 * VEC) {
      vm = fmax(vm, VLOAD(x, base + d));
      vm1 = fmax(vm1, VLOAD(x, base + d + VEC));
      vm2 = fmax(vm2, VLOAD(x, base + d + 2 * VEC));
      vm3 = fmax(vm3, VLOAD(x, base + d + 3 * VEC));
    }
    for (; d + VEC <= D; d += VEC) vm = fmax(vm, VLOAD(x, base + d));
    vm = fmax(fmax(vm, vm1), fmax(vm2, vm3));
    for (int k = 0; k < VEC; ++k) m = fmax(m, ((ct*)&vm)[k]);
#endif
    for (; d < D; d += L) m = fmax(m, FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, x, base + d * inner)));
    FOO_GROUP_COMBINE(m, fmax);

    ct s = 0;
    d = lid;
#ifdef VEC
    VTYPE vs = 0;
    for (; d + VEC <= D; d += VEC) {
      const VTYPE e = exp(VLOAD(x, base + d) - m);
      vs += e;
#ifndef LOG
      VSTORE(e, y, base + d);  // scaled in place below: one exp per element
#endif
    }
    for (int k = 0; k < VEC; ++k) s += ((ct*)&vs)[k];
#endif
    for (; d < D; d += L) s += exp(FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, x, base + d * inner)) - m);
    FOO_GROUP_COMBINE(s, FOO_ADD);

#ifdef LOG
    const ct shift = m + log(s);
#define FOO_SOFTMAX(v) ((v) - shift)
#else
    const ct scale = 1 / s;
#define FOO_SOFTMAX(v) (exp((v) - m) * scale)
#endif
    d = lid;
#ifdef VEC
#ifdef LOG
    for (; d + VEC <= D; d += VEC) VSTORE(FOO_SOFTMAX(VLOAD(x, base + d)), y, base + d);
#else
    for (; d + VEC <= D; d += VEC) VSTORE(VLOAD(y, base + d) * scale, y, base + d);
#endif
#endif
    for (; d < D; d += L) {
      const ct v = FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, x, base + d * inner));
      FOO_STORE(OUT, y, base + d * inner, FOO_CONVERT(OUT, FOO_SOFTMAX(v)));
    }
  }
}

// grad_input from grad_output (IN0) and the forward output (OUT's dtype): softmax:
// y (g - sum(g y)); log_softmax: g - exp(y) sum(g).
__kernel void softmax_backward(__global char* grad_input, ulong grad_input_offset, __global const char* grad,
                               ulong grad_offset, __global const char* output, ulong output_offset, ulong outer,
                               ulong D, ulong inner) {
  __local ct scratch[LOCAL_SIZE];
  const uint L = get_local_size(0), lid = get_local_id(0);
  __global const in_t* g = FOO_PTR(const in_t, grad, grad_offset);
  __global const out_t* y = FOO_PTR(const out_t, output, output_offset);
  __global out_t* gi = FOO_PTR(out_t, grad_input, grad_input_offset);
  FOO_GROUP_LOOP(row, outer * inner) {
    const ulong base = (row / inner) * D * inner + row % inner;
    ct s = 0;
    ulong d = lid;
#ifdef VEC
    // VEC lanes of sums: one running sum bound a row to the latency of its additions (4096 rows of
    // 1024 floats: 2.9 ms, the CPU's 1.1).
    VTYPE vs = 0;
    for (; d + VEC <= D; d += VEC) {
#ifdef LOG
      vs += VLOAD(g, base + d);
#else
      vs += VLOAD(g, base + d) * VLOAD(y, base + d);
#endif
    }
    for (int k = 0; k < VEC; ++k) s += ((ct*)&vs)[k];
#endif
    for (; d < D; d += L) {
      const ulong i = base + d * inner;
#ifdef LOG
      s += FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, g, i));
#else
      s += FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, g, i)) * FOO_CONVERT(COMPUTE, FOO_LOAD(OUT, y, i));
#endif
    }
    FOO_GROUP_COMBINE(s, FOO_ADD);
    d = lid;
#ifdef VEC
#ifdef LOG
    for (; d + VEC <= D; d += VEC) VSTORE(VLOAD(g, base + d) - exp(VLOAD(y, base + d)) * s, gi, base + d);
#else
    for (; d + VEC <= D; d += VEC) VSTORE(VLOAD(y, base + d) * (VLOAD(g, base + d) - s), gi, base + d);
#endif
#endif
    for (; d < D; d += L) {
      const ulong i = base + d * inner;
      const ct gv = FOO_CONVERT(COMPUTE, FOO_LOAD(IN0, g, i)), yv = FOO_CONVERT(COMPUTE, FOO_LOAD(OUT, y, i));
#ifdef LOG
      FOO_STORE(OUT, gi, i, FOO_CONVERT(OUT, gv - exp(yv) * s));
#else
      FOO_STORE(OUT, gi, i, FOO_CONVERT(OUT, yv * (gv - s)));
#endif
    }
  }
}
