// The foreach ops torch.optim's default (foreach) steps and grad-scaling call: add, sub, mul, div,
// lerp, addcmul, addcdiv, sqrt and neg over tensor lists, in place and not. Lists of contiguous
// tensors of one floating dtype on one device take one launch per 16 tensors, or per as many as the
// device's argument size takes (pointwise_lists, as CUDA's multi-tensor apply); any other list takes
// ATen's loop of one op per tensor.
#include "launch/Pointwise.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/_foreach_add_native.h>
#include <ATen/ops/_foreach_addcdiv_native.h>
#include <ATen/ops/_foreach_addcmul_native.h>
#include <ATen/ops/_foreach_div_native.h>
#include <ATen/ops/_foreach_lerp_native.h>
#include <ATen/ops/_foreach_mul_native.h>
#include <ATen/ops/_foreach_neg_native.h>
#include <ATen/ops/_foreach_sqrt_native.h>
#include <ATen/ops/_foreach_sub_native.h>
#include <ATen/ops/empty_like.h>
#include <torch/library.h>

#include <utility>
#include <vector>

namespace foo_cl::aten {
namespace {

using at::Scalar;
using at::Tensor;
using at::TensorList;
using Scalars = at::ArrayRef<Scalar>;
using launch::ListInput;

// One launch plan: the kernel, its inputs (the first is the op's self list) and s0 per tensor.
struct Plan {
  const char* key;
  std::vector<ListInput> inputs;
  std::vector<Scalar> s0;
};

std::vector<Scalar> repeat(const Scalar& value, TensorList self) {
  return std::vector<Scalar>(self.size(), value);
}

std::vector<Scalar> negated(Scalars values) {
  std::vector<Scalar> out;
  for (const Scalar& v : values) out.push_back(-v);
  return out;
}

// A binary op on self and, per tensor, a value or a tensor of `other`.
Plan with_values(const char* key, TensorList self, std::vector<Scalar> values, std::vector<Scalar> s0 = {}) {
  return {key, {{self, {}}, {{}, std::move(values)}}, std::move(s0)};
}
Plan with_list(const char* key, TensorList self, TensorList other, std::vector<Scalar> s0 = {}) {
  return {key, {{self, {}}, {other, {}}}, std::move(s0)};
}

// `plan` with s0 = values, one per tensor; with a list of another length, no launch takes it (and
// ATen's loop raises the CPU's error).
Plan with_s0_per_tensor(Plan plan, Scalars values) {
  if (values.size() != plan.inputs[0].tensors.size()) plan.inputs.clear();
  plan.s0 = values.vec();
  return plan;
}

// The plans, one per overload: add and sub are a + s0 * b, mul a * b, div a / b, with b a list or a
// value per tensor; lerp, addcmul and addcdiv take their weight or value as s0.
Plan add_scalar(TensorList self, const Scalar& b) {
  return with_values("binary/add", self, repeat(b, self), repeat(1, self));
}
Plan add_list(TensorList self, TensorList other, const Scalar& alpha) {
  return with_list("binary/add", self, other, repeat(alpha, self));
}
Plan add_scalars(TensorList self, Scalars b) {
  return with_values("binary/add", self, b.vec(), repeat(1, self));
}
Plan sub_scalar(TensorList self, const Scalar& b) {
  return add_scalar(self, -b);
}
Plan sub_list(TensorList self, TensorList other, const Scalar& alpha) {
  return add_list(self, other, -alpha);
}
Plan sub_scalars(TensorList self, Scalars b) {
  return with_values("binary/add", self, negated(b), repeat(1, self));
}
Plan mul_scalar(TensorList self, const Scalar& b) {
  return with_values("binary/mul", self, repeat(b, self));
}
Plan mul_list(TensorList self, TensorList other) {
  return with_list("binary/mul", self, other);
}
Plan mul_scalars(TensorList self, Scalars b) {
  return with_values("binary/mul", self, b.vec());
}
Plan div_scalar(TensorList self, const Scalar& b) {
  return with_values("binary/div", self, repeat(b, self));
}
Plan div_list(TensorList self, TensorList other) {
  return with_list("binary/div", self, other);
}
Plan div_scalars(TensorList self, Scalars b) {
  return with_values("binary/div", self, b.vec());
}
Plan lerp_scalar(TensorList self, TensorList end, const Scalar& weight) {
  return with_list("binary/lerp", self, end, repeat(weight, self));
}
Plan addcmul_scalar(TensorList self, TensorList t1, TensorList t2, const Scalar& value) {
  return {"ternary/addcmul", {{self, {}}, {t1, {}}, {t2, {}}}, repeat(value, self)};
}
Plan addcmul_scalars(TensorList self, TensorList t1, TensorList t2, Scalars values) {
  return with_s0_per_tensor({"ternary/addcmul", {{self, {}}, {t1, {}}, {t2, {}}}, {}}, values);
}
Plan addcdiv_scalar(TensorList self, TensorList t1, TensorList t2, const Scalar& value) {
  return {"ternary/addcdiv", {{self, {}}, {t1, {}}, {t2, {}}}, repeat(value, self)};
}
Plan addcdiv_scalars(TensorList self, TensorList t1, TensorList t2, Scalars values) {
  return with_s0_per_tensor({"ternary/addcdiv", {{self, {}}, {t1, {}}, {t2, {}}}, {}}, values);
}
Plan sqrt(TensorList self) {
  return {"unary/sqrt", {{self, {}}}, {}};
}
Plan neg(TensorList self) {
  return {"unary/neg", {{self, {}}}, {}};
}

// An overload's in-place and out-of-place kernels from its plan and ATen's per-tensor loops
// (`Slow_` and `Slow`, which also raise the errors a list the plan cannot take deserves).
template <auto MakePlan, auto Slow_, auto Slow, typename = decltype(Slow_)>
struct Foreach;

template <auto MakePlan, auto Slow_, auto Slow, typename... Args>
struct Foreach<MakePlan, Slow_, Slow, void (*)(TensorList, Args...)> {
  static void in_place(TensorList self, Args... args) {
    const Plan plan = MakePlan(self, args...);
    // NOTE: a list's tensors run at once: entries that share memory take the loop, as CPU does.
    if (!launch::can_launch_lists(plan.inputs, plan.s0) || launch::lists_overlap(plan.inputs)) {
      return Slow_(self, args...);
    }
    launch::launch_pointwise_lists(plan.key, self, plan.inputs, plan.s0);
  }

  static std::vector<Tensor> out_of_place(TensorList self, Args... args) {
    const Plan plan = MakePlan(self, args...);
    if (!launch::can_launch_lists(plan.inputs, plan.s0)) return Slow(self, args...);
    std::vector<Tensor> outs;
    outs.reserve(self.size());
    for (const Tensor& t : self) outs.push_back(at::empty_like(t));
    launch::launch_pointwise_lists(plan.key, outs, plan.inputs, plan.s0);
    return outs;
  }
};

#define FOO_FOREACH(m, name, overload, plan, slow)                                                      \
  do {                                                                                                   \
    using Op = Foreach<plan, at::native::slow##_, at::native::slow>;                                   \
    m.impl("_foreach_" name "_" overload, Op::in_place);                                                \
    m.impl("_foreach_" name overload, Op::out_of_place);                                                \
  } while (0)

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  FOO_FOREACH(m, "add", ".Scalar", add_scalar, foreach_tensor_add_scalar_kernel_slow);
  FOO_FOREACH(m, "add", ".List", add_list, foreach_tensor_add_list_kernel_slow);
  FOO_FOREACH(m, "add", ".ScalarList", add_scalars, foreach_tensor_add_scalarlist_kernel_slow);
  FOO_FOREACH(m, "sub", ".Scalar", sub_scalar, foreach_tensor_sub_scalar_kernel_slow);
  FOO_FOREACH(m, "sub", ".List", sub_list, foreach_tensor_sub_list_kernel_slow);
  FOO_FOREACH(m, "sub", ".ScalarList", sub_scalars, foreach_tensor_sub_scalarlist_kernel_slow);
  FOO_FOREACH(m, "mul", ".Scalar", mul_scalar, foreach_tensor_mul_scalar_kernel_slow);
  FOO_FOREACH(m, "mul", ".List", mul_list, foreach_tensor_mul_list_kernel_slow);
  FOO_FOREACH(m, "mul", ".ScalarList", mul_scalars, foreach_tensor_mul_scalarlist_kernel_slow);
  FOO_FOREACH(m, "div", ".Scalar", div_scalar, foreach_tensor_div_scalar_kernel_slow);
  FOO_FOREACH(m, "div", ".List", div_list, foreach_tensor_div_list_kernel_slow);
  FOO_FOREACH(m, "div", ".ScalarList", div_scalars, foreach_tensor_div_scalarlist_kernel_slow);
  FOO_FOREACH(m, "lerp", ".Scalar", lerp_scalar, foreach_tensor_lerp_list_kernel_slow);
  FOO_FOREACH(m, "addcmul", ".Scalar", addcmul_scalar, foreach_tensor_addcmul_scalar_slow);
  FOO_FOREACH(m, "addcmul", ".ScalarList", addcmul_scalars, foreach_tensor_addcmul_scalarlist_slow);
  FOO_FOREACH(m, "addcdiv", ".Scalar", addcdiv_scalar, foreach_tensor_addcdiv_scalar_slow);
  FOO_FOREACH(m, "addcdiv", ".ScalarList", addcdiv_scalars, foreach_tensor_addcdiv_scalarlist_slow);
  FOO_FOREACH(m, "sqrt", "", sqrt, foreach_tensor_sqrt_slow);
  FOO_FOREACH(m, "neg", "", neg, foreach_tensor_neg_slow);
}

}  // namespace foo_cl::aten
