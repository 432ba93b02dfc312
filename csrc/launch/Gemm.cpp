// GEMM launches: the layout from the operands' strides, the kernel and its tiles from the tuner
// (per device and shape class), K cut into chunks on devices that end long loops early; integer
// products in blas/gemm_exact.
#include "launch/Gemm.h"

#include "launch/Clblast.h"
#include "launch/Launch.h"
#include "runtime/Device.h"
#include "tune/Tuner.h"

#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/FunctionRef.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <mutex>
#include <utility>

#include "blas/gemm_shape.h"

namespace foo_cl::launch {
namespace {

static_assert(sizeof(foo_gemm_shape) == 15 * sizeof(int64_t), "foo_gemm_shape: 15 int64 fields, no padding");

// Products below this many multiply-adds take the default candidate untimed: launch costs dominate them.
constexpr int64_t kTunedMinWork = int64_t(1) << 20;
// The tuner times a class on the operands narrowed to at most this many columns, and to as many
// rows (at least as many) and batches as keep the work near kTimedWork, so timing a 4096-wide
// product takes milliseconds.
constexpr int64_t kTimedSide = 512;
constexpr int64_t kTimedWork = int64_t(1) << 28;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

std::string join(std::initializer_list<std::pair<const char*, int>> params) {
  std::string out;
  for (const auto& [name, value] : params) out += std::string(" ") + name + "=" + std::to_string(value);
  return out;
}

// nn: gemm_nn, TM x (NV * VW) per work-item, K in blocks of KC (0: none), LM x LN work-items a
// group; packed: the same after B is copied into panels of NV * VW columns (any layout of B). nt:
// gemm_nt, TM x TN dot products over VW-wide vectors. local: gemm_local, RM x RN work-items of
// WM x WN outputs.
// CPU-class devices start from register tiles that fill the vector registers without spilling (32
// of 16 floats with AVX-512, 16 of 8 with AVX2), GPU-class ones from small tiles that every device
// runs; the rest of each list is what the tuner may time, most promising first.
std::vector<tune::Candidate> gemm_candidates(const runtime::DeviceInfo& info, bool nn) {
  std::vector<tune::Candidate> out;
  const size_t max_group = info.max_work_group_size;
  auto add_nn = [&](const char* variant, int tm, int nv, int vw, int kc, int lm, int ln) {
    if (static_cast<size_t>(lm * ln) <= max_group) {
      out.push_back(variant + join({{"TM", tm}, {"NV", nv}, {"VW", vw}, {"KC", kc}, {"LM", lm}, {"LN", ln}}));
    }
  };
  auto add_nt = [&](int tm, int tn, int vw, int kc, int lm, int ln) {
    if (static_cast<size_t>(lm * ln) <= max_group) {
      out.push_back("nt" + join({{"TM", tm}, {"TN", tn}, {"VW", vw}, {"KC", kc}, {"LM", lm}, {"LN", ln}}));
    }
  };
  auto add_local = [&](int rm, int rn, int wm, int wn, int kw) {
    const uint64_t bytes = static_cast<uint64_t>(kw) * (rm * wm + rn * wn) * sizeof(double);
    if (static_cast<size_t>(rm * rn) <= max_group && bytes <= info.local_mem_size) {
      out.push_back("local" + join({{"RM", rm}, {"RN", rn}, {"WM", wm}, {"WN", wn}, {"KW", kw}}));
    }
  };
  if (info.cpu_class) {
    const bool wide = info.float_vector_width >= 16;
    const int nv = wide ? 2 : 1;
    if (nn) {
      // NOTE: PoCL keeps a work-item's accumulators in memory across barriers, and with KC's
      // barriers its inner loop stores 8 of them to the stack every iteration: KC=0 runs 1.5-2x faster there.
      add_nn("nn", 6, nv, 16, 0, 8, 1);
      for (int kc : {0, 256}) add_nn("packed", 6, nv, 16, kc, 8, 1);
      for (int kc : {256, 512, 128}) add_nn("nn", 6, nv, 16, kc, 8, 1);
      add_nn("nn", 6, nv, 16, 256, 4, 2);
      add_nn("nn", 6, nv, 16, 256, 16, 1);
      add_nn("nn", 4, 2, 16, 256, 8, 1);
      add_nn("nn", 8, 1, 16, 256, 8, 1);
      add_nn("nn", 4, 4, 8, 256, 8, 1);
      add_nn("nn", 6, 2, 8, 256, 8, 1);
    } else {
      add_nt(4, wide ? 4 : 2, wide ? 16 : 8, 0, 2, 4);
      for (int kc : {0, 256}) add_nn("packed", 6, nv, 16, kc, 8, 1);
      add_nn("packed", 8, 1, 16, 256, 8, 1);  // narrow outputs (N <= 64), as gemm_nn's
      add_nt(4, 4, 16, 0, 8, 1);
      add_nt(4, 4, 16, 512, 2, 4);
      add_nt(4, 4, 8, 0, 8, 1);
      add_nt(2, 4, 16, 0, 8, 1);
      add_nt(4, 2, 8, 0, 4, 2);
    }
    add_local(8, 8, 4, 4, 16);
  } else {
    if (nn) {
      add_nn("nn", 4, 1, 4, 0, std::min<int>(16, static_cast<int>(max_group)), 1);
    } else {
      add_nt(2, 2, 4, 0, std::min<int>(16, static_cast<int>(max_group)), 1);
    }
    add_local(16, 16, 4, 4, 16);
    add_local(8, 8, 4, 4, 16);
    add_local(16, 16, 2, 2, 16);
    add_local(8, 8, 8, 8, 8);
    add_local(16, 8, 4, 8, 16);
    add_local(8, 8, 2, 2, 32);
  }
  // CLBlast comes second where its tuning database is made for (GPUs) and last on CPU-class devices,
  // where it measured 6-10x slower than gemm_nn and its first use builds for seconds.
  // NOTE: CLBlast's kernels loop over K in one work-item, which a device that ends long loops
  // early would cut short without an error.
  if (clblast_available() && info.loop_iteration_limit == 0) {
    out.insert(info.cpu_class ? out.end() : out.begin() + 1, "clblast");
  }
  return out;
}

// gemm_candidates of a device, built at its first product: launch_gemm asks for them at every one.
const std::vector<tune::Candidate>& device_gemm_candidates(c10::DeviceIndex device, bool nn) {
  static std::mutex mutex;
  static std::map<std::pair<c10::DeviceIndex, bool>, std::vector<tune::Candidate>> lists;
  const std::lock_guard<std::mutex> lock(mutex);
  auto [list, added] = lists.try_emplace({device, nn});
  if (added) list->second = gemm_candidates(runtime::device_info(device), nn);
  return list->second;
}

// Loop iterations a work-item of `candidate` runs per unit of K (what a device's loop limit bounds).
int64_t iterations_per_k(const tune::Candidate& candidate) {
  if (tune::is_variant(candidate, "clblast")) return 1;  // never a candidate on such devices
  if (tune::is_variant(candidate, "local")) {
    const int wm = tune::param(candidate, "WM"), wn = tune::param(candidate, "WN");
    // NOTE: llvmpipe counts about 1.1 iterations per product here; twice leaves room for its compiler.
    return 2 * (wm * wn + wm + wn + 4);
  }
  const int tn = tune::param(candidate, "NV") > 0 ? tune::param(candidate, "NV") * tune::param(candidate, "VW")
                                                  : tune::param(candidate, "TN");
  return tune::param(candidate, "TM") * tn;
}

struct Gemm {
  at::Tensor c, a, b, d;  // d: undefined unless added
  c10::Scalar alpha, beta;
  c10::ScalarType compute;
};

foo_gemm_shape shape_of(const Gemm& g) {
  const bool add = g.d.defined();
  return {g.c.size(1),
          g.c.size(2),
          g.a.size(2),
          g.a.stride(1),
          g.a.stride(2),
          g.a.stride(0),
          g.b.stride(1),
          g.b.stride(2),
          g.b.stride(0),
          g.c.stride(1),
          g.c.stride(2),
          g.c.stride(0),
          add ? g.d.stride(1) : 0,
          add ? g.d.stride(2) : 0,
          add ? g.d.stride(0) : 0};
}

// A call of kernel `name` of `program` (built with `options` after COMPUTE) with g's matrices and
// shape as its first arguments (FOO_GEMM_PARAMS up to alpha and beta, which differ per program).
KernelCall operand_call(const Gemm& g, const char* program, const char* name, const std::string& options) {
  KernelCall call(g.c.device().index(), program, name, compute_option(g.compute) + options);
  // With K == 0 the operands are empty and never read: any buffer fills their slots.
  auto operand = [&](const at::Tensor& t) { return t.numel() > 0 ? t.const_data_ptr() : g.c.const_data_ptr(); };
  call.buffer(g.c.const_data_ptr()).buffer(operand(g.a)).buffer(operand(g.b));
  call.buffer(or_unused(g.d, g.c)).value(shape_of(g));
  return call;
}

// One launch of `name` from the program `options` builds, over `global` / `local` work-items, with
// the kernel's arguments after the common ones (`extra`).
void launch_kernel(const Gemm& g, const char* name, const std::string& options, const size_t global[3],
                   const size_t* local, std::initializer_list<int64_t> extra = {}) {
  KernelCall call = operand_call(g, "blas/gemm", name, options);
  call.scalar(g.alpha, g.compute).scalar(g.d.defined() ? g.beta : c10::Scalar(0), g.compute);
  for (int64_t value : extra) call.value(value);
  call.launch_nd(global, local);
}

// B's first `tiles` panels of `width` columns, each panel's K rows one after another (batch x tiles
// x K x width); a batch broadcast along stride 0 is packed once.
at::Tensor pack_panels(const at::Tensor& b, int64_t tiles, int64_t width) {
  const int64_t batch = b.stride(0) == 0 ? 1 : b.size(0), K = b.size(1);
  at::Tensor panels = at::empty({batch, tiles, K, width}, b.options());
  panels.copy_(b.as_strided({batch, tiles, K, width}, {b.stride(0), width * b.stride(2), b.stride(1), b.stride(2)},
                            b.storage_offset()));
  return panels.expand({b.size(0), tiles, K, width});
}

void launch_candidate(const Gemm& g, const tune::Candidate& candidate) {
  const int64_t M = g.c.size(1), N = g.c.size(2);
  const size_t batch = static_cast<size_t>(g.c.size(0));
  auto p = [&](const char* name) { return tune::param(candidate, name); };
  const bool packed = tune::is_variant(candidate, "packed");
  if (tune::is_variant(candidate, "clblast")) {
    // CLBlast adds beta * C: D is copied into C first, and C zeroed without D, whose NaNs beta == 0
    // must ignore.
    if (!g.d.defined()) {
      g.c.zero_();
    } else if (!g.d.is_same(g.c)) {
      g.c.copy_(g.d);
    }
    if (g.a.size(2) > 0) {
      clblast_gemm(g.c, g.a, g.b, g.alpha, g.d.defined() ? g.beta : 0);
    } else if (g.d.defined()) {
      g.c.mul_(g.beta);
    }
  } else if (packed || tune::is_variant(candidate, "nn")) {
    // NOTE: groups of LM rows of tiles even where M needs fewer (their padding skips the products):
    // PoCL compiles a kernel anew for each group size it is launched with, seconds each for these.
    const int tm = p("TM"), vw = p("VW"), lm = p("LM");
    // Narrow outputs take fewer vectors per work-item, so fewer columns fall to the tail.
    const int nv = static_cast<int>(std::clamp<int64_t>(N / vw, 1, p("NV")));
    // A product no deeper than one block needs no barrier.
    const int kc = p("KC") >= g.a.size(2) ? 0 : p("KC");
    auto launch_nn = [&](const Gemm& part, int64_t tiles, int vectors, int ln, bool packed_b, bool tail) {
      const std::string options = join({{"-DTM", tm}, {"-DNV", vectors}, {"-DVW", vw}, {"-DKC", kc},
                                        {"-DPACKED", packed_b}, {"-DTAIL", tail}})
                                      .substr(1);
      const size_t global[3] = {static_cast<size_t>(ceil_div(ceil_div(M, tm), lm) * lm),
                                static_cast<size_t>(ceil_div(tiles, ln) * ln), batch};
      const size_t local[3] = {static_cast<size_t>(lm), static_cast<size_t>(ln), 1};
      // Bands of groups whose rows of A fill an eighth of the device's cache (bytes_per_group each).
      const int64_t groups_m = static_cast<int64_t>(global[0]) / lm;
      const int64_t bytes_per_group = lm * tm * std::max<int64_t>(part.a.size(2), 1) * part.a.element_size();
      const int64_t cache = static_cast<int64_t>(runtime::device_info(part.c.device().index()).global_mem_cache_size);
      const int64_t band = std::clamp<int64_t>(cache / 8 / bytes_per_group, 1, groups_m);
      launch_kernel(part, "gemm_nn", options, global, local, {tiles, band});
    };
    const int64_t tiles = N / (nv * vw), covered = tiles * nv * vw;
    if (tiles > 0) {
      const Gemm panels{g.c, g.a, packed ? pack_panels(g.b, tiles, nv * vw) : g.b, g.d, g.alpha, g.beta, g.compute};
      launch_nn(panels, tiles, nv, p("LN"), packed, false);
    }
    // The columns past the last whole tile: one tile of as many vectors as they need, on B itself.
    if (covered < N) {
      const int64_t width = N - covered;
      auto columns = [&](const at::Tensor& t) { return t.defined() ? t.narrow(2, covered, width) : t; };
      const Gemm tail{columns(g.c), g.a, columns(g.b), columns(g.d), g.alpha, g.beta, g.compute};
      launch_nn(tail, 1, static_cast<int>(ceil_div(width, vw)), 1, false, true);
    }
  } else if (tune::is_variant(candidate, "nt")) {
    const int tm = p("TM"), tn = N < p("TN") ? 1 : p("TN"), lm = p("LM"), ln = p("LN");
    const size_t global[3] = {static_cast<size_t>(ceil_div(ceil_div(M, tm), lm) * lm),
                              static_cast<size_t>(ceil_div(ceil_div(N, tn), ln) * ln), batch};
    const size_t local[3] = {static_cast<size_t>(lm), static_cast<size_t>(ln), 1};
    const int kc = p("KC") >= g.a.size(2) ? 0 : p("KC");
    const std::string options = join({{"-DTM", tm}, {"-DTN", tn}, {"-DVW", p("VW")}, {"-DKC", kc}}).substr(1);
    launch_kernel(g, "gemm_nt", options, global, local);
  } else {
    TORCH_INTERNAL_ASSERT(tune::is_variant(candidate, "local"), "unknown GEMM candidate ", candidate);
    const int rm = p("RM"), rn = p("RN");
    const size_t global[3] = {static_cast<size_t>(ceil_div(M, rm * p("WM")) * rm),
                              static_cast<size_t>(ceil_div(N, rn * p("WN")) * rn), batch};
    const size_t local[3] = {static_cast<size_t>(rm), static_cast<size_t>(rn), 1};
    const std::string options =
        join({{"-DRM", rm}, {"-DRN", rn}, {"-DWM", p("WM")}, {"-DWN", p("WN")}, {"-DKW", p("KW")}}).substr(1);
    launch_kernel(g, "gemm_local", options, global, local);
  }
}

// A work-item loops iterations_per_k x K times: on a device that ends loops early, K is cut into
// chunks that stay under its limit, each chunk adding to the last one's result.
void in_chunks(const Gemm& g, int64_t iterations_per_k, c10::function_ref<void(const Gemm&)> launch) {
  const int64_t K = g.a.size(2);
  const int64_t limit = runtime::device_info(g.c.device().index()).loop_iteration_limit;
  const int64_t chunk = limit > 0 ? std::max<int64_t>(1, limit / iterations_per_k - 16) : std::max<int64_t>(K, 1);
  if (chunk >= K) return launch(g);  // one launch, on the operands as they are
  for (int64_t k0 = 0; k0 < std::max<int64_t>(K, 1); k0 += chunk) {
    const int64_t k = std::min(chunk, K - k0);
    const bool first = k0 == 0;
    launch(Gemm{g.c, g.a.narrow(2, k0, k), g.b.narrow(1, k0, k), first ? g.d : g.c, g.alpha, first ? g.beta : 1,
                g.compute});
  }
}

void run(const Gemm& g, const tune::Candidate& candidate) {
  in_chunks(g, iterations_per_k(candidate), [&](const Gemm& part) { launch_candidate(part, candidate); });
}

// An integer product in blas/gemm_exact, exact as the CPU's (the tiled kernels compute in float).
void launch_exact(const Gemm& g) {
  const int64_t n = g.c.numel();
  KernelCall call = operand_call(g, "blas/gemm_exact", "gemm_exact", index_option(n));
  call.value(g.alpha.toLong()).value(g.d.defined() ? g.beta.toLong() : int64_t(0)).count(n);
  call.launch(n);
}

}  // namespace

std::string gemm_tiles_summary(const runtime::DeviceInfo& info) {
  const char* tuning = tune::mode() == tune::Mode::kOff ? "off (FOO_CL_TUNE=off): defaults" : "per shape class";
  return std::string("tuned ") + tuning + "; defaults '" + gemm_candidates(info, true).front() + "' and '" +
         gemm_candidates(info, false).front() + "', " + std::to_string(gemm_candidates(info, true).size()) + " and " +
         std::to_string(gemm_candidates(info, false).size()) + " candidates";
}

std::vector<std::string> gemm_candidate_list(const runtime::DeviceInfo& info, bool nn) {
  return gemm_candidates(info, nn);
}

void launch_gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& d,
                 const c10::Scalar& alpha, const c10::Scalar& beta) {
  TORCH_INTERNAL_ASSERT(out.dim() == 3 && a.dim() == 3 && b.dim() == 3);
  if (out.numel() == 0) return;
  const c10::DeviceGuard guard(out.device());
  const bool use_d = d.defined() && !beta.equal(0);
  if (c10::isIntegralType(out.scalar_type(), /*includeBool=*/false)) {
    return in_chunks(Gemm{out, a, b, use_d ? d : at::Tensor(), alpha, beta, out.scalar_type()}, 1, launch_exact);
  }
  const c10::ScalarType compute = out.scalar_type() == c10::kDouble ? c10::kDouble : c10::kFloat;
  // NOTE: half and bfloat16 operands are widened once, so the kernels only ever see float.
  auto widen = [&](const at::Tensor& t) { return t.scalar_type() == compute ? t : t.to(compute); };
  const at::Tensor result = out.scalar_type() == compute ? out : at::empty(out.sizes(), out.options().dtype(compute));
  at::Tensor A = widen(a), B = widen(b);

  const int64_t M = result.size(1), N = result.size(2), K = A.size(2), batches = result.size(0);
  bool nn = B.stride(2) == 1 || N == 1;
  const bool nt_layout = A.stride(2) == 1 && B.stride(1) == 1;
  if (nt_layout && (!nn || N < 16)) nn = false;
  if (!nn && !nt_layout) {
    B = B.contiguous();
    nn = true;
  }
  const Gemm gemm{result, A, B, use_d ? widen(d) : at::Tensor(), alpha, beta, compute};

  const c10::DeviceIndex device = out.device().index();
  const std::vector<tune::Candidate>& candidates = device_gemm_candidates(device, nn);
  const std::string shape_class = std::string(compute == c10::kDouble ? "double" : "float") + (nn ? " nn " : " nt ") +
                                  tune::bucket("M", M, 16, kTimedSide) + " " + tune::bucket("N", N, 16, kTimedSide) +
                                  " " + tune::bucket("K", K, 16, 8192);
  const tune::Candidate candidate = tune::choose(
      device, "gemm", shape_class, candidates, M * N * K * batches >= kTunedMinWork, [&](const tune::Candidate& c) {
        const int64_t k = std::max<int64_t>(K, 1), n = std::min(N, kTimedSide);
        const int64_t m = std::min(M, std::max(kTimedSide, kTimedWork / (n * k)));
        const int64_t b = std::clamp<int64_t>(kTimedWork / (m * n * k), 1, batches);
        const at::Tensor scratch = at::empty({b, m, n}, result.options());
        auto part = [&](const at::Tensor& t, int64_t rows, int64_t cols) {
          return t.narrow(0, 0, std::min(b, t.size(0))).narrow(1, 0, rows).narrow(2, 0, cols);
        };
        run(Gemm{scratch, part(A, m, K), part(B, K, n), use_d ? part(gemm.d, m, n) : at::Tensor(), alpha, beta,
                 compute},
            c);
        return scratch;
      });
  run(gemm, candidate);
  if (!result.is_same(out)) out.copy_(result);
}

}  // namespace foo_cl::launch
