// Backwards that add overlapping contributions atomically, as CUDA's do: `op` alerts under
// torch.use_deterministic_algorithms, and its gradient `out` must have atomics for its dtype on its
// device (64-bit values need cl_khr_int64_base_atomics).
#pragma once

#include "launch/Index.h"

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>

namespace foo_cl::aten {

inline void check_atomic_accumulation(const char* op, const at::Tensor& out) {
  at::globalContext().alertNotDeterministic(op);
  TORCH_CHECK(launch::has_atomics_for(out), "foo-cl: ", op, " in ", out.scalar_type(),
              " needs the OpenCL extension cl_khr_int64_base_atomics, which ", out.device(),
              " does not have; use float32");
}

}  // namespace foo_cl::aten
