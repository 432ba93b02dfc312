// The "foogloo" c10d backend: gloo moves CPU tensors only, so each collective copies its foo inputs
// to pinned host tensors, runs gloo's collective on them, and when that completes copies the results
// back to foo before completing its own work and future. CPU tensors go to gloo as they are.
#include "distributed/GlooBackend.h"

#include <ATen/ops/empty.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/reducer_timer.hpp>
#include <torch/csrc/utils/pybind.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace foo_cl::distributed {
namespace {

bool on_foo(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::PrivateUse1;
}

at::Tensor pinned_like(const at::Tensor& t) {
  return at::empty(t.sizes(), t.options().device(at::kCPU).pinned_memory(true));
}

// The host side of one collective: host tensors for its foo operands, and which host tensors are
// copied back into which foo tensors when it completes.
class Staging {
 public:
  // A host tensor holding t's values (t itself on the CPU, unless `own` asks for a copy to scale).
  at::Tensor input(const at::Tensor& t, bool own = false) {
    if (!on_foo(t)) return own ? t.clone() : t;
    at::Tensor host = pinned_like(t);
    host.copy_(t);
    return host;
  }

  // A host tensor whose values become t's when the collective completes (t itself on the CPU).
  at::Tensor output(const at::Tensor& t) { return returned(t, on_foo(t) ? pinned_like(t) : t); }

  // Both: the host tensor holds t's values and its results go back to t.
  at::Tensor in_out(const at::Tensor& t) { return returned(t, input(t)); }

  std::vector<at::Tensor> inputs(const std::vector<at::Tensor>& ts, bool own = false) {
    return each(ts, [&](const at::Tensor& t) { return input(t, own); });
  }
  std::vector<at::Tensor> outputs(const std::vector<at::Tensor>& ts) {
    return each(ts, [&](const at::Tensor& t) { return output(t); });
  }
  std::vector<at::Tensor> in_outs(const std::vector<at::Tensor>& ts) {
    return each(ts, [&](const at::Tensor& t) { return in_out(t); });
  }

  // Lists of lists (allgather's outputs, scatter's inputs).
  std::vector<std::vector<at::Tensor>> input_lists(const std::vector<std::vector<at::Tensor>>& lists) {
    std::vector<std::vector<at::Tensor>> out;
    for (const auto& list : lists) out.push_back(inputs(list));
    return out;
  }
  std::vector<std::vector<at::Tensor>> output_lists(const std::vector<std::vector<at::Tensor>>& lists) {
    std::vector<std::vector<at::Tensor>> out;
    for (const auto& list : lists) out.push_back(outputs(list));
    return out;
  }

  // The host outputs, to scale before they are copied back (AVG).
  std::vector<at::Tensor> host_results() const {
    std::vector<at::Tensor> out;
    for (const auto& [host, device] : copies_) out.push_back(host);
    for (const at::Tensor& t : results_) {
      if (!on_foo(t)) out.push_back(t);
    }
    return out;
  }

  std::vector<std::pair<at::Tensor, at::Tensor>> copies_;  // (host, foo)
  std::vector<at::Tensor> results_;

 private:
  // Records t as a result of the collective, copied back from `host` when they differ.
  at::Tensor returned(const at::Tensor& t, at::Tensor host) {
    results_.push_back(t);
    if (on_foo(t)) copies_.emplace_back(host, t);
    return host;
  }

  template <typename Stage>
  static std::vector<at::Tensor> each(const std::vector<at::Tensor>& ts, Stage stage) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : ts) out.push_back(stage(t));
    return out;
  }
};

// A collective's work: completes (future, wait) once gloo's has and the results are back on foo.
class StagedWork final : public c10d::Work {
 public:
  StagedWork(c10::intrusive_ptr<c10d::Work> gloo, Staging staging, std::function<void()> finish)
      : c10d::Work(-1, c10d::OpType::UNKNOWN), gloo_(std::move(gloo)), results_(staging.results_) {
    std::vector<c10::Device> devices;
    for (const auto& [host, device] : staging.copies_) {
      if (std::find(devices.begin(), devices.end(), device.device()) == devices.end()) {
        devices.push_back(device.device());
      }
    }
    future_ = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::ofTensors(), devices);
    // Where the caller's streams are now: the copies back wait for the work queued before the
    // collective (the kernel that zeroed a recv buffer, say).
    const c10::impl::VirtualGuardImpl guard_impl(c10::DeviceType::PrivateUse1);
    auto issued = std::make_shared<std::vector<c10::Event>>();
    for (const c10::Device& d : devices) {
      issued->emplace_back(c10::DeviceType::PrivateUse1);
      issued->back().record(guard_impl.getStream(d));
    }
    complete_ = [future = future_, staging = std::move(staging), finish = std::move(finish), devices,
                 issued](std::exception_ptr error) {
      if (error) {
        future->setError(error);
        return;
      }
      try {
        if (finish) finish();
        // The copies go on a pool stream of each device, after the caller's work up to the collective
        // but not behind what it queued since; the future's events (recorded on these streams by
        // markCompleted) order whoever waits for the results after them.
        const c10::impl::VirtualGuardImpl impl(c10::DeviceType::PrivateUse1);
        std::vector<c10::Stream> streams;
        for (size_t i = 0; i < devices.size(); ++i) {
          streams.push_back(impl.getStreamFromGlobalPool(devices[i]));
          (*issued)[i].block(streams.back());
        }
        const c10::MultiStreamGuard on_copy_streams(streams);
        for (const auto& [host, device] : staging.copies_) device.copy_(host);
        future->markCompleted(c10::IValue(staging.results_));
      } catch (...) {
        future->setError(std::current_exception());
      }
    };
    c10::intrusive_ptr<c10::ivalue::Future> done;
    try {
      done = gloo_->getFuture();
    } catch (const c10::Error&) {
      return;  // gloo's recv and reduce_scatter works have no future: completed when asked (finish_once)
    }
    done->addCallback([complete = complete_](c10::ivalue::Future& f) {
      complete(f.hasError() ? f.exception_ptr() : nullptr);
    });
    once_.reset();
  }

  bool isCompleted() override {
    if (once_ && !future_->completed() && gloo_->isCompleted()) finish_once(gloo_, complete_, once_, ::kNoTimeout);
    return future_->completed();
  }
  bool isSuccess() const override { return future_->completed() && !future_->hasError(); }
  std::exception_ptr exception() const override { return future_->completed() ? future_->exception_ptr() : nullptr; }
  int sourceRank() const override { return gloo_->sourceRank(); }
  std::vector<at::Tensor> result() override { return results_; }
  void synchronize() override { wait(::kNoTimeout); }

  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override {
    if (once_ && !future_->completed() && !waiter_started_.exchange(true)) {
      // A thread of its own waits for a future-less gloo work (not a pool thread: a blocked recv
      // must not hold up other completions).
      std::thread([gloo = gloo_, complete = complete_, once = once_] {
        finish_once(gloo, complete, once, ::kNoTimeout);
      }).detach();
    }
    return future_;
  }

  bool wait(std::chrono::milliseconds timeout) override {
    if (once_) {
      finish_once(gloo_, complete_, once_, timeout);  // gloo's own wait enforces the timeout
    } else if (timeout != ::kNoTimeout) {
      const auto deadline = std::chrono::steady_clock::now() + timeout;
      while (!future_->completed()) {
        if (std::chrono::steady_clock::now() >= deadline) {
          C10_THROW_ERROR(DistBackendError, "foogloo: a collective did not complete within " +
                                                std::to_string(timeout.count()) + " ms");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    future_->waitAndThrow();
    return true;
  }

 private:
  using Completion = std::function<void(std::exception_ptr)>;

  // Waits for a future-less gloo work and completes this one, once, whichever caller comes first.
  static void finish_once(const c10::intrusive_ptr<c10d::Work>& gloo, const Completion& complete,
                          const std::shared_ptr<std::once_flag>& once, std::chrono::milliseconds timeout) {
    std::call_once(*once, [&] {
      std::exception_ptr error;
      try {
        gloo->wait(timeout);
      } catch (...) {
        error = std::current_exception();
      }
      complete(error);
    });
  }

  c10::intrusive_ptr<c10d::Work> gloo_;
  std::vector<at::Tensor> results_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  Completion complete_;
  std::shared_ptr<std::once_flag> once_ = std::make_shared<std::once_flag>();  // null when gloo's work has a future
  std::atomic<bool> waiter_started_{false};
};

// A reduction as gloo runs it: AVG is a SUM divided by the group size afterwards, PREMUL_SUM a SUM
// of inputs multiplied by the factor first.
struct GlooReduction {
  c10d::ReduceOp op;
  bool average = false;
  std::function<void(at::Tensor&)> premultiply;
};

GlooReduction gloo_reduction(const c10d::ReduceOp& op) {
  GlooReduction r{op};
  if (op == c10d::ReduceOp::AVG) {
    r.op = c10d::ReduceOp::SUM;
    r.average = true;
  } else if (op == c10d::ReduceOp::PREMUL_SUM) {
    r.op = c10d::ReduceOp::SUM;
    auto* supplement = dynamic_cast<c10d::PreMulSumSupplement*>(op.supplement_.get());
    TORCH_CHECK(supplement, "foogloo: ReduceOp.PREMUL_SUM without its factor");
    if (supplement->tensor_factor.defined()) {
      const at::Tensor factor = supplement->tensor_factor.cpu();
      r.premultiply = [factor](at::Tensor& t) { t.mul_(factor); };
    } else {
      const double factor = supplement->double_factor;
      r.premultiply = [factor](at::Tensor& t) { t.mul_(factor); };
    }
  }
  return r;
}

void divide(const std::vector<at::Tensor>& tensors, int size) {
  for (at::Tensor t : tensors) {
    if (at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type())) {
      t.div_(size);
    } else {
      t.div_(size, "trunc");
    }
  }
}

class GlooBackend final : public c10d::Backend {
 public:
  explicit GlooBackend(c10::intrusive_ptr<c10d::Backend> gloo)
      : c10d::Backend(gloo->getRank(), gloo->getSize()), gloo_(std::move(gloo)) {}

  const std::string getBackendName() const override { return "foogloo"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override {
    Staging s;
    std::vector<at::Tensor> host = s.in_outs(tensors);
    return staged(gloo_->broadcast(host, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override {
    return reduction(tensors, opts, [&](std::vector<at::Tensor>& host, const c10d::ReduceOp& op) {
      return gloo_->allreduce(host, with_op(opts, op));
    });
  }

  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override {
    return reduction(tensors, opts, [&](std::vector<at::Tensor>& host, const c10d::ReduceOp& op) {
      return gloo_->allreduce_coalesced(host, with_op(opts, op));
    });
  }

  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override {
    const GlooReduction r = gloo_reduction(opts.reduceOp);
    const c10d::ReduceOptions o = with_op(opts, r.op);
    Staging s;
    if (getRank() == opts.rootRank) {
      std::vector<at::Tensor> host = prescaled(s.in_outs(tensors), r);
      return staged(gloo_->reduce(host, o), std::move(s), r.average);
    }
    // Gloo leaves partial results in the other ranks' tensors; as with NCCL, theirs stay as they were.
    std::vector<at::Tensor> host = prescaled(s.inputs(tensors, /*own=*/true), r);
    return staged(gloo_->reduce(host, o), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override {
    Staging s;
    std::vector<at::Tensor> in = s.inputs(inputs);
    std::vector<std::vector<at::Tensor>> out = s.output_lists(outputs);
    return staged(gloo_->allgather(out, in, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override {
    TORCH_CHECK(output.is_contiguous(), "foogloo: all_gather_into_tensor needs a contiguous output");
    TORCH_CHECK(output.numel() == input.numel() * getSize(), "foogloo: all_gather_into_tensor's output has ",
                output.numel(), " elements, not the group size ", getSize(), " times the input's ", input.numel());
    Staging s;
    at::Tensor in = s.input(input), out = s.output(output);
    // NOTE: as NCCL does, the output is rank-major flat memory, whatever its shape.
    std::vector<std::vector<at::Tensor>> chunks{out.view({-1}).chunk(getSize())};
    for (at::Tensor& c : chunks[0]) c = c.view(in.sizes());
    std::vector<at::Tensor> ins{in};
    return staged(gloo_->allgather(chunks, ins, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::AllgatherOptions& opts) override {
    Staging s;
    std::vector<at::Tensor> in = s.inputs(inputs), out = s.outputs(outputs);
    return staged(gloo_->allgather_into_tensor_coalesced(out, in, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) override {
    Staging s;
    std::vector<at::Tensor> in = s.inputs(inputs);
    std::vector<std::vector<at::Tensor>> out = s.output_lists(outputs);
    return staged(gloo_->gather(out, in, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override {
    Staging s;
    std::vector<std::vector<at::Tensor>> in = s.input_lists(inputs);
    std::vector<at::Tensor> out = s.outputs(outputs);
    return staged(gloo_->scatter(out, in, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override {
    const GlooReduction r = gloo_reduction(opts.reduceOp);
    Staging s;
    std::vector<std::vector<at::Tensor>> in;
    for (const auto& list : inputs) in.push_back(scaled_inputs(s, list, r));
    std::vector<at::Tensor> out = s.outputs(outputs);
    return staged(gloo_->reduce_scatter(out, in, with_op(opts, r.op)), std::move(s), r.average);
  }

  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override {
    TORCH_CHECK(input.is_contiguous(), "foogloo: reduce_scatter_tensor needs a contiguous input");
    TORCH_CHECK(input.numel() == output.numel() * getSize(), "foogloo: reduce_scatter_tensor's input has ",
                input.numel(), " elements, not the group size ", getSize(), " times the output's ", output.numel());
    const GlooReduction r = gloo_reduction(opts.reduceOp);
    Staging s;
    at::Tensor in = scaled_inputs(s, {input}, r)[0];
    std::vector<at::Tensor> outs{s.output(output)};
    // NOTE: as NCCL does, the input is rank-major flat memory, whatever its shape.
    std::vector<std::vector<at::Tensor>> chunks{in.reshape({-1}).chunk(getSize())};
    for (at::Tensor& c : chunks[0]) c = c.view(output.sizes());
    return staged(gloo_->reduce_scatter(outs, chunks, with_op(opts, r.op)), std::move(s), r.average);
  }

  c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::ReduceScatterOptions& opts) override {
    const GlooReduction r = gloo_reduction(opts.reduceOp);
    Staging s;
    std::vector<at::Tensor> in = scaled_inputs(s, inputs, r);
    std::vector<at::Tensor> out = s.outputs(outputs);
    return staged(gloo_->reduce_scatter_tensor_coalesced(out, in, with_op(opts, r.op)), std::move(s), r.average);
  }

  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits,
                                               const c10d::AllToAllOptions& opts) override {
    Staging s;
    at::Tensor in = s.input(input), out = s.output(output);
    return staged(gloo_->alltoall_base(out, in, output_splits, input_splits, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override {
    Staging s;
    std::vector<at::Tensor> in = s.inputs(inputs), out = s.outputs(outputs);
    return staged(gloo_->alltoall(out, in, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) override {
    Staging s;
    std::vector<at::Tensor> in = s.inputs(inputs);
    std::vector<std::vector<at::Tensor>> out = s.output_lists(outputs);
    return staged(gloo_->allgather_coalesced(out, in, opts), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) override {
    Staging s;
    std::vector<at::Tensor> host = s.inputs(tensors);
    return gloo_->send(host, dst_rank, tag);  // nothing comes back; gloo's work keeps the host copy
  }

  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) override {
    Staging s;
    std::vector<at::Tensor> host = s.outputs(tensors);
    return staged(gloo_->recv(host, src_rank, tag), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override {
    Staging s;
    std::vector<at::Tensor> host = s.outputs(tensors);
    return staged(gloo_->recvAnysource(host, tag), std::move(s));
  }

  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override { return gloo_->barrier(opts); }

  void monitoredBarrier(const c10d::BarrierOptions& opts, bool wait_all_ranks) override {
    gloo_->monitoredBarrier(opts, wait_all_ranks);
  }

  void setTimeout(std::chrono::milliseconds timeout) override { gloo_->setTimeout(timeout); }
  c10::intrusive_ptr<Options> getBackendOptions() override { return gloo_->getBackendOptions(); }

  void setSequenceNumberForGroup() override { gloo_->setSequenceNumberForGroup(); }
  uint64_t getSequenceNumberForGroup() override { return gloo_->getSequenceNumberForGroup(); }

 private:
  // Runs a reduction over `tensors` (inputs and outputs at once) as gloo can.
  template <typename Options, typename Run>
  c10::intrusive_ptr<c10d::Work> reduction(std::vector<at::Tensor>& tensors, const Options& opts, Run run) {
    const GlooReduction r = gloo_reduction(opts.reduceOp);
    Staging s;
    std::vector<at::Tensor> host = prescaled(s.in_outs(tensors), r);
    return staged(run(host, r.op), std::move(s), r.average);
  }

  static std::vector<at::Tensor> prescaled(std::vector<at::Tensor> host, const GlooReduction& r) {
    if (r.premultiply) {
      for (at::Tensor& t : host) r.premultiply(t);
    }
    return host;
  }

  // Host copies of a reduction's inputs (CPU ones copied too when PREMUL_SUM scales them), scaled.
  static std::vector<at::Tensor> scaled_inputs(Staging& s, const std::vector<at::Tensor>& ts, const GlooReduction& r) {
    return prescaled(s.inputs(ts, bool(r.premultiply)), r);
  }

  // `opts` with the reduction gloo runs.
  template <typename Options>
  static Options with_op(Options opts, const c10d::ReduceOp& op) {
    opts.reduceOp = op;
    return opts;
  }

  c10::intrusive_ptr<c10d::Work> staged(const c10::intrusive_ptr<c10d::Work>& work, Staging s, bool average = false) {
    std::function<void()> finish;
    if (average) {
      finish = [results = s.host_results(), size = getSize()] { divide(results, size); };
    }
    return c10::make_intrusive<StagedWork>(work, std::move(s), std::move(finish));
  }

  c10::intrusive_ptr<c10d::Backend> gloo_;
};

// DDP's step timings (DistributedDataParallel._get_ddp_logging_data) on foo: host times, as on the
// CPU. foo ops are asynchronous, so compute times are the host's enqueueing times; communication
// times are real, collectives waiting for their inputs on the host.
class HostTimer final : public c10d::Timer {
 public:
  explicit HostTimer(c10::Device) {}

  std::optional<int64_t> measureDifference(Event start, Event end) override {
    const int64_t from = getTimeRef(start), to = getTimeRef(end);
    if (from == c10d::kUnsetTime || to == c10d::kUnsetTime || to < from) return std::nullopt;
    return to - from;
  }
};

}  // namespace

void init_bindings(pybind11::module_& m) {
  m.def(
      "_gloo_backend",
      [](c10::intrusive_ptr<c10d::Backend> gloo) -> c10::intrusive_ptr<c10d::Backend> {
        return c10::make_intrusive<GlooBackend>(std::move(gloo));
      },
      "Wraps a ProcessGroupGloo as the foogloo backend for foo tensors");
}

}  // namespace foo_cl::distributed

namespace c10d {
C10_REGISTER_TYPED_CLASS(TimerRegistry, c10::kPrivateUse1, foo_cl::distributed::HostTimer)
}  // namespace c10d
