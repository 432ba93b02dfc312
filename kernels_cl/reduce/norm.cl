// reduce/norm: vector norms; NORM selects p: 2, 1, INF (max |x|), NEG_INF (min |x|), ZERO
// (count of nonzeros) or, otherwise, any p = s0 (s1 = 1 / p).
#if defined(NORM_2)
#define REDUCE_VECTOR_SAFE
#define INIT ((ct)0)
#define REDUCE(acc, x, idx) ((acc) + (x) * (x))
#define COMBINE(a, b) ((a) + (b))
#define PROJECT(acc) sqrt(acc)
#elif defined(NORM_1)
#define REDUCE_VECTOR_SAFE
#define INIT ((ct)0)
#define REDUCE(acc, x, idx) ((acc) + fabs(x))
#define COMBINE(a, b) ((a) + (b))
#define PROJECT(acc) (acc)
#elif defined(NORM_INF)
#define INIT ((ct)0)
#define REDUCE(acc, x, idx) FOO_MAXIMUM(acc, fabs(x))
#define COMBINE(a, b) FOO_MAXIMUM(a, b)
#define PROJECT(acc) (acc)
#elif defined(NORM_NEG_INF)
#define INIT ((ct)INFINITY)
#define REDUCE(acc, x, idx) FOO_MINIMUM(acc, fabs(x))
#define COMBINE(a, b) FOO_MINIMUM(a, b)
#define PROJECT(acc) (acc)
#elif defined(NORM_ZERO)
#define INIT ((ct)0)
#define REDUCE(acc, x, idx) ((acc) + (ct)((x) != 0))
#define COMBINE(a, b) ((a) + (b))
#define PROJECT(acc) (acc)
#else
#define INIT ((ct)0)
#define REDUCE(acc, x, idx) ((acc) + pow(fabs(x), s0))
#define COMBINE(a, b) ((a) + (b))
#define PROJECT(acc) pow(acc, s1)
#endif
#define ACC_T ct
#include "reduce/reduce.clh"
