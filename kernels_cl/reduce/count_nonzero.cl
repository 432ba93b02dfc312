// reduce/count_nonzero: how many elements are nonzero (int64 out).
#define ACC_T long
#define REDUCE_EXACT
#define INIT 0L
#define REDUCE(acc, x, idx) ((acc) + ((x) != 0))
#define COMBINE(a, b) ((a) + (b))
#define PROJECT(acc) (acc)
#include "reduce/reduce.clh"
