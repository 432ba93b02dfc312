// Kernel launches on the current queue: the kernel ABI (every tensor is a buffer plus a byte offset,
// scalars by value), dtype names and build options, and strided launches from a TensorIterator
// (sizes and byte strides, collapsed, split on the host when the rank exceeds kMaxDims).
#pragma once

#include "launch/Dtypes.h"
#include "runtime/Allocator.h"
#include "runtime/ProgramCache.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/util/FunctionRef.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace at {
class TensorIteratorBase;
}
namespace foo_cl::runtime {
struct DeviceInfo;
}

namespace foo_cl::launch {

constexpr int kMaxDims = 8;      // FOO_MAX_DIMS in kernels_cl/common.clh
constexpr int kMaxOperands = 4;  // FOO_MAX_OPERANDS

// Sizes and byte strides of up to kMaxDims dims (fastest first) and kMaxOperands operands; a launch
// passes the dims and operands its kernel reads (KernelCall::layout).
struct StridedLayout {
  int64_t size[kMaxDims] = {};
  int64_t stride[kMaxOperands][kMaxDims] = {};  // bytes
};

// Room kept in CL_DEVICE_MAX_PARAMETER_SIZE for a kernel's arguments besides its layouts, unless
// the launcher says otherwise: four tensors (buffer and offset, 16 bytes each), six 8-byte scalars
// and a count.
constexpr size_t kNonLayoutArgBytes = 128;

// The bytes a launch on `device` has for its layouts: the device's argument limit less the bytes
// of its other arguments.
uint64_t layout_room(c10::DeviceIndex device, size_t other_arg_bytes = kNonLayoutArgBytes);

// How many dims of a layout with `longs_per_dim` values per dim (sizes and strides) a launch on
// `device` can pass within layout_room, at most kMaxDims and at least one.
int max_layout_dims(c10::DeviceIndex device, int longs_per_dim, size_t other_arg_bytes = kNonLayoutArgBytes);

// "-DINDEX_T=uint " when n elements fit 32-bit indices, else ulong.
std::string index_option(int64_t n);

// Whether a foo address starts on a multiple of `bytes` (device addresses keep the buffers' alignment).
inline bool is_vector_aligned(const void* address, size_t bytes) {
  return reinterpret_cast<uintptr_t>(address) % bytes == 0;
}

// The address of a tensor argument, or of `stand_in` when the tensor is undefined (absent): an
// optional tensor still fills its kernel argument slot, which the kernel then does not read.
inline const void* or_unused(const at::Tensor& t, const at::Tensor& stand_in) {
  return t.defined() ? t.const_data_ptr() : stand_in.const_data_ptr();
}
inline const void* or_unused(const std::optional<at::Tensor>& t, const at::Tensor& stand_in) {
  return t ? or_unused(*t, stand_in) : stand_in.const_data_ptr();
}

// Writes `value` converted to the kernel compute dtype `compute` (ct in kernels_cl) to `dst`; returns its size.
size_t write_scalar(const c10::Scalar& value, c10::ScalarType compute, void* dst);

class KernelCall {
 public:
  KernelCall(c10::DeviceIndex device, const std::string& key, const char* name, const std::string& options);

  // A kernel the caller already looked up (launchers that keep their own cache of variants) from
  // kernels_cl/<program>.
  KernelCall(c10::DeviceIndex device, cl_kernel kernel, const char* name, std::string_view program);

  // A tensor argument: the buffer and byte offset behind a foo address (two kernel arguments).
  KernelCall& buffer(const void* address);

  // A buffer (or none) and byte offset as such a pair of arguments.
  KernelCall& mem(cl_mem buffer, cl_ulong offset = 0);

  template <typename T>
  KernelCall& value(const T& v) {
    return bytes(&v, sizeof(T));
  }

  // A scalar argument converted to the kernel's compute dtype (ct in kernels_cl).
  KernelCall& scalar(const c10::Scalar& value, c10::ScalarType compute);

  // A by-value argument of `size` bytes (a dtype-sized value whose C++ type varies at run time).
  KernelCall& bytes(const void* data, size_t size);

  // FOO_LAYOUT(dims, noperands) of kernels_cl/common.clh: the first max(ndim, 1) sizes, then those
  // dims' strides of each of the first `noperands` operands; a kernel built for more dims (`dims`)
  // gets them as dims of size 1 past ndim.
  KernelCall& layout(const StridedLayout& layout, int ndim, int noperands, int dims = 0);

  // The device's error word (runtime/DeviceErrors.h, FOO_ERROR_PARAM in kernels_cl/common.clh), for a
  // kernel that reports bad indices there: the next synchronisation of its stream raises them.
  KernelCall& error_word();

  // A __local buffer of `size` bytes (no data: the argument only sizes the kernel's local memory).
  KernelCall& local(size_t size);

  // An element count or index, as the INDEX_T that index_option(n) chose.
  KernelCall& count(int64_t n);

  // Enqueues on the device's current queue, with enough work-items for `n` elements of a grid loop;
  // `rows` > 1 repeats that range along dim 1 (pointwise_lists: one row per tensor).
  void launch(int64_t n, size_t rows = 1);

  // As launch(n), for the `n` elements of a strided walk (FOO_WALK of kernels_cl/common.clh) or of
  // any kernel whose CPU work-items find their first element's coordinates and then step through
  // their range: a CPU work-item takes more of them, as the finding costs a division per dim.
  void launch_walk(int64_t n);

  // Enqueues for `n` units of a grid loop that are each a long loop (a row, a block of queries): on
  // CPU devices, where a work-group runs on one core, in groups of one work-item per `block` units (at
  // most 64 groups per compute unit), so that a few units still spread over every core; elsewhere as
  // launch(n).
  void launch_loops(int64_t n, int64_t block = 1);

  // Enqueues `groups` work-groups of `local` work-items (times `rows` along dim 1) on the device's
  // current queue.
  void launch_groups(size_t groups, size_t local, size_t rows = 1);

  // Enqueues a `dims`-D range (global sizes multiples of the local ones; a null `local` lets the
  // OpenCL implementation choose).
  void launch_nd(const size_t global[3], const size_t local[3], cl_uint dims = 3);

 private:
  c10::DeviceIndex device_;
  cl_kernel kernel_;
  const char* name_;
  std::string trace_name_;  // "<program>:<name>" while the profiler traces, else empty
  cl_uint next_arg_ = 0;
  size_t arg_bytes_ = 0;  // checked against CL_DEVICE_MAX_PARAMETER_SIZE at launch
  bool reports_errors_ = false;  // takes the error word: the launch arms its stream's next check
};

// The tuner's candidates for a row-wise kernel (softmax, layer_norm): on GPU-class devices the
// work-items sharing a row ("L=256"; powers of two the device's groups take, row_group_size
// first); on CPU-class ones a work-item walks a row, with VEC-wide vectors when `vectorized`
// ("L=1 VEC=8"; vector_width first).
std::vector<std::string> row_candidates(const runtime::DeviceInfo& info, bool vectorized);

// Rows of fewer elements in all are launched with the first candidate untimed.
constexpr int64_t kTunedMinRowElements = int64_t(1) << 20;

// What a kernel writing densely writes into: `out` itself when contiguous, else a contiguous tensor
// of its shape, which copy_back then copies into `out`.
at::Tensor dense_output(const at::Tensor& out);
void copy_back(const at::Tensor& written, const at::Tensor& out);

// One launch of a strided kernel: the layout of the iterator's operands over at most kMaxDims dims
// (fewer where the device's argument limit says so), the number of elements, and per-operand byte
// offsets to add to the operands' addresses.
struct StridedSlice {
  StridedLayout layout;
  int ndim;
  int noperands;
  int64_t numel;
  std::array<int64_t, kMaxOperands> offsets;
};

// Calls `launch` once per slice of `iter` (once unless the collapsed rank exceeds what one launch
// takes: kMaxDims, or fewer on a device with a small argument limit).
void for_each_strided_slice(const at::TensorIteratorBase& iter, c10::function_ref<void(const StridedSlice&)> launch,
                            size_t other_arg_bytes = kNonLayoutArgBytes);

}  // namespace foo_cl::launch
