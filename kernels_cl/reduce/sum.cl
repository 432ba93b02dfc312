// reduce/sum: the sum (mean: times s0 = 1 / count).
#define REDUCE_VECTOR_SAFE
#define ACC_T ct
#define INIT ((ct)0)
#define REDUCE(acc, x, idx) ((acc) + (x))
#define COMBINE(a, b) ((a) + (b))
#ifdef MEAN
#define PROJECT(acc) ((acc) * s0)
#else
#define PROJECT(acc) (acc)
#endif
#include "reduce/reduce.clh"
