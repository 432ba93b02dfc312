// reduce/nansum: the sum of the non-NaN elements (nanmean: times s0 = 1 / their count).
#define REDUCE_VECTOR_SAFE
#define ACC_T ct
#define INIT ((ct)0)
#define REDUCE(acc, x, idx) ((acc) + (FOO_IS_NAN(x) ? (ct)0 : (x)))
#define COMBINE(a, b) ((a) + (b))
#define PROJECT(acc) (acc)
#include "reduce/reduce.clh"
