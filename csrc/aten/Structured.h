// Runs PyTorch's structured operators on foo: PyTorch's own meta function (shape, type promotion,
// broadcasting, out= checks; for pointwise ops a built TensorIterator) followed by a foo kernel.
// These wrappers are what PyTorch's codegen emits for CPU and CUDA (functional, in-place and out=
// variants, with proxy outputs when the out tensor's strides cannot be used).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/OptionalRef.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <torch/library.h>

#include <array>
#include <functional>
#include <optional>
#include <type_traits>

namespace foo_cl::aten {

namespace detail {

inline at::Tensor create_out(c10::IntArrayRef sizes, c10::IntArrayRef strides, const at::TensorOptions& options) {
  return strides.empty() ? at::empty(sizes, options) : at::empty_strided(sizes, strides, options);
}

inline void resize_out(const at::Tensor& out, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                       const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == out.dtype(), "Expected out tensor to have dtype ", options.dtype(), ", but got ",
              out.dtype(), " instead");
  TORCH_CHECK(options.device() == out.device(), "Expected out tensor to have device ", options.device(), ", but got ",
              out.device(), " instead");
  // Only restride when the out tensor was resized: its existing strides are otherwise kept.
  if (at::native::resize_output(out, sizes)) {
    if (!strides.empty()) {
      out.as_strided_(sizes, strides);
    } else if (options.memory_format_opt().has_value()) {
      out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
    }
  }
}

inline void check_inplace(const at::Tensor& self, c10::IntArrayRef sizes, const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == self.dtype(), "Bad in-place call: input tensor dtype ", self.dtype(),
              " and output tensor dtype ", options.dtype(), " should match");
  TORCH_CHECK(options.device() == self.device(), "Bad in-place call: input tensor device ", self.device(),
              " and output tensor device ", options.device(), " should match");
  TORCH_CHECK(sizes == self.sizes(), "Bad in-place call: input tensor size ", self.sizes(), " and output tensor size ",
              sizes, " should match");
}

inline std::optional<at::Tensor> maybe_create_proxy(const at::Tensor& out, c10::IntArrayRef sizes,
                                                    c10::IntArrayRef strides, const at::TensorOptions& options) {
  if (out.strides() != strides) return at::empty_strided(sizes, strides, options);
  return std::nullopt;
}

// The operator allocates its output.
template <class Meta>
struct FunctionalOp final : Meta {
  void set_output_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                          at::TensorOptions options) override {
    output = create_out(sizes, strides, options);
    Meta::set_output_raw_strided(i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                              at::TensorOptions options) override {
    output = create_out(sizes, strides, options);
    Meta::set_output_raw_strided(i, sizes, strides, options);
  }
  const at::Tensor& maybe_get_output(int64_t) override { return output; }
  at::Tensor output;
};

// The operator writes into a given tensor: `self` (in-place) or `out`, through a proxy when needed.
template <class Meta, bool Inplace>
struct GivenOutputOp final : Meta {
  explicit GivenOutputOp(const at::Tensor& out) : out(out) {}
  void set_output_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                          at::TensorOptions options) override {
    prepare(sizes, strides, options);
    proxy = maybe_create_proxy(out, sizes, strides, options);
    Meta::set_output_raw_strided(i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                              at::TensorOptions options) override {
    prepare(sizes, strides, options);
    Meta::set_output_raw_strided(i, sizes, strides, options);
  }
  const at::Tensor& maybe_get_output(int64_t) override { return proxy ? *proxy : out; }
  void finish() {
    if (proxy) out.copy_(*proxy);
  }
  void prepare(c10::IntArrayRef sizes, c10::IntArrayRef strides, const at::TensorOptions& options) {
    if constexpr (Inplace) {
      check_inplace(out, sizes, options);
    } else {
      resize_out(out, sizes, strides, options);
    }
  }
  const at::Tensor& out;
  std::optional<at::Tensor> proxy;
};

// Optional arguments reach meta functions as references, as in PyTorch's generated wrappers.
template <class T>
const T& meta_arg(const T& v) {
  return v;
}
inline at::OptionalScalarRef meta_arg(const std::optional<at::Scalar>& s) {
  return s ? at::OptionalScalarRef(&*s) : at::OptionalScalarRef();
}
inline at::OptionalTensorRef meta_arg(const std::optional<at::Tensor>& t) {
  return t && t->defined() ? at::OptionalTensorRef(*t) : at::OptionalTensorRef();
}

}  // namespace detail

// The foo kernel of a structured operator: gets the built meta object (a TensorIteratorBase for
// pointwise operators) and the operator's arguments after `self`.
template <class Meta, class... Rest>
using StructuredKernel = std::function<void(Meta&, Rest...)>;

// Registers the functional, in-place and out= variants of a structured operator whose first
// argument is `self`, e.g. ("add.Tensor", "add_.Tensor", "add.out"); pass nullptr to skip a variant.
template <class Meta, class... Rest>
void register_structured(torch::Library& m, const char* functional, const char* inplace, const char* out,
                         std::type_identity_t<StructuredKernel<Meta, Rest...>> kernel) {
  if (functional) {
    m.impl(functional, [kernel](const at::Tensor& self, Rest... rest) -> at::Tensor {
      detail::FunctionalOp<Meta> op;
      op.meta(self, detail::meta_arg(rest)...);
      kernel(op, rest...);
      return std::move(op.output);
    });
  }
  if (inplace) {
    m.impl(inplace, [kernel](at::Tensor& self, Rest... rest) -> at::Tensor& {
      detail::GivenOutputOp<Meta, true> op(self);
      op.meta(self, detail::meta_arg(rest)...);
      kernel(op, rest...);
      op.finish();
      return self;
    });
  }
  if (out) {
    m.impl(out, [kernel](const at::Tensor& self, Rest... rest, at::Tensor& result) -> at::Tensor& {
      detail::GivenOutputOp<Meta, false> op(result);
      op.meta(self, detail::meta_arg(rest)...);
      kernel(op, rest...);
      op.finish();
      return result;
    });
  }
}

}  // namespace foo_cl::aten
