// Moving data: copy_ in every direction (host <-> foo, within a device, across devices) with dtype
// conversion and any strides, fill_/zero_, and item() (with _assert_async, which waits for it). Host transfers move dense byte ranges; layout
// and dtype changes happen in a kernel on the device or in PyTorch's CPU copy on the host.
#include "launch/Launch.h"
#include "runtime/HostAllocator.h"
#include "runtime/QueuePool.h"

#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_assert_async_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/DeviceGuard.h>

#include <cstring>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

bool is_foo(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::PrivateUse1;
}

size_t nbytes(const at::Tensor& t) {
  return static_cast<size_t>(t.numel()) * t.element_size();
}

at::Tensor to_host(const at::Tensor& src);
void copy_from_host(const at::Tensor& dst, const at::Tensor& src, bool non_blocking = false);

// Same-device copy between foo tensors: any dtypes and strides, src broadcast to dst's shape.
void copy_on_device(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.numel() == 0) return;
  const c10::DeviceGuard guard(dst.device());
  const c10::DeviceIndex device = dst.device().index();
  auto iter = at::TensorIteratorConfig()
                  .add_output(dst)
                  .add_const_input(src)
                  .resize_outputs(false)
                  .check_all_same_dtype(false)
                  .build();
  const auto dst_type = iter.dtype(0), src_type = iter.dtype(1);
  if (dst_type != src_type && (launch::is_storage_only(dst_type) || launch::is_storage_only(src_type))) {
    copy_from_host(dst, to_host(src));  // no kernel converts these dtypes: PyTorch's CPU copy does
    return;
  }
  if (dst_type == src_type && iter.is_contiguous()) {
    if (iter.data_ptr(0) == iter.data_ptr(1)) return;
    const auto d = runtime::buffer_of(iter.data_ptr(0)), s = runtime::buffer_of(iter.data_ptr(1));
    FOO_CL_CHECK(clEnqueueCopyBuffer(runtime::current_queue(device), s.mem, d.mem, s.offset, d.offset,
                                     iter.numel() * c10::elementSize(dst_type), 0, nullptr, nullptr));
    return;
  }
  // Same-dtype copies only move bits: one program per element size serves every dtype.
  const std::string types =
      dst_type == src_type ? std::string("-DSRC=") + launch::bits_dtype_name(src_type) + " -DDST=" +
                                 launch::bits_dtype_name(dst_type) + " "
                           : launch::dtype_option("SRC", src_type) + launch::dtype_option("DST", dst_type);
  if (iter.is_contiguous()) {
    const int64_t n = iter.numel();
    launch::KernelCall(device, "copy/copy", "copy_contig", types + launch::index_option(n))
        .buffer(iter.data_ptr(0))
        .buffer(iter.data_ptr(1))
        .count(n)
        .launch(n);
    return;
  }
  launch::for_each_strided_slice(iter, [&](const launch::StridedSlice& slice) {
    const std::string options = types + launch::index_option(slice.numel) + "-DNDIM=" + std::to_string(slice.ndim);
    launch::KernelCall(device, "copy/copy", "copy_strided", options)
        .buffer(static_cast<char*>(iter.data_ptr(0)) + slice.offsets[0])
        .buffer(static_cast<char*>(iter.data_ptr(1)) + slice.offsets[1])
        .layout(slice.layout, slice.ndim, slice.noperands)
        .count(slice.numel)
        .launch(slice.numel);
  });
}

// A foo tensor whose elements fill exactly nbytes(t) bytes from its data pointer.
at::Tensor dense_on_device(const at::Tensor& t) {
  return t.is_non_overlapping_and_dense() ? t : t.contiguous();
}

// Reads a dense foo tensor's byte range into host memory; without waiting only into pinned memory,
// whose block then stays out of the cache until the read is done.
void read_dense(const at::Tensor& src, const at::Tensor& host, bool non_blocking = false) {
  const c10::DeviceIndex device = src.device().index();
  const bool wait = !non_blocking || !runtime::is_pinned_address(host.const_data_ptr());
  const auto s = runtime::buffer_of(src.const_data_ptr());
  FOO_CL_CHECK(clEnqueueReadBuffer(runtime::current_queue(device), s.mem, wait ? CL_TRUE : CL_FALSE, s.offset,
                                   nbytes(src), host.mutable_data_ptr(), 0, nullptr, nullptr));
  if (!wait) runtime::record_host_use(host.storage().data_ptr(), device);
}

// Copies a foo tensor into a new CPU tensor of the same dtype, sizes and (dense) strides.
at::Tensor to_host(const at::Tensor& src) {
  const c10::DeviceGuard guard(src.device());
  const at::Tensor dense = dense_on_device(src);
  at::Tensor host = at::empty_strided(dense.sizes(), dense.strides(), dense.options().device(c10::kCPU));
  if (host.numel() > 0) read_dense(dense, host);
  return host;
}

// Without waiting only from pinned memory, whose block then stays out of the cache until the write
// is done: pageable memory may be freed as soon as the copy returns.
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
  const bool same_layout =
      src.scalar_type() == dst.scalar_type() && src.sizes() == dst.sizes() && src.strides() == dst.strides();
  const at::Tensor host =
      same_layout ? src : at::empty_strided(dst.sizes(), dst.strides(), dst.options().device(c10::kCPU)).copy_(src);
  const c10::DeviceIndex device = dst.device().index();
  const bool wait = !non_blocking || !runtime::is_pinned_address(host.const_data_ptr());
  const auto d = runtime::buffer_of(dst.const_data_ptr());
  FOO_CL_CHECK(clEnqueueWriteBuffer(runtime::current_queue(device), d.mem, wait ? CL_TRUE : CL_FALSE, d.offset,
                                    nbytes(dst), host.const_data_ptr(), 0, nullptr, nullptr));
  if (!wait) runtime::record_host_use(host.storage().data_ptr(), device);
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
    if (dense.scalar_type() == dst.scalar_type() && dense.sizes() == dst.sizes() &&
        dense.strides() == dst.strides()) {
      read_dense(dense, dst, non_blocking);
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
  const c10::DeviceGuard guard(self.device());
  const c10::DeviceIndex device = self.device().index();
  // PyTorch's CPU conversion gives the value's bits in self's dtype, with CPU's overflow errors.
  const at::Tensor bits = at::empty({}, self.options().device(c10::kCPU)).fill_(value);
  const std::string options = std::string("-DDST=") + launch::bits_dtype_name(self.scalar_type()) + " ";
  uint64_t pattern = 0;
  std::memcpy(&pattern, bits.const_data_ptr(), self.element_size());
  if (self.is_non_overlapping_and_dense()) {
    const int64_t n = self.numel();
    launch::KernelCall call(device, "fill/fill", "fill_contig", options + launch::index_option(n));
    call.buffer(self.const_data_ptr());
    call.bytes(&pattern, self.element_size());
    call.count(n).launch(n);
    return self;
  }
  auto iter = at::TensorIteratorConfig()
                  .add_output(self)
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .build();
  launch::for_each_strided_slice(iter, [&](const launch::StridedSlice& slice) {
    launch::KernelCall call(device, "fill/fill", "fill_strided",
                            options + launch::index_option(slice.numel) + "-DNDIM=" + std::to_string(slice.ndim));
    call.buffer(static_cast<char*>(iter.data_ptr(0)) + slice.offsets[0]).layout(slice.layout, slice.ndim, slice.noperands);
    call.bytes(&pattern, self.element_size());
    call.count(slice.numel).launch(slice.numel);
  });
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

}  // namespace foo_cl::aten
