// reduce/amin: the smallest element, NaN if any is NaN.
#define REDUCE_VECTOR_SAFE
#define REDUCE_EXACT
#define ACC_T ct
#define INIT ((ct)FOO_CAT(HIGHEST_, COMPUTE))
#define REDUCE(acc, x, idx) FOO_MINIMUM(acc, x)
#define COMBINE(a, b) FOO_MINIMUM(a, b)
#define PROJECT(acc) (acc)
#include "reduce/reduce.clh"
