// Runs PyTorch's structured operators on foo: PyTorch's own meta function (shape, type promotion,
// broadcasting, out= checks; for pointwise ops a built TensorIterator) followed by a foo kernel.
// These wrappers are what PyTorch's codegen emits for CPU and CUDA (functional, in-place and out=
// variants, with proxy outputs when the out tensor's strides cannot be used). Operators whose foo
// kernels are real-only run complex operands through the CPU fallback.
#pragma once

#include "aten/Fallback.h"
#include "launch/Dtypes.h"

#include <ATen/TensorIterator.h>
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

// Only TensorIterator-based metas track their outputs themselves (MetaBase's own method asserts).
template <class Meta>
void forward_set_output(Meta& meta, int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                        const at::TensorOptions& options) {
  if constexpr (std::is_base_of_v<at::TensorIteratorBase, Meta>) {
    meta.Meta::set_output_raw_strided(i, sizes, strides, options);
  }
}

// The operator allocates its outputs (at most two: values and indices).
template <class Meta>
struct FunctionalOp final : Meta {
  void set_output_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                          at::TensorOptions options) override {
    outputs[i] = create_out(sizes, strides, options);
    forward_set_output<Meta>(*this, i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                              at::TensorOptions options) override {
    outputs[i] = create_out(sizes, strides, options);
    forward_set_output<Meta>(*this, i, sizes, strides, options);
  }
  const at::Tensor& maybe_get_output(int64_t i) override { return outputs[i]; }
  std::array<at::Tensor, 2> outputs;
};

// The operator writes into given tensors: `self` (in-place) or the out= arguments, through proxies
// when their strides cannot be used.
template <class Meta, bool Inplace>
struct GivenOutputOp final : Meta {
  explicit GivenOutputOp(const at::Tensor& out0, const at::Tensor& out1 = at::Tensor()) : outs{&out0, &out1} {}
  void set_output_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                          at::TensorOptions options) override {
    prepare(*outs[i], sizes, strides, options);
    proxies[i] = maybe_create_proxy(*outs[i], sizes, strides, options);
    forward_set_output<Meta>(*this, i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                              at::TensorOptions options) override {
    prepare(*outs[i], sizes, strides, options);
    forward_set_output<Meta>(*this, i, sizes, strides, options);
  }
  const at::Tensor& maybe_get_output(int64_t i) override { return proxies[i] ? *proxies[i] : *outs[i]; }
  void finish() {
    for (size_t i = 0; i < outs.size(); ++i) {
      if (proxies[i]) outs[i]->copy_(*proxies[i]);
    }
  }
  static void prepare(const at::Tensor& out, c10::IntArrayRef sizes, c10::IntArrayRef strides,
                      const at::TensorOptions& options) {
    if constexpr (Inplace) {
      check_inplace(out, sizes, options);
    } else {
      resize_out(out, sizes, strides, options);
    }
  }
  std::array<const at::Tensor*, 2> outs;
  std::array<std::optional<at::Tensor>, 2> proxies;
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

// The foo kernel of a structured operator that needs `self` too (reductions: their meta objects
// only describe the output).
template <class Meta, class... Rest>
using StructuredKernelWithSelf = std::function<void(Meta&, const at::Tensor&, Rest...)>;

using launch::Complex;

namespace detail {

inline bool is_complex_arg(const at::Tensor& t) {
  return t.defined() && t.is_complex();
}
inline bool is_complex_arg(const at::Scalar& s) {
  return s.isComplex();
}
inline bool is_complex_arg(const std::optional<at::Tensor>& t) {
  return t && is_complex_arg(*t);
}
inline bool is_complex_arg(const std::optional<at::Scalar>& s) {
  return s && s->isComplex();
}
template <class T>
bool is_complex_arg(const T&) {
  return false;
}

// Whether a real-only kernel must leave these arguments to the CPU fallback.
template <class... Args>
bool needs_complex(Complex complex, const Args&... args) {
  return complex == Complex::rejected && (is_complex_arg(args) || ...);
}

// Runs operator `name` ("add.Tensor") on `args` through the CPU fallback; returns its outputs.
template <class... Args>
torch::jit::Stack run_fallback_on(const char* name, const Args&... args) {
  const std::string_view full(name);
  const size_t dot = full.find('.');
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow(
      ("aten::" + std::string(full.substr(0, dot))).c_str(), dot == std::string_view::npos ? "" : name + dot + 1);
  torch::jit::Stack stack;
  torch::jit::push(stack, args...);
  run_fallback(op, &stack);
  return stack;
}

// Registers the functional, in-place and out= variants; `run(op, self, rest...)` runs the kernel.
template <class Meta, class... Rest, class Run>
void register_variants(torch::Library& m, const char* functional, const char* inplace, const char* out, Run run,
                       Complex complex) {
  if (functional) {
    m.impl(functional, [run, complex, functional](const at::Tensor& self, Rest... rest) -> at::Tensor {
      if (needs_complex(complex, self, rest...)) return run_fallback_on(functional, self, rest...)[0].toTensor();
      FunctionalOp<Meta> op;
      op.meta(self, meta_arg(rest)...);
      run(op, self, rest...);
      return std::move(op.outputs[0]);
    });
  }
  if (inplace) {
    m.impl(inplace, [run, complex, inplace](at::Tensor& self, Rest... rest) -> at::Tensor& {
      if (needs_complex(complex, self, rest...)) {
        run_fallback_on(inplace, self, rest...);
        return self;
      }
      GivenOutputOp<Meta, true> op(self);
      op.meta(self, meta_arg(rest)...);
      run(op, self, rest...);
      op.finish();
      return self;
    });
  }
  if (out) {
    m.impl(out, [run, complex, out](const at::Tensor& self, Rest... rest, at::Tensor& result) -> at::Tensor& {
      if (needs_complex(complex, self, rest..., result)) {
        run_fallback_on(out, self, rest..., result);
        return result;
      }
      GivenOutputOp<Meta, false> op(result);
      op.meta(self, meta_arg(rest)...);
      run(op, self, rest...);
      op.finish();
      return result;
    });
  }
}

}  // namespace detail

// Registers the functional, in-place and out= variants of a structured operator whose first
// argument is `self`, e.g. ("add.Tensor", "add_.Tensor", "add.out"); pass nullptr to skip a variant.
// Complex::accepted when the kernel computes in complex dtypes too.
template <class Meta, class... Rest>
void register_structured(torch::Library& m, const char* functional, const char* inplace, const char* out,
                         std::type_identity_t<StructuredKernel<Meta, Rest...>> kernel,
                         Complex complex = Complex::rejected) {
  detail::register_variants<Meta, Rest...>(
      m, functional, inplace, out, [kernel](Meta& op, const at::Tensor&, Rest... rest) { kernel(op, rest...); },
      complex);
}

template <class Meta, class... Rest>
void register_structured_with_self(torch::Library& m, const char* functional, const char* inplace, const char* out,
                                   std::type_identity_t<StructuredKernelWithSelf<Meta, Rest...>> kernel,
                                   Complex complex = Complex::rejected) {
  detail::register_variants<Meta, Rest...>(m, functional, inplace, out, kernel, complex);
}

}  // namespace foo_cl::aten
