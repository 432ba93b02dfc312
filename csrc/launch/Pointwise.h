// The elementwise launcher: runs the kernels_cl/ program `key` (an op file including pointwise.clh)
// over a built TensorIterator with one output and up to three inputs, choosing the contiguous or
// strided variant per call; CPU scalar operands and the op's scalar parameters go by value.
#pragma once

#include <c10/core/Scalar.h>

#include <initializer_list>
#include <string>

namespace at {
struct TensorIteratorBase;
}

namespace foo_cl::launch {

// `params` become the kernel's s0, s1 and s2 in the compute type (at most three). The compute type
// is the iterator's common dtype (float for half and bfloat16) unless `compute` names another.
void launch_pointwise(at::TensorIteratorBase& iter, const std::string& key,
                      std::initializer_list<c10::Scalar> params = {},
                      c10::ScalarType compute = c10::ScalarType::Undefined);

}  // namespace foo_cl::launch
