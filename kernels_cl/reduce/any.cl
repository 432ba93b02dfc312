// reduce/any: some element is nonzero (uint8 or bool out).
#define ACC_T uchar
#define REDUCE_EXACT
#define INIT ((uchar)0)
#define REDUCE(acc, x, idx) ((uchar)((acc) || (x) != 0))
#define COMBINE(a, b) ((uchar)((a) || (b)))
#define PROJECT(acc) (acc)
#include "reduce/reduce.clh"
