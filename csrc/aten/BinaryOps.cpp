// Binary elementwise operators: PyTorch's structured meta functions (type promotion, broadcasting,
// out= checks) followed by the pointwise launcher with kernels_cl/binary/<op>.cl.
#include "aten/Structured.h"
#include "launch/Pointwise.h"

#include <ATen/ops/add_meta.h>
#include <ATen/ops/mul_meta.h>
#include <ATen/ops/sub_meta.h>

namespace foo_cl::aten {
namespace {

using at::TensorIteratorBase;
using Tensor = const at::Tensor&;
using Scalar = const at::Scalar&;

// Structured binary ops whose only scalar is alpha (add, sub).
template <class Meta>
void register_alpha_op(torch::Library& m, const char* name, const char* key, bool negate_alpha) {
  const std::string f = std::string(name) + ".Tensor", i = std::string(name) + "_.Tensor", o = std::string(name) + ".out";
  register_structured<Meta, Tensor, Scalar>(m, f.c_str(), i.c_str(), o.c_str(),
                                            [key = std::string(key), negate_alpha](Meta& iter, Tensor, Scalar alpha) {
                                              launch::launch_pointwise(iter, key, {negate_alpha ? -alpha : alpha});
                                            });
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  register_alpha_op<at::meta::structured_add_Tensor>(m, "add", "binary/add", false);
  register_alpha_op<at::meta::structured_sub_Tensor>(m, "sub", "binary/add", true);
  register_structured<at::meta::structured_mul_Tensor, Tensor>(
      m, "mul.Tensor", "mul_.Tensor", "mul.out",
      [](at::meta::structured_mul_Tensor& iter, Tensor) { launch::launch_pointwise(iter, "binary/mul"); });
}

}  // namespace foo_cl::aten
