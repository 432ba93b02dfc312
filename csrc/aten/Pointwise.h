// Glue between structured elementwise operators and the pointwise launcher: a structured kernel
// that runs one kernels_cl/ program, with scalar parameters taken from the operator's arguments.
#pragma once

#include "aten/Structured.h"
#include "launch/Pointwise.h"

#include <ATen/TensorIterator.h>

#include <string>
#include <vector>

namespace foo_cl::aten {

// Runs kernels_cl/<key> over the built iterator; the operator's arguments after self are unused.
template <class Meta, class... Rest>
StructuredKernel<Meta, Rest...> pointwise(std::string key) {
  return [key = std::move(key)](Meta& iter, Rest...) { launch::launch_pointwise(iter, key); };
}

// Registers a structured unary op with its three variants ("exp", "exp_", "exp.out"); a trailing
// Complex::accepted says the kernel computes complex values too.
#define FOO_STRUCTURED_UNARY(m, op, key, ...)                                                       \
  register_structured<at::meta::structured_##op>(m, #op, #op "_", #op ".out",                      \
                                                 pointwise<at::meta::structured_##op>(key) __VA_OPT__(, ) __VA_ARGS__)

// Registers a structured binary op whose variants are "<op>.Tensor", "<op>_.Tensor" and "<op>.out".
#define FOO_STRUCTURED_BINARY_TENSOR(m, op, key, ...)                                                       \
  register_structured<at::meta::structured_##op##_Tensor, const at::Tensor&>(                              \
      m, #op ".Tensor", #op "_.Tensor", #op ".out",                                                        \
      pointwise<at::meta::structured_##op##_Tensor, const at::Tensor&>(key) __VA_OPT__(, ) __VA_ARGS__)

// Registers a structured binary op without overload names ("atan2", "atan2_", "atan2.out").
#define FOO_STRUCTURED_BINARY(m, op, key)                                                          \
  register_structured<at::meta::structured_##op, const at::Tensor&>(                               \
      m, #op, #op "_", #op ".out", pointwise<at::meta::structured_##op, const at::Tensor&>(key))

}  // namespace foo_cl::aten
