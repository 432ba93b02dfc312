// Moving data: copy_ in every direction (host <-> foo, within a device, across devices) with dtype
// conversion and any strides, fill_/zero_, and item() (with _assert_async, which waits for it).
// Host transfers move dense byte ranges (launch/Copy); layout and dtype changes happen in a kernel
// on the device or in PyTorch's CPU copy on the host.
#include "launch/Copy.h"
#include "launch/Dtypes.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/_assert_async_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/DeviceGuard.h>

#include <torch/library.h>

namespace foo_cl::aten {
namespace {

bool is_foo(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::PrivateUse1;
}

at::Tensor to_host(const at::Tensor& src);
void copy_from_host(const at::Tensor& dst, const at::Tensor& src, bool non_blocking = false);

// Same-device copy between foo tensors: any dtypes and strides, src broadcast to dst's shape.
void copy_on_device(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.scalar_type() != src.scalar_type() &&
      (launch::is_storage_only(dst.scalar_type()) || launch::is_storage_only(src.scalar_type()))) {
    if (dst.numel() > 0) copy_from_host(dst, to_host(src));  // no kernel converts these dtypes: PyTorch's CPU copy does
    return;
  }
  launch::launch_copy(dst, src);
}

// Whether a and b read their memory alike: the same dtype and layout, and the same conjugate and
// negative bits (views that conjugate or negate what their memory holds).
bool same_memory_layout(const at::Tensor& a, const at::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && a.strides() == b.strides() &&
         a.is_conj() == b.is_conj() && a.is_neg() == b.is_neg();
}

// An empty CPU tensor that reads its memory as `t` does (dtype, layout, conjugate and negative bits).
at::Tensor empty_host_like(const at::Tensor& t) {
  at::Tensor host = at::empty_strided(t.sizes(), t.strides(), t.options().device(c10::kCPU));
  host._set_conj(t.is_conj());
  host._set_neg(t.is_neg());
  return host;
}

// A foo tensor whose elements fill one dense byte range from its data pointer.
at::Tensor dense_on_device(const at::Tensor& t) {
  return t.is_non_overlapping_and_dense() ? t : t.contiguous();
}

// Copies a foo tensor into a new CPU tensor of the same dtype, sizes, (dense) strides and bits.
at::Tensor to_host(const at::Tensor& src) {
  const c10::DeviceGuard guard(src.device());
  const at::Tensor dense = dense_on_device(src);
  at::Tensor host = empty_host_like(dense);
  if (host.numel() > 0) launch::launch_read(dense, host, false);
  return host;
}

// Writes a CPU tensor into a foo tensor of its shape: through a staging tensor when dst is not
// dense, through a CPU copy in dst's layout and dtype when src has another.
void copy_from_host(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  if (dst.numel() == 0) return;
  const c10::DeviceGuard guard(dst.device());
  if (!dst.is_non_overlapping_and_dense()) {
    const at::Tensor staging = at::empty(dst.sizes(), dst.options());
    copy_from_host(staging, src, non_blocking);
    copy_on_device(dst, staging);
    return;
  }
  // The host side takes dst's exact layout and dtype, so one write moves dst's whole byte range.
  const at::Tensor host = same_memory_layout(src, dst) ? src : empty_host_like(dst).copy_(src);
  launch::launch_write(dst, host, non_blocking);
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  if (is_foo(self) && is_foo(dst)) {
    if (self.device() == dst.device()) {
      copy_on_device(dst, self);
    } else {
      copy_from_host(dst, to_host(self));  // OpenCL contexts of two devices share no buffers
    }
  } else if (is_foo(dst)) {
    copy_from_host(dst, self, non_blocking);
  } else {
    if (dst.numel() == 0) return dst;
    const c10::DeviceGuard guard(self.device());
    const at::Tensor dense = dense_on_device(self);
    if (same_memory_layout(dense, dst)) {
      launch::launch_read(dense, dst, non_blocking);
    } else {
      dst.copy_(to_host(dense));
    }
  }
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

at::Tensor& fill_(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  // PyTorch's CPU conversion gives the value's bits in self's dtype, with CPU's overflow errors.
  const at::Tensor bits = at::empty({}, self.options().device(c10::kCPU)).fill_(value);
  launch::launch_fill(self, bits.const_data_ptr());
  return self;
}

at::Tensor& fill_tensor_(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  if (!is_foo(value)) return fill_(self, value.item());
  TORCH_CHECK(value.device() == self.device(), "Expected all tensors to be on the same device, but found at least two ",
              "devices, ", self.device(), " and ", value.device(), "!");
  copy_on_device(self, value);
  return self;
}

at::Tensor& zero_(at::Tensor& self) {
  return fill_(self, 0);
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "local_scalar_dense: Empty tensor not supported");
  return to_host(self).item();
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_copy_from", copy_from);
  m.impl("_copy_from_and_resize", copy_from_and_resize);
  m.impl("fill_.Scalar", fill_);
  m.impl("fill_.Tensor", fill_tensor_);
  m.impl("zero_", zero_);
  m.impl("_local_scalar_dense", local_scalar_dense);
  m.impl("_assert_async", at::native::_assert_async_cpu);
  m.impl("_assert_async.msg", at::native::_assert_async_msg_cpu);
}

// copy_ reaches foo through _copy_from, which conjugates and negates on the way (the conjugate and
// negative views' own fallbacks would resolve the source with a clone, itself a copy_: a loop).
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}

TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}

}  // namespace foo_cl::aten
