// Indexing launches: index_select and compaction, one work-item per element; EmbeddingBag's forward,
// one per bag and feature; the embedding backward and sorted folds, a stable sort of the row keys,
// then one work-item per output element or run of equal keys; gather and scatter over an iterator
// of the index's shape, the indexed tensor viewed there with stride 0 along the dim. Positions are
// checked by the kernels, which report a bad one to the device's error word (runtime/DeviceErrors).
#include "launch/Index.h"

#include "launch/Launch.h"
#include "launch/Sort.h"
#include "runtime/Device.h"

#include <ATen/TensorIterator.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/where.h>
#include <c10/core/DeviceGuard.h>

#include <string>
#include <string_view>
#include <vector>

namespace foo_cl::launch {
namespace {

const char* fold_option(Fold fold) {
  switch (fold) {
    case Fold::kSum:
      return "-DFOLD_SUM ";
    case Fold::kProd:
      return "-DFOLD_PROD ";
    case Fold::kAmax:
      return "-DFOLD_AMAX ";
    case Fold::kAmin:
      return "-DFOLD_AMIN ";
    default:
      return "-DFOLD_LAST ";
  }
}

// The COMBINE of index/scatter_gather, a foo_atomic_<name> of kernels_cl/atomics.clh.
const char* combine_name(Fold fold) {
  switch (fold) {
    case Fold::kSum:
      return "sum";
    case Fold::kProd:
      return "prod";
    case Fold::kAmax:
      return "amax";
    default:
      TORCH_INTERNAL_ASSERT(fold == Fold::kAmin, "scatter combines by sum, prod, amax or amin");
      return "amin";
  }
}

// DT for kernels that only move values: the unsigned-size dtype of t's element size.
std::string bits_option(const at::Tensor& t) {
  return std::string("-DDT=") + bits_dtype_name(t.scalar_type()) + " ";
}

// The integer dtype of t's element size, to read a value's encoding.
c10::ScalarType bits_type(const at::Tensor& t) {
  switch (t.element_size()) {
    case 1:
      return at::kByte;
    case 2:
      return at::kShort;
    case 4:
      return at::kInt;
    default:
      return at::kLong;
  }
}

// `t` seen with index's sizes, its stride along `dim` replaced by zero.
at::Tensor along_index(const at::Tensor& t, const at::Tensor& index, int64_t dim, bool zero_dim_stride) {
  if (t.dim() == 0) return t.as_strided(index.sizes(), std::vector<int64_t>(index.dim(), 0), t.storage_offset());
  std::vector<int64_t> strides = t.strides().vec();
  if (zero_dim_stride) strides[dim] = 0;
  return t.as_strided(index.sizes(), strides, t.storage_offset());
}

int64_t dim_stride_bytes(const at::Tensor& t, int64_t dim) {
  return t.dim() == 0 ? 0 : t.stride(dim) * static_cast<int64_t>(t.element_size());
}

int64_t dim_size(const at::Tensor& t, int64_t dim) {
  return t.dim() == 0 ? 1 : t.size(dim);
}

// Runs `kernel` of index/scatter_gather over (operand0, operand1, index) of index's shape; positions
// outside [0, dim_size) are reported to the device's error word.
void scatter_gather(const char* kernel, const std::string& options, const at::Tensor& operand0,
                    const at::Tensor& operand1, const at::Tensor& index, int64_t dim_stride, int64_t dim_size,
                    uint64_t value_bits = 0) {
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(operand0)
                  .add_const_input(operand1)
                  .add_const_input(index)
                  .build();
  const c10::DeviceIndex device = operand0.device().index();
  for_each_strided_slice(iter, [&](const StridedSlice& slice) {
    KernelCall call(device, "index/scatter_gather", kernel,
                    options + index_option(slice.numel) + "-DNDIM=" + std::to_string(slice.ndim));
    call.buffer(static_cast<char*>(iter.data_ptr(0)) + slice.offsets[0])
        .buffer(static_cast<char*>(iter.data_ptr(1)) + slice.offsets[1])
        .buffer(static_cast<char*>(iter.data_ptr(2)) + slice.offsets[2])
        .layout(slice.layout, slice.ndim, slice.noperands)
        .value(dim_stride);
    if (std::string_view(kernel) == "scatter_strided") call.value(value_bits);
    call.value(static_cast<uint64_t>(dim_size)).error_word().count(slice.numel).launch_walk(slice.numel);
  });
}

}  // namespace

bool has_atomics_for(const at::Tensor& out) {
  return out.element_size() < 8 || runtime::device_info(out.device().index()).has_int64_atomics;
}

void launch_fold_sorted(const at::Tensor& out, const at::Tensor& keys, const at::Tensor& values, Fold fold) {
  TORCH_INTERNAL_ASSERT(out.dim() == 3 && values.dim() == 3 && out.is_contiguous() && values.is_contiguous() &&
                        keys.scalar_type() == at::kLong && values.scalar_type() == out.scalar_type() &&
                        values.size(0) == out.size(0) && values.size(1) == keys.numel() &&
                        values.size(2) == out.size(2));
  const int64_t m = keys.numel();
  if (m == 0 || values.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const at::Tensor rows = keys.reshape({1, m}).contiguous();
  const at::Tensor sorted = at::empty_like(rows), order = at::empty_like(rows);
  launch_sort_rows(rows, sorted, order, /*descending=*/false);
  const c10::ScalarType type = out.scalar_type();
  const c10::ScalarType acc = type == at::kBool ? at::kLong : compute_type(type);
  const int64_t n = values.numel();
  KernelCall(out.device().index(), "index/fold_sorted", "fold_sorted",
             dtype_option("DT", type) + dtype_option("ACC", acc) + fold_option(fold) + index_option(n))
      .buffer(out.data_ptr())
      .buffer(values.const_data_ptr())
      .buffer(sorted.const_data_ptr())
      .buffer(order.const_data_ptr())
      .value(static_cast<uint64_t>(out.size(1)))
      .value(static_cast<uint64_t>(m))
      .value(static_cast<uint64_t>(out.size(2)))
      .count(n)
      .launch(n);
}

at::Tensor launch_positions(const at::Tensor& index, int64_t size, bool wrap, bool for_writes, const at::Tensor& base) {
  const at::Tensor p = index.contiguous();
  TORCH_INTERNAL_ASSERT(p.scalar_type() == at::kLong && p.device().is_privateuseone() &&
                        (!base.defined() || (base.is_contiguous() && base.sizes() == p.sizes())));
  at::Tensor out = at::empty(p.sizes(), p.options());
  const int64_t n = p.numel();
  if (n == 0) return out;
  const c10::DeviceGuard guard(p.device());
  std::string options = index_option(n);
  if (wrap) options += "-DWRAP ";
  if (for_writes) options += "-DSKIP_BAD ";
  if (base.defined()) options += "-DHAS_BASE ";
  KernelCall(p.device().index(), "index/positions", "positions", options)
      .buffer(p.const_data_ptr())
      .buffer(base.defined() ? base.const_data_ptr() : p.const_data_ptr())
      .buffer(out.data_ptr())
      .value(size)
      .error_word()
      .count(n)
      .launch(n);
  return out;
}

void launch_index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& out) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(self.device());
  const at::Tensor result = dense_output(out);
  const int64_t size = dim_size(self, dim);
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
  KernelCall(self.device().index(), "index/index_select", "index_select_contig",
             bits_option(self) + dtype_option("INDEX", index.scalar_type()) + index_option(n))
      .buffer(self.const_data_ptr())
      .buffer(index.const_data_ptr())
      .buffer(result.data_ptr())
      .value(static_cast<uint64_t>(size))
      .value(static_cast<uint64_t>(index.numel()))
      .value(static_cast<uint64_t>(inner))
      .error_word()
      .count(n)
      .launch_walk(n);
  copy_back(result, out);
}

void launch_embedding_backward(const at::Tensor& grad, const at::Tensor& indices, int64_t padding_idx,
                               bool scale_grad_by_freq, const at::Tensor& out, const Bags* bags) {
  const int64_t m = indices.numel(), n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(grad.device());
  const at::Tensor keys = indices.reshape({1, m}).to(at::kLong).contiguous();
  const at::Tensor sorted = at::empty_like(keys), order = at::empty_like(keys);
  launch_sort_rows(keys, sorted, order, /*descending=*/false);
  const at::Tensor rows = grad.contiguous();
  std::string options = dtype_option("DT", rows.scalar_type()) +
                        dtype_option("ACC", float_accumulate_type(rows.scalar_type())) + index_option(n);
  if (scale_grad_by_freq) options += "-DSCALE_BY_FREQUENCY ";
  if (bags) {
    options += "-DBAGS " + dtype_option("IT", bags->offset2bag.scalar_type());
    if (bags->per_sample_weights) options += "-DPER_SAMPLE_WEIGHTS ";
    if (bags->mean) options += "-DMODE_MEAN ";
  }
  KernelCall call(rows.device().index(), "index/embedding_backward", "embedding_backward", options);
  call.buffer(rows.const_data_ptr())
      .buffer(sorted.const_data_ptr())
      .buffer(order.const_data_ptr())
      .buffer(out.data_ptr())
      .value(static_cast<uint64_t>(m))
      .value(static_cast<uint64_t>(rows.size(-1)))
      .value(padding_idx);
  if (bags) {
    const std::optional<at::Tensor>& weights = bags->per_sample_weights;
    call.buffer(bags->offset2bag.const_data_ptr())
        .buffer(bags->bag_size.const_data_ptr())
        .buffer(or_unused(weights, rows))
        .value(static_cast<int64_t>(weights ? weights->stride(0) : 0))
        .value(static_cast<uint64_t>(rows.size(0)));
  }
  // A work-item a row on CPU devices, which walk it in order; eight elements of one elsewhere.
  const runtime::DeviceInfo& info = runtime::device_info(rows.device().index());
  const int64_t dim = rows.size(-1), width = info.cpu_class ? dim : 8;
  const int64_t units = n / dim * ((dim + width - 1) / width);
  call.value(static_cast<uint64_t>(width)).count(units).launch_loops(units, 1);
}

void launch_embedding_bag(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets,
                          const std::optional<at::Tensor>& per_sample_weights, int64_t mode, int64_t padding_idx,
                          const at::Tensor& out, const at::Tensor& offset2bag,
                          const at::Tensor& bag_size, const at::Tensor& max_indices) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const c10::DeviceGuard guard(weight.device());
  static constexpr const char* kModes[] = {"-DMODE_SUM ", "-DMODE_MEAN ", "-DMODE_MAX "};
  std::string options = dtype_option("DT", weight.scalar_type()) +
                        dtype_option("ACC", float_accumulate_type(weight.scalar_type())) +
                        dtype_option("IT", indices.scalar_type()) + kModes[mode] + index_option(n);
  if (per_sample_weights) options += "-DPER_SAMPLE_WEIGHTS ";
  KernelCall(weight.device().index(), "index/embedding_bag", "embedding_bag", options)
      .buffer(weight.const_data_ptr())
      .buffer(indices.const_data_ptr())
      .buffer(offsets.const_data_ptr())
      .buffer(or_unused(per_sample_weights, weight))
      .buffer(out.data_ptr())
      .buffer(offset2bag.data_ptr())
      .buffer(bag_size.data_ptr())
      .buffer(max_indices.numel() > 0 ? max_indices.data_ptr() : bag_size.data_ptr())
      .value(weight.stride(0))
      .value(weight.stride(1))
      .value(static_cast<int64_t>(per_sample_weights ? per_sample_weights->stride(0) : 0))
      .value(static_cast<uint64_t>(out.size(0)))
      .value(static_cast<uint64_t>(offsets.numel()))
      .value(static_cast<uint64_t>(indices.numel()))
      .value(static_cast<uint64_t>(out.size(1)))
      .value(static_cast<uint64_t>(weight.size(0)))
      .value(padding_idx)
      .error_word()
      .count(n)
      .launch(n);
}

void launch_masked_select(const at::Tensor& values, const at::Tensor& selected, const at::Tensor& positions,
                          const at::Tensor& out) {
  const int64_t n = selected.numel();
  if (n == 0 || out.numel() == 0) return;
  const c10::DeviceGuard guard(values.device());
  const at::Tensor result = dense_output(out);
  KernelCall(values.device().index(), "index/compact", "masked_select_contig",
             bits_option(values) + "-DNDIM=1 " + index_option(n))
      .buffer(values.const_data_ptr())
      .buffer(selected.const_data_ptr())
      .buffer(positions.const_data_ptr())
      .buffer(result.data_ptr())
      .count(n)
      .launch(n);
  copy_back(result, out);
}

void launch_nonzero(const at::Tensor& selected, const at::Tensor& positions, const at::Tensor& out) {
  TORCH_INTERNAL_ASSERT(selected.dim() <= kMaxDims);
  const int64_t n = selected.numel();
  if (n == 0 || out.numel() == 0) return;
  const c10::DeviceGuard guard(selected.device());
  struct Sizes {
    int64_t size[kMaxDims];
  } sizes{};  // foo_sizes of kernels_cl/index/compact.cl
  for (int64_t d = 0; d < selected.dim(); ++d) sizes.size[d] = selected.size(d);
  const at::Tensor result = dense_output(out);
  KernelCall(selected.device().index(), "index/compact", "nonzero_contig",
             "-DDT=uint8 -DNDIM=" + std::to_string(selected.dim()) + " " + index_option(n))
      .buffer(selected.const_data_ptr())
      .buffer(positions.const_data_ptr())
      .buffer(result.data_ptr())
      .value(sizes)
      .count(n)
      .launch(n);
  copy_back(result, out);
}

void launch_gather(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  const c10::DeviceGuard guard(self.device());
  scatter_gather("gather_strided", bits_option(self), out, along_index(self, index, dim, true), index,
                 dim_stride_bytes(self, dim), dim_size(self, dim));
}

void launch_scatter(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor& src, Fold fold) {
  const c10::DeviceGuard guard(out.device());
  std::string options = bits_option(out);
  if (fold != Fold::kLast) {
    options = dtype_option("DT", out.scalar_type()) + "-DCOMBINE=" + combine_name(fold) + " ";
    if (out.scalar_type() == at::kLong) options += "-DFOO_INT64_ATOMICS ";
  }
  scatter_gather("scatter_strided", options, along_index(out, index, dim, true), along_index(src, index, dim, false),
                 index, dim_stride_bytes(out, dim), dim_size(out, dim));
}

void launch_scatter_value(const at::Tensor& out, int64_t dim, const at::Tensor& index, const c10::Scalar& value) {
  const c10::DeviceGuard guard(out.device());
  const at::Tensor target = along_index(out, index, dim, true);
  // The value's bits in the dtype's own encoding, passed as an integer of the same size.
  const at::Tensor encoded = at::empty({}, out.options().device(at::kCPU)).fill_(value);
  const uint64_t bits = static_cast<uint64_t>(encoded.view(bits_type(out)).item().toLong());
  scatter_gather("scatter_strided", bits_option(out) + "-DSRC_SCALAR ", target, target, index,
                 dim_stride_bytes(out, dim), dim_size(out, dim), bits);
}

// Every element of out is a row of its own, keyed by its position.
void launch_scatter_sorted(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                           Fold fold) {
  const c10::DeviceGuard guard(out.device());
  const at::Tensor work = out.is_contiguous() ? out : out.contiguous();
  const at::Tensor linear = at::arange(work.numel(), index.options()).view(work.sizes());
  const int64_t dim_stride = work.dim() == 0 ? 0 : linear.stride(dim);
  const at::Tensor checked =
      launch_positions(index, dim_size(work, dim), /*wrap=*/false, /*for_writes=*/true).view(index.sizes());
  const at::Tensor keys =
      at::where(checked.lt(0), -1, along_index(linear, index, dim, true) + checked * dim_stride).reshape(-1);
  const at::Tensor values = along_index(src, index, dim, false).contiguous().view({1, -1, 1});
  launch_fold_sorted(work.view({1, work.numel(), 1}), keys, values, fold);
  copy_back(work, out);
}

}  // namespace foo_cl::launch
