// Reduction launches: kept and reduced dims collapsed into two layouts, slices sized to the device,
// work-group size (or vector width on CPU devices) from the tuner.
#include "launch/Reduce.h"

#include "launch/Launch.h"
#include "runtime/Device.h"
#include "tune/Tuner.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <array>
#include <vector>

namespace foo_cl::launch {
namespace {

struct Dim {
  int64_t size;
  std::array<int64_t, 3> strides;  // bytes: input, output, index output
};

// Merges neighbours (outer, inner) that walk memory as one dim in every operand; keeps row-major order.
std::vector<Dim> collapse(const std::vector<Dim>& dims) {
  std::vector<Dim> out;
  for (const Dim& d : dims) {
    if (!out.empty()) {
      Dim& outer = out.back();
      bool mergeable = true;
      for (int a = 0; a < 3; ++a) mergeable &= outer.strides[a] == d.strides[a] * d.size;
      if (mergeable) {
        outer.size *= d.size;
        outer.strides = d.strides;
        continue;
      }
    }
    out.push_back(d);
  }
  return out;
}

// The layout of kernels_cl/reduce/reduce.clh, fastest dim first (a full reduction's kept layout: one dim of size 1).
StridedLayout to_layout(const std::vector<Dim>& dims) {
  StridedLayout layout;
  layout.size[0] = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const Dim& d = dims[dims.size() - 1 - i];
    layout.size[i] = d.size;
    for (int a = 0; a < 3; ++a) layout.stride[a][i] = d.strides[a];
  }
  return layout;
}

// Whether one launch's arguments hold the kept layout (sizes and three operands' strides, at least
// one dim) and the reduced one (sizes and the input's strides).
bool layouts_fit(c10::DeviceIndex device, size_t kept_dims, size_t reduced_dims) {
  if (kept_dims > kMaxDims || reduced_dims > kMaxDims) return false;
  return sizeof(int64_t) * (4 * std::max<size_t>(kept_dims, 1) + 2 * reduced_dims) <= layout_room(device);
}

int64_t product(const std::vector<Dim>& dims) {
  int64_t n = 1;
  for (const Dim& d : dims) n *= d.size;
  return n;
}

// The kernels_cl program of a reduction, the build options of its variant, whether it is
// REDUCE_VECTOR_SAFE (reduce/reduce.clh: vectors along contiguous runs on CPU devices), and whether
// it takes REDUCE_ARG_LANES there instead (argmax and friends, on floating inputs).
struct Program {
  const char* key;
  const char* options;
  bool vector_safe = false;
  bool arg_lanes = false;
};

Program program(Reduction reduction) {
  switch (reduction) {
    case Reduction::kSum:
      return {"reduce/sum", "", true};
    case Reduction::kMean:
      return {"reduce/sum", "-DMEAN", true};
    case Reduction::kProd:
      return {"reduce/prod", "", true};
    case Reduction::kNansum:
      return {"reduce/nansum", "", true};
    case Reduction::kAmax:
      return {"reduce/amax", "", true};
    case Reduction::kAmin:
      return {"reduce/amin", "", true};
    case Reduction::kArgmax:
      return {"reduce/argmax", "", false, true};
    case Reduction::kArgmin:
      return {"reduce/argmax", "-DARGMIN", false, true};
    case Reduction::kMax:
      return {"reduce/argmax", "-DWITH_VALUES", false, true};
    case Reduction::kMin:
      return {"reduce/argmax", "-DWITH_VALUES -DARGMIN", false, true};
    case Reduction::kAll:
      return {"reduce/all", ""};
    case Reduction::kAny:
      return {"reduce/any", ""};
    case Reduction::kCountNonzero:
      return {"reduce/count_nonzero", ""};
    case Reduction::kNorm:
      return {"reduce/norm", ""};
    case Reduction::kNorm0:
      return {"reduce/norm", "-DNORM_ZERO"};
    case Reduction::kNorm1:
      return {"reduce/norm", "-DNORM_1", true};
    case Reduction::kNorm2:
      return {"reduce/norm", "-DNORM_2", true};
    case Reduction::kNormInf:
      return {"reduce/norm", "-DNORM_INF"};
    case Reduction::kNormNegInf:
      return {"reduce/norm", "-DNORM_NEG_INF"};
    case Reduction::kVar:
      return {"reduce/var", ""};
    case Reduction::kStd:
      return {"reduce/var", "-DSTD"};
  }
  TORCH_INTERNAL_ASSERT(false, "unknown reduction");
}

// The largest power of two up to 256 dividing n: which of column_candidates fit, for shape classes.
int64_t alignment(int64_t n) {
  int64_t a = 1;
  while (a < 256 && n % (2 * a) == 0) a *= 2;
  return a;
}

constexpr size_t kPartialBytes = 64;  // room for any accumulator struct of kernels_cl/reduce

}  // namespace

// reduce_columns' candidates for `columns` outputs along the contiguous kept dim, those whose
// width W divides it, the default first: on CPU devices blocks of vector registers over slices long
// enough to stream a few lines per row (ops without vector forms: one block of 16 scalars), elsewhere
// narrow ones so that neighbouring work-items' reads coalesce.
std::vector<tune::Candidate> column_candidates(c10::DeviceIndex device, int64_t columns, bool vector_safe) {
  const runtime::DeviceInfo& info = runtime::device_info(device);
  struct Shape {
    int width, vector, rows;
  };
  const int v = info.vector_width;
  std::vector<Shape> shapes;
  if (!info.cpu_class) {
    shapes = {{4, 4, 64}, {1, 1, 64}, {16, 16, 64}, {4, 4, 256}};
  } else if (vector_safe) {
    shapes = {{8 * v, v, 256}, {v, v, 64}, {4 * v, v, 128}, {16 * v, v, 512}};
  } else {
    shapes = {{16, 1, 64}};
  }
  std::vector<tune::Candidate> out;
  for (const Shape& s : shapes) {
    if (columns % s.width != 0) continue;
    out.push_back("W=" + std::to_string(s.width) + " V=" + std::to_string(vector_safe ? s.vector : 1) +
                  " R=" + std::to_string(s.rows));
  }
  return out;
}

void launch_reduce(const at::Tensor& self, const at::Tensor& out, const at::Tensor& indices, c10::IntArrayRef dims,
                   bool keepdim, const ReduceOp& op) {
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(self.device());
  const int64_t ndim = self.dim();
  std::vector<bool> reduced(ndim, dims.empty());
  for (int64_t d : dims) {
    if (d < ndim) reduced[d] = true;  // a 0-dim tensor's dim 0 names no real dim
  }

  const int64_t in_size = self.element_size(), out_size = out.element_size();
  std::vector<Dim> kept, red;
  int64_t out_dim = 0;
  for (int64_t d = 0; d < ndim; ++d) {
    const bool is_reduced = reduced[d];
    const int64_t od = (keepdim || !is_reduced) ? out_dim++ : -1;
    if (self.size(d) == 1) continue;
    if (is_reduced) {
      red.push_back({self.size(d), {self.stride(d) * in_size, 0, 0}});
    } else {
      kept.push_back(
          {self.size(d),
           {self.stride(d) * in_size, out.stride(od) * out_size, indices.defined() ? indices.stride(od) * 8 : 0}});
    }
  }
  kept = collapse(kept);
  red = collapse(red);
  if (red.empty()) red.push_back({1, {0, 0, 0}});
  const int64_t n_out = product(kept), n_red = product(red);
  const c10::DeviceIndex device = self.device().index();

  if (!layouts_fit(device, kept.size(), red.size())) {
    // More interleaved groups of kept and reduced dims than one launch takes: reduce a copy laid
    // out [kept..., reduced...] (one group each; the reduced dims keep their order, so indices
    // within them are unchanged) into dense results, then copy those out.
    std::vector<int64_t> order;
    for (int64_t d = 0; d < ndim; ++d) {
      if (!reduced[d]) order.push_back(d);
    }
    for (int64_t d = 0; d < ndim; ++d) {
      if (reduced[d]) order.push_back(d);
    }
    const at::Tensor rows = self.permute(order).reshape({n_out, n_red});
    const at::Tensor dense_out = at::empty({n_out}, out.options());
    const at::Tensor dense_indices = indices.defined() ? at::empty({n_out}, indices.options()) : at::Tensor();
    launch_reduce(rows, dense_out, dense_indices, {1}, false, op);
    out.copy_(dense_out.view(out.sizes()));
    if (indices.defined()) indices.copy_(dense_indices.view(indices.sizes()));
    return;
  }

  const Program prog = program(op.reduction);
  const runtime::DeviceInfo& info = runtime::device_info(device);
  const StridedLayout kept_layout = to_layout(kept), red_layout = to_layout(red);
  const int kdims = static_cast<int>(kept.size()), rdims = static_cast<int>(red.size());
  // The kept layout's rank (KDIM): the most dims where the layouts fit the device's argument limit,
  // passed as dims of size 1 past the collapsed rank, so one program serves every kept rank. The
  // reduced layout keeps its collapsed rank (RDIM): element offsets are computed per element there,
  // and size-1 dims made var(1) of 4096x4096 7x slower on PoCL.
  const int kept_dims = layouts_fit(device, kMaxDims, rdims) ? kMaxDims : kdims, red_dims = rdims;
  const std::string options = dtype_option("IN0", self.scalar_type()) + dtype_option("OUT", out.scalar_type()) +
                              compute_option(op.compute) + "-DKDIM=" + std::to_string(kept_dims) +
                              " -DRDIM=" + std::to_string(red_dims) + " " + prog.options;
  const std::array<c10::Scalar, 2> params = {op.params.size() > 0 ? op.params[0] : c10::Scalar(0),
                                             op.params.size() > 1 ? op.params[1] : c10::Scalar(0)};
  // Combines each output's per-slice accumulators (stored output-major) into the output.
  auto finish_partials = [&](const std::string& build, const at::Tensor& partial, int64_t slices,
                             const at::Tensor& values, const void* out2) {
    KernelCall finish(device, prog.key, "reduce_partials", build);
    finish.buffer(values.const_data_ptr()).buffer(out2).layout(kept_layout, kdims, 3, kept_dims);
    finish.value(static_cast<cl_ulong>(n_out)).value(static_cast<cl_uint>(slices));
    finish.scalar(params[0], op.compute);
    finish.scalar(params[1], op.compute);
    finish.buffer(partial.const_data_ptr());
    finish.launch(n_out);
  };

  // The accumulators of `slices` slices per output, none for one slice (its kernel writes the output).
  auto partials_for = [&](int64_t slices) {
    return slices > 1
               ? at::empty({n_out * slices * static_cast<int64_t>(kPartialBytes)}, self.options().dtype(at::kByte))
               : at::Tensor();
  };
  // The slicing kernels' arguments after their tensors: the layouts, sizes and slices, the op's
  // parameters, and where a slice's result goes (`partial`, or the output `values`).
  auto slice_args = [&](KernelCall& call, int64_t slices, int64_t chunk, const at::Tensor& partial,
                        const at::Tensor& values) {
    call.layout(kept_layout, kdims, 3, kept_dims).layout(red_layout, rdims, 1, red_dims);
    call.value(static_cast<cl_ulong>(n_out)).value(static_cast<cl_ulong>(n_red));
    call.value(static_cast<cl_uint>(slices)).value(static_cast<cl_ulong>(chunk));
    call.scalar(params[0], op.compute);
    call.scalar(params[1], op.compute);
    call.buffer(or_unused(partial, values));
  };

  // Outer reductions of a contiguous fastest kept dim (no index output): a work-item takes W
  // neighbouring outputs, V at a time, over slices of R reduced elements (reduce_columns).
  const std::vector<tune::Candidate> columns = !indices.defined() && !kept.empty() &&
                                                       kept.back().strides[0] == in_size &&
                                                       self.scalar_type() == op.compute && self.numel() > 0
                                                   ? column_candidates(device, kept.back().size, prog.vector_safe)
                                                   : std::vector<tune::Candidate>{};
  if (!columns.empty()) {
    auto launch_columns = [&](const tune::Candidate& candidate, const at::Tensor& values) {
      const int64_t width = tune::param(candidate, "W"), rows = tune::param(candidate, "R");
      const std::string build = options + " -DLOCAL_SIZE=1 -DCOLUMNS=" + std::to_string(width) +
                                " -DCVEC=" + std::to_string(tune::param(candidate, "V"));
      const int64_t slices = (n_red + rows - 1) / rows, chunk = (n_red + slices - 1) / slices;
      const at::Tensor partial = partials_for(slices);
      KernelCall call(device, prog.key, "reduce_columns", build);
      call.buffer(values.const_data_ptr()).buffer(self.const_data_ptr());
      slice_args(call, slices, chunk, partial, values);
      call.launch(n_out / width * slices);
      if (partial.defined()) finish_partials(build, partial, slices, values, values.const_data_ptr());
    };
    const std::string shape_class =
        std::string(prog.key) + (*prog.options ? " " : "") + prog.options + " " + c10::toString(self.scalar_type()) +
        " align=" + std::to_string(alignment(kept.back().size)) + " " + tune::bucket("out", n_out, 16, 1 << 20) + " " +
        tune::bucket("red", n_red, 16, 1 << 24);
    const bool tunable = self.numel() >= kTunedMinRowElements && out.is_non_overlapping_and_dense();
    const tune::Candidate candidate =
        tune::choose(device, "reduce_columns", shape_class, columns, tunable, [&](const auto& c) {
          const at::Tensor values = at::empty_strided(out.sizes(), out.strides(), out.options());
          launch_columns(c, values);
          return values;
        });
    launch_columns(candidate, out);
    return;
  }

  // Slices of an output's reduced elements, a work-group each, as `candidate` ("L=1 VEC=16" on CPU
  // devices, vectors along runs of the fastest reduced dim where it is contiguous and long enough
  // to pay for a run's offset; "L=128" elsewhere) into `values` and `positions`.
  constexpr int64_t kMinVectorRun = 64;
  const Dim& fastest = red.back();  // row-major: the last reduced dim is the layout's dim 0
  const bool vectorized = info.cpu_class &&
                          (prog.vector_safe || (prog.arg_lanes && c10::isFloatingType(self.scalar_type()))) &&
                          fastest.strides[0] == in_size && (red.size() == 1 || fastest.size >= kMinVectorRun) &&
                          self.scalar_type() == op.compute;
  auto launch_slices = [&](const tune::Candidate& candidate, const at::Tensor& values, const at::Tensor& positions) {
    const int64_t local = tune::param(candidate, "L");
    std::string build = options + " -DLOCAL_SIZE=" + std::to_string(local);
    const int vec = tune::param(candidate, "VEC");
    if (vectorized && vec > 0) build += " -DVEC=" + std::to_string(vec);
    const int64_t wanted_groups =
        static_cast<int64_t>(std::max<uint32_t>(info.compute_units, 1)) * (info.cpu_class ? 8 : 4);
    const int64_t min_chunk = info.cpu_class ? 4096 : local * 16;
    const int64_t slices =
        std::max<int64_t>(1, std::min((wanted_groups + n_out - 1) / n_out, (n_red + min_chunk - 1) / min_chunk));
    const int64_t chunk = (n_red + slices - 1) / slices;
    const int64_t groups = std::min<int64_t>(n_out * slices, static_cast<int64_t>(info.compute_units) * 64);
    const void* out2 = positions.defined() ? positions.const_data_ptr() : values.const_data_ptr();
    const at::Tensor partial = partials_for(slices);
    KernelCall call(device, prog.key, "reduce_slices", build);
    // An empty input is never read (each output is its reduction's identity): any buffer fills the slot.
    call.buffer(values.const_data_ptr()).buffer(out2);
    call.buffer(self.numel() > 0 ? self.const_data_ptr() : values.const_data_ptr());
    slice_args(call, slices, chunk, partial, values);
    call.launch_groups(groups, local);
    if (partial.defined()) finish_partials(build, partial, slices, values, out2);
  };
  // Timing writes into tensors of the outputs' strides, which the kept layout addresses.
  const bool tunable = self.numel() >= kTunedMinRowElements && out.is_non_overlapping_and_dense() &&
                       (!indices.defined() || indices.is_non_overlapping_and_dense());
  const std::string shape_class = std::string(prog.key) + (*prog.options ? " " : "") + prog.options + " " +
                                  c10::toString(self.scalar_type()) + (vectorized ? " runs " : " strided ") +
                                  tune::bucket("out", n_out, 1, 1 << 20) + " " +
                                  tune::bucket("red", n_red, 16, 1 << 24);
  const std::vector<tune::Candidate> candidates = row_candidates(info, vectorized);
  const tune::Candidate candidate =
      tune::choose(device, "reduce", shape_class, candidates, tunable, [&](const auto& c) {
        const at::Tensor values = at::empty_strided(out.sizes(), out.strides(), out.options());
        const at::Tensor positions =
            indices.defined() ? at::empty_strided(indices.sizes(), indices.strides(), indices.options()) : at::Tensor();
        launch_slices(c, values, positions);
        return positions.defined() ? positions : values;
      });
  launch_slices(candidate, out, indices);
}

}  // namespace foo_cl::launch
