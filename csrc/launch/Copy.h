// Moving data on the device and between host and device: copies between foo tensors of one device
// (kernels_cl/copy/: any dtypes that have kernels, any strides, the source broadcast to the
// destination's shape), fills (kernels_cl/fill/), and transfers of dense byte ranges to and from
// host memory.
#pragma once

#include <ATen/core/Tensor.h>

#include <bitset>

namespace foo_cl::launch {

// dst = src converted to dst's dtype; both on one foo device.
void launch_copy(const at::Tensor& dst, const at::Tensor& src);

// out (shaped and laid out like self, same dtype) = self reversed along the dims `flipped` marks.
void launch_flip(const at::Tensor& out, const at::Tensor& self, const std::bitset<64>& flipped);

// Every element of `self` set to the element_size() bytes at `pattern`.
void launch_fill(const at::Tensor& self, const void* pattern);

// Reads the bytes of a dense foo tensor into `host` (a CPU tensor of as many bytes); returns before
// the read is done only if non_blocking and host is pinned memory, whose block then stays out of the
// cache until it is.
void launch_read(const at::Tensor& src, const at::Tensor& host, bool non_blocking);

// Writes `host`'s bytes (a CPU tensor of dst's dtype and layout) over a dense foo tensor; returns
// early only as launch_read does (pageable memory may be freed as soon as the copy returns).
void launch_write(const at::Tensor& dst, const at::Tensor& host, bool non_blocking);

}  // namespace foo_cl::launch
