// Elementwise operators with several tensor operands or optional bounds: clamp and its halves,
// where, addcmul, addcdiv and masked_fill (kernels_cl/ternary/ and the clamp programs).
#include "aten/Pointwise.h"

#include <ATen/native/TypeProperties.h>
#include <ATen/ops/addcdiv_meta.h>
#include <ATen/ops/addcmul_meta.h>
#include <ATen/ops/clamp_max_meta.h>
#include <ATen/ops/clamp_meta.h>
#include <ATen/ops/clamp_min_meta.h>
#include <ATen/ops/empty.h>

namespace foo_cl::aten {
namespace {

using TensorRef = const at::Tensor&;
using ScalarRef = const at::Scalar&;
using OptionalScalar = const std::optional<at::Scalar>&;
using OptionalTensor = const std::optional<at::Tensor>&;

bool given(OptionalTensor t) {
  return t && t->defined();
}

void clamp_kernel(at::meta::structured_clamp& iter, OptionalScalar min, OptionalScalar max) {
  if (min && max) {
    launch::launch_pointwise(iter, "unary/clamp", {*min, *max});
  } else {
    launch::launch_pointwise(iter, min ? "unary/clamp_min" : "unary/clamp_max", {min ? *min : *max});
  }
}

// The meta function adds only the bounds that are given as inputs after self.
void clamp_tensor_kernel(at::meta::structured_clamp_Tensor& iter, OptionalTensor min, OptionalTensor max) {
  if (given(min) && given(max)) {
    launch::launch_pointwise(iter, "ternary/clamp");
  } else {
    launch::launch_pointwise(iter, given(min) ? "binary/clamp_min" : "binary/clamp_max");
  }
}

at::Tensor& where_out(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other,
                      at::Tensor& out) {
  TORCH_CHECK(condition.scalar_type() == at::kBool || condition.scalar_type() == at::kByte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              condition.scalar_type());
  const auto result_type = at::native::result_type(self, other);
  // 0-dim CPU operands (a condition such as torch.tensor(True)) go to the device, as on CUDA. The
  // operands are locals: the iterator borrows them.
  auto on_device = [&](const at::Tensor& t, c10::ScalarType dtype) {
    if (t.device() != out.device() && t.device().is_cpu() && t.dim() == 0) return t.to(out.device(), dtype);
    return t.scalar_type() != dtype ? t.to(dtype) : t;  // (a CPU operand with dims stays there: an error)
  };
  const at::Tensor condition_ = on_device(condition, condition.scalar_type());
  const at::Tensor self_ = on_device(self, result_type), other_ = on_device(other, result_type);
  auto iter = at::TensorIteratorConfig()
                  .check_all_same_dtype(false)
                  .add_output(out)
                  .add_const_input(condition_)
                  .add_const_input(self_)
                  .add_const_input(other_)
                  .build();
  launch::launch_pointwise(iter, "ternary/where", {}, result_type);
  return out;
}

at::Tensor where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  // On the device of an operand that is on foo: the others may be 0-dim CPU tensors.
  const at::Tensor& on = !self.device().is_cpu() ? self : !other.device().is_cpu() ? other : condition;
  at::Tensor out = at::empty({0}, on.options().dtype(at::native::result_type(self, other)));
  return where_out(condition, self, other, out);
}

at::Tensor& masked_fill_(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self)
                  .add_const_input(self)
                  .add_const_input(mask)
                  .build();
  launch::launch_pointwise(iter, "binary/masked_fill", {value}, self.scalar_type());
  return self;
}

at::Tensor& masked_fill_tensor_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_(self, mask, value.item());
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_structured<at::meta::structured_clamp, OptionalScalar, OptionalScalar>(m, "clamp", "clamp_", "clamp.out",
                                                                                  clamp_kernel);
  register_structured<at::meta::structured_clamp_Tensor, OptionalTensor, OptionalTensor>(
      m, "clamp.Tensor", "clamp_.Tensor", "clamp.Tensor_out", clamp_tensor_kernel);
  register_structured<at::meta::structured_clamp_min, ScalarRef>(
      m, "clamp_min", "clamp_min_", "clamp_min.out", [](at::meta::structured_clamp_min& iter, ScalarRef min) {
        launch::launch_pointwise(iter, "unary/clamp_min", {min});
      });
  register_structured<at::meta::structured_clamp_max, ScalarRef>(
      m, "clamp_max", "clamp_max_", "clamp_max.out", [](at::meta::structured_clamp_max& iter, ScalarRef max) {
        launch::launch_pointwise(iter, "unary/clamp_max", {max});
      });
  register_structured<at::meta::structured_clamp_min_Tensor, TensorRef>(
      m, "clamp_min.Tensor", "clamp_min_.Tensor", "clamp_min.Tensor_out",
      pointwise<at::meta::structured_clamp_min_Tensor, TensorRef>("binary/clamp_min"));
  register_structured<at::meta::structured_clamp_max_Tensor, TensorRef>(
      m, "clamp_max.Tensor", "clamp_max_.Tensor", "clamp_max.Tensor_out",
      pointwise<at::meta::structured_clamp_max_Tensor, TensorRef>("binary/clamp_max"));

  m.impl("where.self", where);
  m.impl("where.self_out", where_out);
  using Addcmul = at::meta::structured_addcmul;
  register_structured<Addcmul, TensorRef, TensorRef, ScalarRef>(
      m, "addcmul", "addcmul_", "addcmul.out",
      [](Addcmul& iter, TensorRef, TensorRef, ScalarRef value) {
        launch::launch_pointwise(iter, "ternary/addcmul", {value});
      });
  using Addcdiv = at::meta::structured_addcdiv;
  register_structured<Addcdiv, TensorRef, TensorRef, ScalarRef>(
      m, "addcdiv", "addcdiv_", "addcdiv.out",
      [](Addcdiv& iter, TensorRef, TensorRef, ScalarRef value) {
        launch::launch_pointwise(iter, "ternary/addcdiv", {value});
      });
  m.impl("masked_fill_.Scalar", masked_fill_);
  m.impl("masked_fill_.Tensor", masked_fill_tensor_);
}

}  // namespace foo_cl::aten
