// GEMM launches: variant choice from the operands' layouts, tile parameters per device type.
#include "launch/Gemm.h"

#include "launch/Launch.h"
#include "runtime/Device.h"

#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <cstdint>

#include "blas/gemm_shape.h"

namespace foo_cl::launch {
namespace {

// Tile parameters, kept as data: gemm_nn computes TM x (NV * VW) outputs per work-item, gemm_nt
// TM x TN dot products over VW-wide vectors. CPU tiles fill the vector registers without spilling:
// 32 of 16 floats with AVX-512, 16 of 8 with AVX2 (where the AVX-512 tiles ran at 0.6x).
struct GemmTiles {
  int nn_tm, nn_nv, nn_vw;
  int nt_tm, nt_tn, nt_vw;
  int local;  // work-items per group along M
};

constexpr GemmTiles kWideCpuTiles{6, 2, 16, 4, 4, 16, 8};
constexpr GemmTiles kCpuTiles{6, 1, 16, 4, 2, 8, 8};
constexpr GemmTiles kDefaultTiles{4, 1, 4, 2, 2, 4, 16};

const GemmTiles& tiles_for(const runtime::DeviceInfo& info) {
  if (!info.cpu_class) return kDefaultTiles;
  return info.float_vector_width >= 16 ? kWideCpuTiles : kCpuTiles;
}

static_assert(sizeof(foo_gemm_shape) == 15 * sizeof(int64_t), "foo_gemm_shape: 15 int64 fields, no padding");

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::string gemm_tiles_summary(const runtime::DeviceInfo& info) {
  const GemmTiles& t = tiles_for(info);
  const char* table = &t == &kWideCpuTiles ? "wide CPU vectors" : &t == &kCpuTiles ? "CPU vectors" : "GPU";
  return std::string(table) + " tiles: gemm_nn " + std::to_string(t.nn_tm) + "x(" + std::to_string(t.nn_nv) + "x" +
         std::to_string(t.nn_vw) + "), gemm_nt " + std::to_string(t.nt_tm) + "x" + std::to_string(t.nt_tn) +
         " over " + std::to_string(t.nt_vw) + "-wide vectors, " + std::to_string(t.local) + " work-items per group";
}

void launch_gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& d,
                 const c10::Scalar& alpha, const c10::Scalar& beta) {
  TORCH_INTERNAL_ASSERT(out.dim() == 3 && a.dim() == 3 && b.dim() == 3);
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const c10::ScalarType compute = out.scalar_type() == c10::kDouble ? c10::kDouble : c10::kFloat;
  // NOTE: half and bfloat16 operands are widened once, so the kernels only ever see float.
  auto widen = [&](const at::Tensor& t) { return t.scalar_type() == compute ? t : t.to(compute); };
  const at::Tensor result = out.scalar_type() == compute ? out : at::empty(out.sizes(), out.options().dtype(compute));
  at::Tensor A = widen(a), B = widen(b);
  const bool use_d = d.defined() && !beta.equal(0);
  const at::Tensor D = use_d ? widen(d) : result;

  const c10::DeviceIndex device = out.device().index();
  const GemmTiles& tiles = tiles_for(runtime::device_info(device));
  const int64_t M = result.size(1), N = result.size(2), K = A.size(2);
  bool nn = B.stride(2) == 1 || N == 1;
  const bool nt_layout = A.stride(2) == 1 && B.stride(1) == 1;
  if (nt_layout && (!nn || N < tiles.nn_nv * tiles.nn_vw)) nn = false;
  if (!nn && !nt_layout) {
    B = B.contiguous();
    nn = true;
  }
  const int tm = nn ? tiles.nn_tm : tiles.nt_tm;
  // Narrow outputs take fewer vectors per work-item, so fewer columns fall to the element-wise edge.
  const int nv = static_cast<int>(std::clamp<int64_t>(N / tiles.nn_vw, 1, tiles.nn_nv));
  const int tn = nn ? nv * tiles.nn_vw : (N < tiles.nt_tn ? 1 : tiles.nt_tn);
  std::string options = compute_option(compute) + "-DTM=" + std::to_string(tm) + " -DTN=" + std::to_string(tn) +
                        " -DVW=" + std::to_string(nn ? tiles.nn_vw : tiles.nt_vw) +
                        // gemm_nt shares the program but not NV: a fixed NV keeps it one build.
                        " -DNV=" + std::to_string(nn ? nv : tiles.nn_nv);
  const size_t local = static_cast<size_t>(std::min<int64_t>(tiles.local, ceil_div(M, tm)));
  const size_t global[3] = {static_cast<size_t>(ceil_div(ceil_div(M, tm), local)) * local,
                            static_cast<size_t>(ceil_div(N, tn)), static_cast<size_t>(result.size(0))};
  const size_t locals[3] = {local, 1, 1};

  // A work-item at the edge of C loops TM x TN x K times: on a device that ends loops early, K is
  // cut into chunks that stay under its limit, each chunk adding to the last one's result.
  const int64_t limit = runtime::device_info(device).loop_iteration_limit;
  const int64_t k_chunk = limit > 0 ? std::max<int64_t>(1, limit / (tm * tn) - 16) : std::max<int64_t>(K, 1);
  for (int64_t k0 = 0; k0 < std::max<int64_t>(K, 1); k0 += k_chunk) {
    const int64_t k = std::min(k_chunk, K - k0);
    const at::Tensor a_chunk = A.narrow(2, k0, k), b_chunk = B.narrow(1, k0, k);
    const bool first = k0 == 0;
    const at::Tensor& addend = first ? D : result;
    const bool add = first ? use_d : true;
    const foo_gemm_shape shape{M,
                               N,
                               k,
                               a_chunk.stride(1),
                               a_chunk.stride(2),
                               a_chunk.stride(0),
                               b_chunk.stride(1),
                               b_chunk.stride(2),
                               b_chunk.stride(0),
                               result.stride(1),
                               result.stride(2),
                               result.stride(0),
                               add ? addend.stride(1) : 0,
                               add ? addend.stride(2) : 0,
                               add ? addend.stride(0) : 0};
    KernelCall call(device, "blas/gemm", nn ? "gemm_nn" : "gemm_nt", options);
    // With K == 0 the operands are empty and never read: any buffer fills their slots.
    auto operand = [&](const at::Tensor& t) { return t.numel() > 0 ? t.const_data_ptr() : result.const_data_ptr(); };
    call.buffer(result.const_data_ptr()).buffer(operand(a_chunk)).buffer(operand(b_chunk));
    call.buffer(addend.const_data_ptr()).value(shape);
    call.scalar(alpha, compute).scalar(!add ? c10::Scalar(0) : first ? beta : c10::Scalar(1), compute);
    call.launch_nd(global, locals);
  }
  if (!result.is_same(out)) out.copy_(result);
}

}  // namespace foo_cl::launch
