// reduce/prod: the product.
#define REDUCE_VECTOR_SAFE
#define ACC_T ct
#define INIT ((ct)1)
#define REDUCE(acc, x, idx) ((acc) * (x))
#define COMBINE(a, b) ((a) * (b))
#define PROJECT(acc) (acc)
#include "reduce/reduce.clh"
