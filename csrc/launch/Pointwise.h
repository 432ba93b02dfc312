// The elementwise launcher: runs the kernels_cl/ program `key` (an op file including pointwise.clh)
// over a built TensorIterator with one output and up to three inputs, choosing the contiguous or
// strided variant per call; CPU scalar operands and the op's scalar parameters go by value.
#pragma once

#include <c10/core/Scalar.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace at {
class Tensor;
struct TensorIteratorBase;
}  // namespace at

namespace foo_cl::launch {

// `params` become the kernel's s0, s1 and s2 in the compute type (at most three). The compute type
// is the iterator's common dtype (float for half and bfloat16) unless `compute` names another.
void launch_pointwise(at::TensorIteratorBase& iter, const std::string& key,
                      std::initializer_list<c10::Scalar> params = {},
                      c10::ScalarType compute = c10::ScalarType::Undefined);

// An input of a foreach op: a tensor per list entry, or (when `tensors` is empty) a value per entry,
// passed by value as a CPU scalar operand is.
struct ListInput {
  c10::ArrayRef<at::Tensor> tensors;
  std::vector<c10::Scalar> values;
};

// Whether launch_pointwise_lists takes these inputs and s0 values: tensor lists of one length,
// every tensor contiguous, of one floating dtype on one foo device and sized as the first list's;
// real values.
bool can_launch_lists(const std::vector<ListInput>& inputs, const std::vector<c10::Scalar>& params);

// Whether tensors of different entries of the lists share memory, or tensors of one entry partly:
// then an in-place foreach op, whose entries run at once, must run them one at a time.
bool lists_overlap(const std::vector<ListInput>& inputs);

// The foreach ops' launcher: outs[i] = OP(inputs[0][i], ...) with s0 = params[i], over several
// tensors per launch (the kernel's pointwise_lists variant). `outs` are contiguous and of the
// inputs' dtype and sizes (or the first input's tensors themselves); can_launch_lists(inputs) holds.
void launch_pointwise_lists(const std::string& key, c10::ArrayRef<at::Tensor> outs,
                            const std::vector<ListInput>& inputs, const std::vector<c10::Scalar>& params);

}  // namespace foo_cl::launch
