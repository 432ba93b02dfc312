// Kernel argument binding, work sizes, and the host-side split of high-rank strided launches.
#include "launch/Launch.h"

#include "runtime/Device.h"
#include "runtime/DeviceErrors.h"
#include "runtime/KernelCode.h"
#include "runtime/QueuePool.h"
#include "runtime/Trace.h"

#include <ATen/TensorIterator.h>
#include <ATen/ops/empty.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace foo_cl::launch {

std::vector<std::string> row_candidates(const runtime::DeviceInfo& info, bool vectorized) {
  std::vector<std::string> out;
  if (info.cpu_class) {
    out.push_back(vectorized ? "L=1 VEC=" + std::to_string(info.vector_width) : "L=1");
    if (!vectorized) return out;
    for (int vec : {4, 8, 16}) {
      if (vec != info.vector_width) out.push_back("L=1 VEC=" + std::to_string(vec));
    }
    return out;
  }
  out.push_back("L=" + std::to_string(info.row_group_size));
  for (size_t l : {64, 128, 256, 32}) {
    if (l != info.row_group_size && l <= info.max_work_group_size) out.push_back("L=" + std::to_string(l));
  }
  return out;
}

std::string index_option(int64_t n) {
  return n <= static_cast<int64_t>(UINT32_MAX) ? "-DINDEX_T=uint " : "-DINDEX_T=ulong ";
}

KernelCall::KernelCall(c10::DeviceIndex device, const std::string& key, const char* name, const std::string& options)
    : KernelCall(device, runtime::kernel(device, key, name, options), name, key) {}

KernelCall::KernelCall(c10::DeviceIndex device, cl_kernel kernel, const char* name, std::string_view program)
    : device_(device), kernel_(kernel), name_(name) {
  if (runtime::tracing()) trace_name_ = std::string(program) + ":" + name;
}

KernelCall& KernelCall::buffer(const void* address) {
  const c10::DeviceIndex owner = runtime::device_of_address(address);
  TORCH_CHECK(owner < 0 || owner == device_, "Expected all tensors to be on the same device, but found at least two ",
              "devices, foo:", static_cast<int>(device_), " and foo:", static_cast<int>(owner), "!");
  const runtime::BufferRef ref = runtime::buffer_of(address);
  return mem(ref.mem, ref.offset);
}

KernelCall& KernelCall::mem(cl_mem buffer, cl_ulong offset) {
  bytes(&buffer, sizeof(buffer));
  return bytes(&offset, sizeof(offset));
}

KernelCall& KernelCall::error_word() {
  reports_errors_ = true;
  return mem(runtime::error_word(device_));
}

size_t write_scalar(const c10::Scalar& v, c10::ScalarType compute, void* dst) {
  auto write = [dst](auto value) {
    std::memcpy(dst, &value, sizeof(value));
    return sizeof(value);
  };
  switch (compute) {
    case c10::kFloat:
      return write(v.toFloat());
    case c10::kDouble:
      return write(v.toDouble());
    case c10::kChar:
      return write(static_cast<int8_t>(v.toLong()));
    case c10::kByte:
      return write(static_cast<uint8_t>(v.toLong()));
    case c10::kShort:
      return write(static_cast<int16_t>(v.toLong()));
    case c10::kInt:
      return write(static_cast<int32_t>(v.toLong()));
    case c10::kLong:
      return write(v.toLong());
    case c10::kBool:
      return write(static_cast<uint8_t>(v.toBool()));
    case c10::kComplexFloat:
      return write(v.toComplexFloat());
    case c10::kComplexDouble:
      return write(v.toComplexDouble());
    default:
      TORCH_CHECK(false, "foo-cl: no kernel compute type for ", compute);
  }
}

KernelCall& KernelCall::scalar(const c10::Scalar& v, c10::ScalarType compute) {
  char data[sizeof(c10::complex<double>)];
  return bytes(data, write_scalar(v, compute, data));
}

KernelCall& KernelCall::local(size_t size) {
  const cl_int err = clSetKernelArg(kernel_, next_arg_, size, nullptr);
  TORCH_CHECK(err == CL_SUCCESS, "foo-cl: setting local-memory argument ", next_arg_, " of kernel ", name_,
              " failed with ", runtime::cl_error_name(err));
  ++next_arg_;
  return *this;
}

KernelCall& KernelCall::count(int64_t n) {
  if (n <= static_cast<int64_t>(UINT32_MAX)) return value(static_cast<cl_uint>(n));
  return value(static_cast<cl_ulong>(n));
}

KernelCall& KernelCall::layout(const StridedLayout& layout, int ndim, int noperands, int dims) {
  ndim = std::max(ndim, 1);
  dims = std::max(dims, ndim);
  TORCH_INTERNAL_ASSERT(dims <= kMaxDims && noperands <= kMaxOperands);
  int64_t packed[kMaxDims * (1 + kMaxOperands)];
  int n = 0;
  for (int d = 0; d < dims; ++d) packed[n++] = d < ndim ? layout.size[d] : 1;
  for (int a = 0; a < noperands; ++a) {
    for (int d = 0; d < dims; ++d) packed[n++] = d < ndim ? layout.stride[a][d] : 0;
  }
  return bytes(packed, n * sizeof(int64_t));
}

uint64_t layout_room(c10::DeviceIndex device, size_t other_arg_bytes) {
  const uint64_t limit = runtime::device_info(device).max_parameter_size;
  return limit > other_arg_bytes ? limit - other_arg_bytes : 0;
}

int max_layout_dims(c10::DeviceIndex device, int longs_per_dim, size_t other_arg_bytes) {
  return static_cast<int>(
      std::clamp<uint64_t>(layout_room(device, other_arg_bytes) / (sizeof(int64_t) * longs_per_dim), 1, kMaxDims));
}

KernelCall& KernelCall::bytes(const void* data, size_t size) {
  const cl_int err = clSetKernelArg(kernel_, next_arg_, size, data);
  TORCH_CHECK(err == CL_SUCCESS, "foo-cl: setting argument ", next_arg_, " of kernel ", name_, " failed with ",
              runtime::cl_error_name(err));
  ++next_arg_;
  arg_bytes_ += size;
  return *this;
}

namespace {

// The most work-groups a launch takes: enough to keep every compute unit busy.
size_t max_groups(const runtime::DeviceInfo& info) {
  return static_cast<size_t>(std::max<uint32_t>(info.compute_units, 1)) * 64;
}

}  // namespace

void KernelCall::launch(int64_t n, size_t rows) {
  if (n <= 0) return;
  const runtime::DeviceInfo& info = runtime::device_info(device_);
  // Kernels loop over their elements with a grid stride, so the grid only has to fill the device.
  size_t local = std::min<size_t>(256, info.max_work_group_size);
  size_t per_item = 1;
  if (info.cpu_class) {
    // NOTE: a CPU runtime runs a work-group's items as one loop, and starting a work-group costs
    // more than a few elements' work: small launches take one small group.
    per_item = 16;
    if (static_cast<size_t>(n) <= local * per_item) local = std::min<size_t>(64, local);
  }
  const size_t groups =
      std::min<size_t>((static_cast<size_t>(n) + local * per_item - 1) / (local * per_item), max_groups(info));
  launch_groups(groups, local, rows);
}

void KernelCall::launch_walk(int64_t n) {
  const runtime::DeviceInfo& info = runtime::device_info(device_);
  if (n <= 0 || !info.cpu_class) return launch(n);
  // A work-item takes at least kShare elements; groups of up to 64 items, as many as there are
  // compute units where the elements allow.
  // NOTE: a power of two of items: PoCL compiles a kernel anew for each group size it is launched
  // with (100 ms to seconds each), and any size up to 64 made a strided copy compile up to 64 times.
  constexpr size_t kShare = 256;
  const size_t items = (static_cast<size_t>(n) + kShare - 1) / kShare;
  const size_t units = std::max<uint32_t>(info.compute_units, 1);
  const size_t local = std::bit_floor(std::clamp<size_t>(items / units, 1, 64));
  launch_groups(std::min<size_t>((items + local - 1) / local, max_groups(info)), local);
}

void KernelCall::launch_loops(int64_t n, int64_t block) {
  const runtime::DeviceInfo& info = runtime::device_info(device_);
  if (n <= 0 || !info.cpu_class) return launch(n);
  launch_groups(std::min<size_t>(static_cast<size_t>((n + block - 1) / block), max_groups(info)), 1);
}

void KernelCall::launch_groups(size_t groups, size_t local, size_t rows) {
  const size_t global[3] = {groups * local, rows, 1}, locals[3] = {local, 1, 1};
  launch_nd(global, locals);
}

void KernelCall::launch_nd(const size_t global[3], const size_t local[3], cl_uint dims) {
  const runtime::DeviceInfo& info = runtime::device_info(device_);
  const uint64_t limit = info.max_parameter_size;
  TORCH_CHECK(arg_bytes_ <= limit, "foo-cl: the arguments of kernel ", name_, " take ", arg_bytes_, " bytes, more than the ",
              limit, " foo:", static_cast<int>(device_), " accepts (CL_DEVICE_MAX_PARAMETER_SIZE)");
  runtime::CommandTrace traced(device_, trace_name_, runtime::CommandKind::kernel);
  const cl_int err = clEnqueueNDRangeKernel(runtime::current_queue(device_), kernel_, dims, nullptr, global, local, 0,
                                            nullptr, traced.event());
  TORCH_CHECK(err == CL_SUCCESS, "foo-cl: launching kernel ", name_, " on foo:", static_cast<int>(device_),
              " failed with ", runtime::cl_error_name(err));
  if (reports_errors_) runtime::arm_device_errors(device_, runtime::current_stream_id(device_));
  if (info.type & CL_DEVICE_TYPE_CPU) runtime::map_loaded_kernel_code();
}

at::Tensor dense_output(const at::Tensor& out) {
  return out.is_contiguous() ? out : at::empty(out.sizes(), out.options());
}

void copy_back(const at::Tensor& written, const at::Tensor& out) {
  if (!written.is_same(out)) out.copy_(written);
}

void for_each_strided_slice(const at::TensorIteratorBase& iter, c10::function_ref<void(const StridedSlice&)> launch,
                            size_t other_arg_bytes) {
  const int ndim = iter.ndim();
  const int ntensors = iter.ntensors();
  TORCH_INTERNAL_ASSERT(ntensors <= kMaxOperands);
  const int inner = std::min(ndim, max_layout_dims(iter.device(0).index(), 1 + ntensors, other_arg_bytes));
  StridedSlice slice{};
  slice.ndim = std::max(inner, 1);
  slice.noperands = ntensors;
  slice.numel = 1;
  for (int d = 0; d < inner; ++d) {
    slice.layout.size[d] = iter.shape()[d];
    slice.numel *= iter.shape()[d];
    for (int a = 0; a < ntensors; ++a) slice.layout.stride[a][d] = iter.strides(a)[d];
  }
  if (ndim == 0) slice.layout.size[0] = 1;
  // Dims past those are walked on the host, one launch per index of the outer dims.
  int64_t outer = 1;
  for (int d = inner; d < ndim; ++d) outer *= iter.shape()[d];
  for (int64_t o = 0; o < outer; ++o) {
    slice.offsets.fill(0);
    int64_t rest = o;
    for (int d = inner; d < ndim; ++d) {
      const int64_t idx = rest % iter.shape()[d];
      rest /= iter.shape()[d];
      for (int a = 0; a < ntensors; ++a) slice.offsets[a] += idx * iter.strides(a)[d];
    }
    launch(slice);
  }
}

}  // namespace foo_cl::launch
