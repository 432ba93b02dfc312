// reduce/argmax: the largest element and its first index, NaN counting as largest (as CPU).
// WITH_VALUES writes the value and the index (max.dim); otherwise only the index (argmax). Floating
// inputs (VEC, set by the host) take vector lanes along contiguous runs.
#include "compute.clh"

typedef struct {
  ct value;
  long index;
} foo_arg;

// Whether (a, ai) wins over (b, bi) for argmax: NaN first, then larger, then earlier.
inline bool foo_arg_wins(ct a, long ai, ct b, long bi) {
  if (FOO_IS_NAN(a) || FOO_IS_NAN(b)) return FOO_IS_NAN(a) && (!FOO_IS_NAN(b) || ai < bi);
#ifdef ARGMIN
  return a < b || (a == b && ai < bi);
#else
  return a > b || (a == b && ai < bi);
#endif
}

inline foo_arg foo_arg_combine(foo_arg a, foo_arg b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  return foo_arg_wins(a.value, a.index, b.value, b.index) ? a : b;
}

// Whether lanes of x take the place of best (vectors, as the lanes of reduce.clh's REDUCE_ARG_LANES).
#ifdef ARGMIN
#define FOO_ARG_TAKES(x, best) (((x) < (best)) | (isnan(x) & ~isnan(best)))
#else
#define FOO_ARG_TAKES(x, best) (((x) > (best)) | (isnan(x) & ~isnan(best)))
#endif

#define REDUCE_EXACT
#define REDUCE_ARG_LANES
#define ACC_T foo_arg
#define INIT ((foo_arg){0, -1})
#define REDUCE(acc, x, idx) foo_arg_combine(acc, (foo_arg){x, (long)(idx)})
#define COMBINE(a, b) foo_arg_combine(a, b)
#ifdef WITH_VALUES
#define PROJECT(acc) ((acc).value)
#define PROJECT_INDEX(acc) ((acc).index)
#else
#define PROJECT(acc) ((acc).index)
#endif
#include "reduce/reduce.clh"
