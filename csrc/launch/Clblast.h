// CLBlast (libclblast.so.1), loaded at run time where it is installed: its GEMM is a candidate of
// the GEMM tuner like foo's own kernels. Nothing is needed to build foo-cl without it.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

namespace foo_cl::launch {

// Whether CLBlast loaded (tried once), and a line saying which library or why not.
bool clblast_available();
std::string clblast_status();

// c = alpha * a @ b + beta * c over 3-D (batch, rows, cols) float or double views of one device,
// enqueued on its current queue; operands CLBlast cannot address as they are are made contiguous.
void clblast_gemm(const at::Tensor& c, const at::Tensor& a, const at::Tensor& b, const c10::Scalar& alpha,
                  const c10::Scalar& beta);

}  // namespace foo_cl::launch
