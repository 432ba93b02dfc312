// Attention's launches. The composed path: the scores as one product, masked softmax (and dropout)
// in place by a work-group per row (one work-item on CPU devices), and the output as a second
// product; its backward recomputes the scores and turns their gradient around in one elementwise
// launch. The flash path: kernels_cl/attention/flash.cl on the operands where they are (in the
// compute dtype, rows contiguous) and K (and V) transposed. The tuner times the two per direction
// and shape class.
#include "launch/Attention.h"

#include "launch/Gemm.h"
#include "launch/Launch.h"
#include "launch/Random.h"
#include "runtime/Device.h"
#include "tune/Tuner.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/sum.h>
#include <c10/core/DeviceGuard.h>

#include <string>
#include <vector>

namespace foo_cl::launch {
namespace {

using at::Tensor;

// Attention of fewer scores ([BH, L, S]) in all takes the default candidate untimed.
constexpr int64_t kTunedMinScores = int64_t(1) << 18;
// The flash kernels keep BM query rows (and their outputs) per work-item in private arrays.
constexpr int64_t kFlashMaxDim = 256;
// The flash kernels' arguments take up to about 350 bytes: more than the embedded profile's 256.
constexpr uint64_t kFlashParameterBytes = 512;

c10::ScalarType compute_of(const Attention& a) {
  return compute_type(a.q.scalar_type());
}

std::string mask_options(const Attention& a) {
  std::string options = compute_option(compute_of(a));
  if (a.causal) options += "-DCAUSAL ";
  if (a.mask.defined()) options += a.mask.scalar_type() == c10::kBool ? "-DMASK_BOOL " : "-DMASK_ADD ";
  if (a.dropout) options += "-DDROPOUT ";
  return options;
}

// The mask (any buffer when there is none), the heads, L and S, and the mask's element strides.
void mask_args(KernelCall& call, const Attention& a) {
  call.buffer(a.mask.defined() ? a.mask.const_data_ptr() : a.q.const_data_ptr());
  call.value(static_cast<uint64_t>(a.q.size(1))).value(static_cast<uint64_t>(a.q.size(2)));
  call.value(static_cast<uint64_t>(a.k.size(2)));
  for (int d = 0; d < 4; ++d) call.value(static_cast<int64_t>(a.mask.defined() ? a.mask.stride(d) : 0));
}

// The keep probability as the draws compare it (float), and the kept elements' scale in the
// compute dtype, as random/dropout takes them.
void dropout_args(KernelCall& call, const Attention& a) {
  if (!a.dropout) return;
  call.value(a.dropout->state.seed).value(a.dropout->state.offset).value(static_cast<float>(a.dropout->keep));
  call.scalar(a.dropout->keep == 0 ? 0. : 1. / a.dropout->keep, compute_of(a));
}

// ---- The composed path, on [B * H, n, dim] operands

// t [B, H, n, dim] as [B * H, n, dim] (a view where the strides allow, else a copy).
Tensor batched(const Tensor& t) {
  return t.reshape({t.size(0) * t.size(1), t.size(2), t.size(3)});
}

// q k^T * scale: [BH, L, S] in the compute dtype.
Tensor scores_of(const Attention& a, const Tensor& q, const Tensor& k) {
  const Tensor scores = at::empty({q.size(0), q.size(1), k.size(1)}, q.options().dtype(compute_of(a)));
  launch_gemm(scores, q, k.transpose(1, 2), Tensor(), a.scale, 0);
  return scores;
}

void composed_forward(const Attention& a, const Tensor& out, const Tensor& lse) {
  const Tensor scores = scores_of(a, batched(a.q), batched(a.k));
  const int64_t rows = scores.size(0) * scores.size(1);
  if (rows > 0) {
    const runtime::DeviceInfo& info = runtime::device_info(scores.device().index());
    const size_t local = info.row_group_size;
    KernelCall call(scores.device().index(), "attention/attention", "attention_softmax",
                    mask_options(a) + "-DLOCAL_SIZE=" + std::to_string(local) +
                        (local == 1 ? " -DVEC=" + std::to_string(info.vector_width) : ""));
    call.buffer(scores.const_data_ptr()).buffer(lse.const_data_ptr());
    mask_args(call, a);
    call.value(static_cast<uint64_t>(rows));
    dropout_args(call, a);
    call.launch_groups(std::min<int64_t>(rows, static_cast<int64_t>(info.compute_units) * 64), local);
  }
  const Tensor result = dense_output(out);
  launch_gemm(batched(result), scores, batched(a.v), Tensor(), 1, 0);
  copy_back(result, out);
}

AttentionGrads composed_backward(const Attention& a, const Tensor& grad_out, const Tensor& delta, const Tensor& lse,
                                 std::array<bool, 3> wanted, bool with_scores) {
  const Tensor q = batched(a.q), k = batched(a.k), v = batched(a.v), dout = batched(grad_out);
  const Tensor scores = scores_of(a, q, k);
  const Tensor d_scores = at::empty(scores.sizes(), scores.options());
  launch_gemm(d_scores, dout, v.transpose(1, 2), Tensor(), 1, 0);
  // dS from P and dP' in place of the scores and dP' (P' for dV over the scores).
  const int64_t n = scores.numel();
  if (n > 0) {
    KernelCall call(scores.device().index(), "attention/attention", "attention_grad_scores",
                    mask_options(a) + "-DLOCAL_SIZE=1 " + index_option(n));
    call.buffer(scores.const_data_ptr()).buffer(d_scores.const_data_ptr());
    call.buffer(lse.const_data_ptr()).buffer(delta.const_data_ptr());
    mask_args(call, a);
    call.count(n);
    dropout_args(call, a);
    call.launch(a.dropout ? static_cast<int64_t>(philox_tiles(n, 32)) : n);
  }
  AttentionGrads g;
  if (wanted[0]) {
    g.dq = at::empty(a.q.sizes(), a.q.options());
    launch_gemm(batched(g.dq), d_scores, k, Tensor(), a.scale, 0);
  }
  if (wanted[1]) {
    g.dk = at::empty(a.k.sizes(), a.k.options());
    launch_gemm(batched(g.dk), d_scores.transpose(1, 2), q, Tensor(), a.scale, 0);
  }
  if (wanted[2]) {
    g.dv = at::empty(a.v.sizes(), a.v.options());
    launch_gemm(batched(g.dv), scores.transpose(1, 2), dout, Tensor(), 1, 0);
  }
  if (with_scores) g.d_scores = d_scores;
  return g;
}

// ---- The flash path

// The widest vector of at most 16 elements that divides a row of d, 0 for none wider than 1.
int row_vector(int64_t d) {
  for (int w : {16, 8, 4, 2}) {
    if (d % w == 0) return w;
  }
  return 0;
}

bool flash_fits(const Attention& a) {
  const int64_t dqk = a.q.size(3), dv = a.v.size(3);
  return dqk > 0 && dv > 0 && row_vector(dqk) > 0 && row_vector(dv) > 0 && dqk <= kFlashMaxDim && dv <= kFlashMaxDim &&
         a.q.size(2) > 0 && a.k.size(2) > 0;
}

// A flash kernel of `candidate` ("flash BM=4 BN=16") for `units` work units.
KernelCall flash_call(const Attention& a, const tune::Candidate& candidate, const char* name, int64_t units) {
  const int64_t dqk = a.q.size(3), dv = a.v.size(3);
  return KernelCall(a.q.device().index(), "attention/flash", name,
                    mask_options(a) + "-DDQK=" + std::to_string(dqk) + " -DDV=" + std::to_string(dv) +
                        " -DBM=" + std::to_string(tune::param(candidate, "BM")) + " -DBN=" +
                        std::to_string(tune::param(candidate, "BN")) + " -DVQ=" + std::to_string(row_vector(dqk)) +
                        " -DVV=" + std::to_string(row_vector(dv)) + " " + index_option(units));
}

// Element strides along batch, head and row of a [B, H, n, dim] operand (flash.cl's foo_rows).
struct Rows {
  int64_t b, h, row;
};

Rows rows_of(const Tensor& t) {
  return {t.stride(0), t.stride(1), t.stride(2)};
}

// t in the compute dtype with its rows contiguous, as the flash kernels read it: t itself when it is.
Tensor flash_operand(const Tensor& t, c10::ScalarType compute) {
  const Tensor c = t.to(compute);
  return c.stride(3) == 1 ? c : c.contiguous();
}

// t [B, H, S, dim] (a flash_operand) as [BH, dim, padded] with zeros past S.
Tensor transposed_padded(const Attention& a, const tune::Candidate& candidate, const Tensor& t, int64_t padded) {
  const int64_t bh = t.size(0) * t.size(1);
  const Tensor out = at::empty({bh, t.size(3), padded}, t.options());
  const int64_t units = bh * padded / tune::param(candidate, "BN");
  KernelCall call = flash_call(a, candidate, "flash_transpose", units);
  call.buffer(t.const_data_ptr()).value(rows_of(t)).value(static_cast<uint64_t>(t.size(1)));
  call.buffer(out.const_data_ptr()).value(static_cast<uint64_t>(t.size(2))).value(static_cast<uint64_t>(t.size(3)));
  call.value(static_cast<uint64_t>(padded)).count(units);
  call.launch_loops(units);  // a work-item's tiles are BN * dim elements each: spread them over the cores
  return out;
}

// The operands as the flash kernels read them (flash_operand), and K and V transposed ([BH, dim,
// padded]) with zeros past S.
struct FlashOperands {
  Tensor q, k, v, kt, vt;
  int64_t padded;
};

FlashOperands flash_operands(const Attention& a, const tune::Candidate& candidate, bool backward) {
  const c10::ScalarType compute = compute_of(a);
  const int bn = tune::param(candidate, "BN");
  FlashOperands f;
  f.q = flash_operand(a.q, compute);
  f.k = flash_operand(a.k, compute);
  f.v = flash_operand(a.v, compute);
  f.padded = (a.k.size(2) + bn - 1) / bn * bn;
  f.kt = transposed_padded(a, candidate, f.k, f.padded);
  if (backward) f.vt = transposed_padded(a, candidate, f.v, f.padded);
  return f;
}

// The flash kernels' shared trailing arguments.
void flash_args(KernelCall& call, const Attention& a, const FlashOperands& f, int64_t units) {
  mask_args(call, a);
  call.value(static_cast<uint64_t>(f.padded)).scalar(a.scale, compute_of(a)).count(units);
  dropout_args(call, a);
}

int64_t query_blocks(const Attention& a, const tune::Candidate& candidate) {
  const int bm = tune::param(candidate, "BM");
  return a.q.size(0) * a.q.size(1) * ((a.q.size(2) + bm - 1) / bm);
}

void flash_forward(const Attention& a, const tune::Candidate& candidate, const Tensor& out, const Tensor& lse) {
  const FlashOperands f = flash_operands(a, candidate, /*backward=*/false);
  const bool direct = out.scalar_type() == compute_of(a) && out.stride(3) == 1;
  const Tensor result = direct ? out : at::empty(out.sizes(), f.v.options());
  const int64_t units = query_blocks(a, candidate);
  KernelCall call = flash_call(a, candidate, "flash_forward", units);
  call.buffer(f.q.const_data_ptr()).buffer(f.kt.const_data_ptr()).buffer(f.v.const_data_ptr());
  call.buffer(result.const_data_ptr()).buffer(lse.const_data_ptr());
  call.value(rows_of(f.q)).value(rows_of(f.v)).value(rows_of(result));
  flash_args(call, a, f, units);
  call.launch_loops(units);
  copy_back(result, out);
}

AttentionGrads flash_backward(const Attention& a, const tune::Candidate& candidate, const Tensor& grad_out,
                              const Tensor& delta, const Tensor& lse, std::array<bool, 3> wanted) {
  const int bn = tune::param(candidate, "BN");
  const FlashOperands f = flash_operands(a, candidate, /*backward=*/true);
  const Tensor dout = flash_operand(grad_out, compute_of(a));
  // Gradients as at::empty_like lays out their inputs, as the meta functions do: rows contiguous.
  const Tensor dk = at::empty_like(f.k), dv = at::empty_like(f.v);
  const int64_t key_units = a.k.size(0) * a.k.size(1) * f.padded / bn;
  KernelCall kv = flash_call(a, candidate, "flash_grad_key_value", key_units);
  kv.buffer(f.q.const_data_ptr()).buffer(f.kt.const_data_ptr()).buffer(f.vt.const_data_ptr());
  kv.buffer(dout.const_data_ptr()).buffer(lse.const_data_ptr()).buffer(delta.const_data_ptr());
  kv.buffer(dk.const_data_ptr()).buffer(dv.const_data_ptr());
  kv.value(rows_of(f.q)).value(rows_of(dout)).value(rows_of(dk)).value(rows_of(dv));
  flash_args(kv, a, f, key_units);
  kv.launch_loops(key_units);
  AttentionGrads g;
  if (wanted[0]) {
    const Tensor dq = at::empty_like(f.q);
    const int64_t units = query_blocks(a, candidate);
    KernelCall call = flash_call(a, candidate, "flash_grad_query", units);
    call.buffer(f.q.const_data_ptr()).buffer(f.kt.const_data_ptr()).buffer(f.k.const_data_ptr());
    call.buffer(f.vt.const_data_ptr()).buffer(dout.const_data_ptr()).buffer(lse.const_data_ptr());
    call.buffer(delta.const_data_ptr()).buffer(dq.const_data_ptr());
    call.value(rows_of(f.q)).value(rows_of(f.k)).value(rows_of(dout)).value(rows_of(dq));
    flash_args(call, a, f, units);
    call.launch_loops(units);
    g.dq = dq.to(a.q.scalar_type());
  }
  if (wanted[1]) g.dk = dk.to(a.k.scalar_type());
  if (wanted[2]) g.dv = dv.to(a.v.scalar_type());
  return g;
}

// ---- The choice

// The candidates that fit `a`: the composed path alone when the flash kernels cannot take its head dims.
std::vector<tune::Candidate> attention_candidates(const Attention& a) {
  if (!flash_fits(a)) return {"composed"};
  return attention_candidate_list(runtime::device_info(a.q.device().index()));
}

std::string shape_class(const Attention& a, const char* direction) {
  const char* mask = a.causal                             ? "causal"
                     : !a.mask.defined()                  ? "none"
                     : a.mask.scalar_type() == c10::kBool ? "bool"
                                                          : "add";
  return std::string(direction) + " " + c10::toString(a.q.scalar_type()) + " D=" + std::to_string(a.q.size(3)) + "x" +
         std::to_string(a.v.size(3)) + " " + mask + (a.dropout ? " dropout " : " ") +
         tune::bucket("BH", a.q.size(0) * a.q.size(1), 1, 1024) + " " + tune::bucket("L", a.q.size(2), 16, 4096) +
         " " + tune::bucket("S", a.k.size(2), 16, 4096);
}

bool tunable(const Attention& a) {
  return a.q.size(0) * a.q.size(1) * a.q.size(2) * a.k.size(2) >= kTunedMinScores;
}

void forward(const Attention& a, const tune::Candidate& candidate, const Tensor& out, const Tensor& lse) {
  if (tune::is_variant(candidate, "flash")) return flash_forward(a, candidate, out, lse);
  composed_forward(a, out, lse);
}

AttentionGrads backward(const Attention& a, const tune::Candidate& candidate, const Tensor& grad_out,
                        const Tensor& delta, const Tensor& lse, std::array<bool, 3> wanted) {
  if (tune::is_variant(candidate, "flash")) return flash_backward(a, candidate, grad_out, delta, lse, wanted);
  return composed_backward(a, grad_out, delta, lse, wanted, /*with_scores=*/false);
}

}  // namespace

std::vector<std::string> attention_candidate_list(const runtime::DeviceInfo& info) {
  // On CPU-class devices the flash kernels come first (fewer launches and no score matrix: 2.4x
  // faster than the composed path for GPT-style 4 heads of 32 tokens, measured on PoCL), with
  // blocks as wide as AVX-512's registers. Elsewhere the composed path, whose products take the
  // GEMM's local-memory tiles, then small blocks: a GPU work-item's private arrays are registers
  // (and rusticl's llvmpipe took 22 s to build the 4x16 block's kernels, 5 s for 2x8).
  if (info.max_parameter_size < kFlashParameterBytes) return {"composed"};
  if (info.cpu_class) return {"flash BM=4 BN=16", "composed", "flash BM=2 BN=8", "flash BM=8 BN=8"};
  return {"composed", "flash BM=2 BN=8", "flash BM=1 BN=4"};
}

void launch_attention(const Attention& a, const Tensor& out, const Tensor& lse) {
  TORCH_INTERNAL_ASSERT(lse.is_contiguous());
  const c10::DeviceGuard guard(a.q.device());
  const std::string candidate = tune::choose(a.q.device().index(), "attention", shape_class(a, "forward"),
                                             attention_candidates(a), tunable(a), [&](const tune::Candidate& c) {
                                               const Tensor o = at::empty_like(out), l = at::empty_like(lse);
                                               forward(a, c, o, l);
                                               return o;
                                             });
  forward(a, candidate, out, lse);
}

AttentionGrads launch_attention_backward(const Attention& a, const Tensor& grad_out, const Tensor& out,
                                         const Tensor& lse, std::array<bool, 3> wanted, bool d_scores) {
  TORCH_INTERNAL_ASSERT(lse.is_contiguous());
  const c10::DeviceGuard guard(a.q.device());
  const c10::ScalarType compute = compute_of(a);
  const Tensor delta = at::mul(grad_out.to(compute), out.to(compute)).sum(-1).contiguous();
  if (d_scores) return composed_backward(a, grad_out, delta, lse, wanted, /*with_scores=*/true);
  const std::string candidate = tune::choose(a.q.device().index(), "attention_backward", shape_class(a, "backward"),
                                             attention_candidates(a), tunable(a), [&](const tune::Candidate& c) {
                                               const AttentionGrads g =
                                                   backward(a, c, grad_out, delta, lse, {true, true, true});
                                               return at::cat({g.dq.flatten(), g.dk.flatten(), g.dv.flatten()});
                                             });
  return backward(a, candidate, grad_out, delta, lse, wanted);
}

}  // namespace foo_cl::launch
