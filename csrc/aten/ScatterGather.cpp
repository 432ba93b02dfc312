// gather, scatter (tensor or value source), scatter_add, index_add and bincount along one dim
// (kernels_cl/index/scatter_gather.cl), with PyTorch's structured meta functions for checks and
// shapes. The kernels walk the index's shape; the indexed tensor is viewed there with stride 0
// along the dim, and the kernel adds index * its real stride. scatter_add is atomic, so sums of
// repeated positions may round in any order (as on CUDA); scatter's last write wins in any order.
#include "aten/Structured.h"
#include "launch/Launch.h"

#include <ATen/TensorIterator.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/gather_meta.h>
#include <ATen/ops/index_add_meta.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/scatter_add_meta.h>
#include <ATen/ops/scatter_meta.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::aten {
namespace {

using at::Tensor;

// As CPU: a position outside [0, size) raises (one wait for the device).
void check_positions(const char* op, const Tensor& index, const Tensor& indexed, int64_t dim) {
  if (index.numel() == 0) return;
  const int64_t size = indexed.dim() == 0 ? 1 : indexed.size(dim);
  const auto [low, high] = at::aminmax(index);
  const int64_t lowest = low.item<int64_t>(), highest = high.item<int64_t>();
  const int64_t bad = lowest < 0 ? lowest : highest;
  TORCH_CHECK_INDEX(lowest >= 0 && highest < size, op, "(): index ", bad, " is out of bounds for dimension ", dim,
                    " with size ", size);
}

// `t` seen with index's sizes, its stride along `dim` replaced by zero.
Tensor along_index(const Tensor& t, const Tensor& index, int64_t dim, bool zero_dim_stride) {
  if (t.dim() == 0) return t.as_strided(index.sizes(), index.strides());
  std::vector<int64_t> strides = t.strides().vec();
  if (zero_dim_stride) strides[dim] = 0;
  return t.as_strided(index.sizes(), strides, t.storage_offset());
}

int64_t dim_stride_bytes(const Tensor& t, int64_t dim) {
  return t.dim() == 0 ? 0 : t.stride(dim) * static_cast<int64_t>(t.element_size());
}

// Launches `kernel` over (operand0, operand1, index) of index's shape.
void launch_indexed(const char* kernel, const std::string& options, const Tensor& operand0, const Tensor& operand1,
                    const Tensor& index, int64_t dim_stride, uint64_t value_bits = 0) {
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(operand0)
                  .add_const_input(operand1)
                  .add_const_input(index)
                  .build();
  const c10::DeviceIndex device = operand0.device().index();
  launch::for_each_strided_slice(iter, [&](const launch::StridedSlice& slice) {
    launch::KernelCall call(device, "index/scatter_gather", kernel,
                            options + launch::index_option(slice.numel) + "-DNDIM=" + std::to_string(slice.ndim));
    call.buffer(static_cast<char*>(iter.data_ptr(0)) + slice.offsets[0])
        .buffer(static_cast<char*>(iter.data_ptr(1)) + slice.offsets[1])
        .buffer(static_cast<char*>(iter.data_ptr(2)) + slice.offsets[2])
        .value(slice.layout)
        .value(dim_stride);
    if (std::string(kernel) == "scatter_strided") call.value(value_bits);
    call.count(slice.numel).launch(slice.numel);
  });
}

std::string bits_options(const Tensor& t) {
  return std::string("-DDT=") + launch::bits_dtype_name(t.scalar_type()) + " ";
}

// The integer dtype of t's element size, to read a value's encoding.
c10::ScalarType bits_type(const Tensor& t) {
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

void gather_kernel(at::meta::structured_gather& op, const Tensor& self, int64_t dim, const Tensor& index_, bool) {
  const Tensor& out = op.maybe_get_output(0);
  if (index_.numel() == 0) return;
  const Tensor index = index_.to(at::kLong);  // the kernels read int64 positions
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const c10::DeviceGuard guard(self.device());
  check_positions("gather", index, self, dim);
  launch_indexed("gather_strided", bits_options(self), out, along_index(self, index, dim, true), index,
                 dim_stride_bytes(self, dim));
}

// out = self with src (or value) written at the index's positions; accumulate adds instead.
void scatter_into(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index_, const Tensor& src,
                  const c10::Scalar& value, bool accumulate) {
  if (!out.is_same(self)) out.copy_(self);
  if (index_.numel() == 0) return;
  const Tensor index = index_.to(at::kLong);  // the kernels read int64 positions
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const c10::DeviceGuard guard(self.device());
  check_positions(accumulate ? "scatter_add" : "scatter", index, out, dim);
  const Tensor target = along_index(out, index, dim, true);
  if (!src.defined()) {
    // The value's bits in the dtype's own encoding, passed as an integer of the same size.
    const Tensor encoded = at::empty({}, out.options().device(at::kCPU)).fill_(value);
    const uint64_t bits = static_cast<uint64_t>(encoded.view(bits_type(out)).item().toLong());
    launch_indexed("scatter_strided", bits_options(out) + "-DSRC_SCALAR ", target, target, index,
                   dim_stride_bytes(out, dim), bits);
    return;
  }
  const Tensor source = along_index(src.scalar_type() == out.scalar_type() ? src : src.to(out.scalar_type()), index,
                                    dim, false);
  std::string options = accumulate ? launch::dtype_option("DT", out.scalar_type()) + "-DACCUMULATE " : bits_options(out);
  if (accumulate && out.scalar_type() == at::kLong) options += "-DFOO_INT64_ATOMICS ";
  launch_indexed("scatter_strided", options, target, source, index, dim_stride_bytes(out, dim));
}

// index_add: self[..., index[i], ...] += alpha * source[..., i, ...], as a scatter_add whose index
// repeats index along the other dims.
void index_add_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const c10::Scalar& alpha) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(!c10::isIntegralType(self.scalar_type(), /*includeBool=*/true) || !alpha.isFloatingPoint(),
              "For integral input tensors, argument alpha must not be a floating point number.");
  const Tensor src = source.dim() == 0 ? source.view({1}) : source;
  std::vector<int64_t> shape(std::max<int64_t>(src.dim(), 1), 1);
  shape[dim] = index.numel();
  const Tensor positions = index.to(at::kLong).reshape(shape).expand(src.sizes());
  const Tensor added = alpha.equal(1) ? src : at::mul(src, alpha);
  const Tensor target = out.dim() == 0 ? out.view({1}) : out;
  if (!out.is_same(self)) out.copy_(self);
  scatter_into(target, target, dim, positions, added, 0, true);
}

// As CPU: counts (or summed weights: float32 for float32 weights, float64 otherwise) of each value of
// a 1-d non-negative integer tensor, at least minlength of them (the size needs one wait).
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isIntegralType(self.scalar_type(), /*includeBool=*/false),
                              "\"bincount_cpu\" not implemented for '", c10::toString(self.scalar_type()), "'");
  TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
  const c10::DeviceGuard guard(self.device());
  int64_t lowest = 0, highest = -1;
  if (self.dim() == 1 && self.numel() > 0) {
    const auto [low, high] = at::aminmax(self);
    lowest = low.item<int64_t>();
    highest = high.item<int64_t>();
  }
  TORCH_CHECK(self.dim() == 1 && lowest >= 0, "bincount only supports 1-d non-negative integral inputs.");
  const bool weighted = weights && weights->defined();
  TORCH_CHECK(!weighted || (weights->dim() == 1 && weights->size(0) == self.size(0)),
              "weights should be 1-d and have the same length as input");
  const c10::ScalarType type =
      !weighted ? at::kLong : (weights->scalar_type() == at::kFloat ? at::kFloat : at::kDouble);
  Tensor out = at::zeros({std::max(highest + 1, minlength)}, self.options().dtype(type));
  if (self.numel() == 0) return out;
  const Tensor added = weighted ? weights->to(type) : at::ones({self.size(0)}, out.options());
  scatter_into(out, out, 0, self, added, 0, true);
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("bincount", bincount);
  register_structured_with_self<at::meta::structured_gather, int64_t, const Tensor&, bool>(m, "gather", nullptr,
                                                                                            "gather.out", gather_kernel);
  register_structured_with_self<at::meta::structured_scatter_src, int64_t, const Tensor&, const Tensor&>(
      m, "scatter.src", "scatter_.src", "scatter.src_out",
      [](at::meta::structured_scatter_src& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& src) { scatter_into(op.maybe_get_output(0), self, dim, index, src, 0, false); });
  register_structured_with_self<at::meta::structured_scatter_value, int64_t, const Tensor&, const c10::Scalar&>(
      m, "scatter.value", "scatter_.value", "scatter.value_out",
      [](at::meta::structured_scatter_value& op, const Tensor& self, int64_t dim, const Tensor& index,
         const c10::Scalar& value) { scatter_into(op.maybe_get_output(0), self, dim, index, Tensor(), value, false); });
  register_structured_with_self<at::meta::structured_scatter_add, int64_t, const Tensor&, const Tensor&>(
      m, "scatter_add", "scatter_add_", "scatter_add.out",
      [](at::meta::structured_scatter_add& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& src) { scatter_into(op.maybe_get_output(0), self, dim, index, src, 0, true); });
  register_structured_with_self<at::meta::structured_index_add, int64_t, const Tensor&, const Tensor&,
                                const c10::Scalar&>(
      m, "index_add", "index_add_", "index_add.out",
      [](at::meta::structured_index_add& op, const Tensor& self, int64_t dim, const Tensor& index,
         const Tensor& source, const c10::Scalar& alpha) {
        index_add_kernel(op.maybe_get_output(0), self, dim, index, source, alpha);
      });
}

}  // namespace foo_cl::aten
