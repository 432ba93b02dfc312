// reduce/amax: the largest element, NaN if any is NaN.
#define REDUCE_VECTOR_SAFE
#define REDUCE_EXACT
#define ACC_T ct
#define INIT ((ct)FOO_CAT(LOWEST_, COMPUTE))
#define REDUCE(acc, x, idx) FOO_MAXIMUM(acc, x)
#define COMBINE(a, b) FOO_MAXIMUM(a, b)
#define PROJECT(acc) (acc)
#include "reduce/reduce.clh"
