// foo in torch.profiler. Kineto (torch.profiler.profile with ProfilerActivity.PrivateUse1) gets a
// child profiler whose sessions turn on the command trace (runtime/Trace.h) and hand Kineto each
// kernel and copy with its device times, linked to the operator that enqueued it. The legacy
// profiler (torch.autograd.profiler.profile(use_device="foo")) gets ProfilerStubs: an event on the
// current stream at each operator's start and end, whose difference is the operator's device time.
// Kineto's headers are compiled in only where USE_KINETO is defined (torch's wheel is built with it).
#define USE_KINETO
#define KINETO_NAMESPACE libkineto

#include "runtime/Device.h"
#include "runtime/Event.h"
#include "runtime/QueuePool.h"
#include "runtime/Trace.h"

#include <c10/util/ApproximateClock.h>
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>
#include <torch/csrc/profiler/stubs/base.h>

#include <libkineto.h>
#include <output_base.h>

#include <set>

namespace foo_cl::runtime {
namespace {

using libkineto::ActivityType;

libkineto::ActivityType activity_type(CommandKind kind) {
  return kind == CommandKind::kernel ? ActivityType::CONCURRENT_KERNEL : ActivityType::GPU_MEMCPY;
}

class TraceSession final : public libkineto::IActivityProfilerSession {
 public:
  void start() override { start_trace(); }
  void stop() override { commands_ = stop_trace(); }
  std::vector<std::string> errors() override { return {}; }

  void processTrace(libkineto::ActivityLogger& logger) override { processTrace(logger, nullptr, 0, 0); }

  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked, int64_t,
                    int64_t) override {
    // NOTE: the logger keeps pointers to the activities: they live in buffer_, which Kineto takes
    // over through getTraceBuffer.
    buffer_ = std::make_unique<libkineto::CpuTraceBuffer>();
    for (TracedCommand& command : commands_) {
      const DeviceTimes times = device_times(command);
      buffer_->emplace_activity(buffer_->span, activity_type(command.kind), command.name);
      libkineto::GenericTraceActivity& activity = *buffer_->activities.back();
      activity.startTime = times.start_ns;
      activity.endTime = times.end_ns;
      activity.id = static_cast<int32_t>(command.correlation);
      activity.device = command.device;
      activity.resource = static_cast<int32_t>(command.queue);
      activity.linked = linked && command.correlation ? linked(static_cast<int32_t>(command.correlation)) : nullptr;
      activity.addMetadataQuoted("device", "foo:" + std::to_string(command.device));
      logger.handleActivity(activity);
    }
    commands_.clear();
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    return std::make_unique<libkineto::DeviceInfo>(libkineto::DeviceInfo{0, libkineto::kExceedMaxPid, "foo", "foo"});
  }
  std::vector<libkineto::ResourceInfo> getResourceInfos() override { return {}; }
  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return std::move(buffer_); }

  void pushCorrelationId(uint64_t id) override { push_correlation(id); }
  void popCorrelationId() override { pop_correlation(); }

 private:
  std::vector<TracedCommand> commands_;
  std::unique_ptr<libkineto::CpuTraceBuffer> buffer_;
};

class ActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }
  const std::set<ActivityType>& availableActivities() const override { return activities_; }

  // Traces only when device activities were asked for (a CPU-only profile records nothing here).
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<ActivityType>& types,
                                                                 const libkineto::Config&) override {
    if (!types.count(ActivityType::CONCURRENT_KERNEL) || device_count() == 0) return nullptr;
    return std::make_unique<TraceSession>();
  }
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t, int64_t,
                                                                 const std::set<ActivityType>& types,
                                                                 const libkineto::Config& config) override {
    return configure(types, config);
  }

 private:
  std::string name_ = "foo";
  std::set<ActivityType> activities_{ActivityType::CONCURRENT_KERNEL, ActivityType::GPU_MEMCPY};
};

REGISTER_PRIVATEUSE1_PROFILER(ActivityProfiler);

// NOTE: the legacy profiler calls record() around every operator, also CPU ones, and a throw
// there breaks the whole profile: failures give no event (no device time) instead.
struct LegacyStubs final : torch::profiler::impl::ProfilerStubs {
  void record(c10::DeviceIndex* device, torch::profiler::impl::ProfilerVoidEventStub* event,
              int64_t* cpu_ns) const override {
    try {
      if (device_count() == 0) return;
      const c10::DeviceIndex index = current_device();
      auto marker = std::make_shared<Event>(index);
      marker->record(c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, index),
                                 current_stream_id(index)));
      if (device) *device = index;
      if (cpu_ns) *cpu_ns = c10::getTime();
      *event = std::move(marker);
    } catch (const std::exception&) {
    }
  }

  float elapsed(const torch::profiler::impl::ProfilerVoidEventStub* start,
                const torch::profiler::impl::ProfilerVoidEventStub* end) const override {
    try {
      if (!start || !end || !*start || !*end) return 0;
      const auto& a = *std::static_pointer_cast<Event>(*start);
      const auto& b = *std::static_pointer_cast<Event>(*end);
      if (a.device() != b.device()) return 0;
      return static_cast<float>(a.elapsed_ms(b) * 1000);
    } catch (const std::exception&) {
      return 0;
    }
  }

  bool enabled() const override { return true; }
  void mark(const char*) const override {}
  void rangePush(const char*) const override {}
  void rangePop() const override {}
  void onEachDevice(std::function<void(int)> op) const override {
    for (c10::DeviceIndex d = 0; d < device_count(); ++d) op(d);
  }
  void synchronize() const override {
    for (c10::DeviceIndex d = 0; d < device_count(); ++d) synchronize_device(d);
  }
};

const bool legacy_stubs_registered = [] {
  static LegacyStubs stubs;
  torch::profiler::impl::registerPrivateUse1Methods(&stubs);
  return true;
}();

}  // namespace
}  // namespace foo_cl::runtime
