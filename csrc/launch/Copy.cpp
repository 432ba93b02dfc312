// Copy, fill and transfer launches: clEnqueueCopyBuffer for same-dtype contiguous copies, kernels
// for the rest (strided launches split as Launch.h says), clEnqueueRead/WriteBuffer for transfers.
#include "launch/Copy.h"

#include "launch/Launch.h"
#include "runtime/DeviceErrors.h"
#include "runtime/HostAllocator.h"
#include "runtime/QueuePool.h"
#include "runtime/Trace.h"

#include <ATen/TensorIterator.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::launch {
namespace {

size_t nbytes(const at::Tensor& t) {
  return static_cast<size_t>(t.numel()) * t.element_size();
}

// copy_transposed's tiles: FOO_TILE in kernels_cl/copy/copy.cl.
constexpr int64_t kTransposeTile = 16;

// Whether a strided copy is a transpose copy_transposed takes: the destination runs along dim 0,
// the source along dim 1 and not dim 0, both dims at least a tile long.
bool transposes(const StridedSlice& slice, size_t dst_size, size_t src_size) {
  const StridedLayout& l = slice.layout;
  return slice.ndim >= 2 && l.stride[0][0] == static_cast<int64_t>(dst_size) &&
         l.stride[1][1] == static_cast<int64_t>(src_size) && l.stride[1][0] != static_cast<int64_t>(src_size) &&
         l.size[0] >= kTransposeTile && l.size[1] >= kTransposeTile;
}

// Operand 0 of `iter` = operand 1, converted as `types` say (copy.cl's build options), slice by
// slice: transposes in tiles (copy_transposed), the rest walked (copy_strided). Other operands
// (a flip's marker) are only in the layout.
void launch_strided_copies(const at::TensorIteratorBase& iter, c10::DeviceIndex device, const std::string& types,
                           size_t dst_size, size_t src_size) {
  for_each_strided_slice(iter, [&](const StridedSlice& slice) {
    const std::string options = types + index_option(slice.numel) + "-DNDIM=" + std::to_string(slice.ndim);
    const bool tiles = transposes(slice, dst_size, src_size);
    const int64_t units = tiles ? ((slice.layout.size[0] + kTransposeTile - 1) / kTransposeTile) *
                                      ((slice.layout.size[1] + kTransposeTile - 1) / kTransposeTile) *
                                      (slice.numel / (slice.layout.size[0] * slice.layout.size[1]))
                                : slice.numel;
    KernelCall call(device, "copy/copy", tiles ? "copy_transposed" : "copy_strided", options);
    call.buffer(static_cast<char*>(iter.data_ptr(0)) + slice.offsets[0])
        .buffer(static_cast<char*>(iter.data_ptr(1)) + slice.offsets[1])
        .layout(slice.layout, slice.ndim, slice.noperands)
        .count(units);
    if (tiles) {
      call.launch_loops(units, 1);
    } else {
      call.launch_walk(units);
    }
  });
}

}  // namespace

void launch_copy(const at::Tensor& dst, const at::Tensor& src) {
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
  // A conjugate or negative view copied into a tensor without that bit (or the reverse) has its
  // values conjugated or negated on the way.
  const bool conj = dst.is_complex() && dst.is_conj() != src.is_conj(), negate = dst.is_neg() != src.is_neg();
  const bool bits_only = dst_type == src_type && !conj && !negate;
  if (bits_only && iter.is_contiguous()) {
    if (iter.data_ptr(0) == iter.data_ptr(1)) return;
    const auto d = runtime::buffer_of(iter.data_ptr(0)), s = runtime::buffer_of(iter.data_ptr(1));
    runtime::CommandTrace traced(device, "Memcpy DtoD", runtime::CommandKind::copy);
    FOO_CL_CHECK(clEnqueueCopyBuffer(runtime::current_queue(device), s.mem, d.mem, s.offset, d.offset,
                                     iter.numel() * c10::elementSize(dst_type), 0, nullptr, traced.event()));
    return;
  }
  // Same-dtype copies only move bits: one program per element size serves every dtype.
  const std::string types =
      (bits_only ? std::string("-DSRC=") + bits_dtype_name(src_type) + " -DDST=" + bits_dtype_name(dst_type) + " "
                 : dtype_option("SRC", src_type, Complex::accepted) + dtype_option("DST", dst_type, Complex::accepted)) +
      (conj ? "-DCONJ " : "") + (negate ? "-DNEGATE " : "");
  if (iter.is_contiguous()) {
    const int64_t n = iter.numel();
    KernelCall(device, "copy/copy", "copy_contig", types + index_option(n))
        .buffer(iter.data_ptr(0))
        .buffer(iter.data_ptr(1))
        .count(n)
        .launch(n);
    return;
  }
  launch_strided_copies(iter, device, types, c10::elementSize(dst_type), c10::elementSize(src_type));
}

void launch_flip(const at::Tensor& out, const at::Tensor& self, const std::bitset<64>& flipped) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const c10::DeviceIndex device = out.device().index();
  // As CPU's flip: a third operand, self with zero strides along the flipped dims, keeps the
  // iterator from coalescing them with others; the output is then walked from its far end along
  // them (negative strides), and the copy kernels read self forwards.
  c10::DimVector marker(self.strides().begin(), self.strides().end());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (flipped[d] && self.size(d) > 1) marker[d] = 0;
  }
  const at::Tensor marked = self.as_strided(self.sizes(), marker);
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .declare_static_dtype_and_device(self.scalar_type(), self.device())
                  .add_output(out)
                  .add_const_input(self)
                  .add_const_input(marked)
                  .build();
  auto* data = static_cast<char*>(iter.data_ptr(0));
  c10::DimVector strides(iter.strides(0).begin(), iter.strides(0).end());
  for (int64_t d = 0; d < iter.ndim(); ++d) {
    if (iter.strides(2)[d] == 0 && iter.strides(1)[d] != 0) {
      data += strides[d] * (iter.shape()[d] - 1);
      strides[d] = -strides[d];
    }
  }
  iter._unsafe_set_arg_strides(0, strides);
  iter._unsafe_set_arg_data(0, data);
  const std::string types = std::string("-DSRC=") + bits_dtype_name(self.scalar_type()) +
                            " -DDST=" + bits_dtype_name(self.scalar_type()) + " -DNOPERANDS=3 ";
  launch_strided_copies(iter, device, types, self.element_size(), self.element_size());
}

void launch_fill(const at::Tensor& self, const void* pattern) {
  if (self.numel() == 0) return;
  const c10::DeviceGuard guard(self.device());
  const c10::DeviceIndex device = self.device().index();
  const std::string options = std::string("-DDST=") + bits_dtype_name(self.scalar_type()) + " ";
  if (self.is_non_overlapping_and_dense()) {
    const int64_t n = self.numel();
    KernelCall call(device, "fill/fill", "fill_contig", options + index_option(n));
    call.buffer(self.const_data_ptr());
    call.bytes(pattern, self.element_size());
    call.count(n).launch(n);
    return;
  }
  auto iter = at::TensorIteratorConfig()
                  .add_output(self)
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .build();
  for_each_strided_slice(iter, [&](const StridedSlice& slice) {
    KernelCall call(device, "fill/fill", "fill_strided",
                    options + index_option(slice.numel) + "-DNDIM=" + std::to_string(slice.ndim));
    call.buffer(static_cast<char*>(iter.data_ptr(0)) + slice.offsets[0]).layout(slice.layout, slice.ndim, slice.noperands);
    call.bytes(pattern, self.element_size());
    call.count(slice.numel).launch_walk(slice.numel);
  });
}

void launch_read(const at::Tensor& src, const at::Tensor& host, bool non_blocking) {
  const c10::DeviceIndex device = src.device().index();
  const bool wait = !non_blocking || !runtime::is_pinned_address(host.const_data_ptr());
  const auto s = runtime::buffer_of(src.const_data_ptr());
  runtime::CommandTrace traced(device, "Memcpy DtoH", runtime::CommandKind::read);
  FOO_CL_CHECK(clEnqueueReadBuffer(runtime::current_queue(device), s.mem, wait ? CL_TRUE : CL_FALSE, s.offset,
                                   nbytes(src), host.mutable_data_ptr(), 0, nullptr, traced.event()));
  if (wait) {
    runtime::raise_device_errors(device, runtime::current_stream_id(device));
  } else {
    runtime::record_host_use(host.storage().data_ptr(), device);
  }
}

void launch_write(const at::Tensor& dst, const at::Tensor& host, bool non_blocking) {
  const c10::DeviceIndex device = dst.device().index();
  const bool wait = !non_blocking || !runtime::is_pinned_address(host.const_data_ptr());
  const auto d = runtime::buffer_of(dst.const_data_ptr());
  runtime::CommandTrace traced(device, "Memcpy HtoD", runtime::CommandKind::write);
  FOO_CL_CHECK(clEnqueueWriteBuffer(runtime::current_queue(device), d.mem, wait ? CL_TRUE : CL_FALSE, d.offset,
                                    nbytes(dst), host.const_data_ptr(), 0, nullptr, traced.event()));
  if (!wait) runtime::record_host_use(host.storage().data_ptr(), device);
}

}  // namespace foo_cl::launch
