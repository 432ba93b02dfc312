// Device commands recorded for the profiler: while a trace is on, each kernel launch, copy, read
// and write enqueued on a foo queue gets an OpenCL event, and the trace keeps it with the command's
// name, queue and the correlation id of the operator that enqueued it. Off (the rest of the time),
// an enqueue site pays one relaxed atomic load.
#pragma once

#include "runtime/OpenCL.h"

#include <c10/core/Device.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace foo_cl::runtime {

enum class CommandKind { kernel, copy, read, write };

struct TracedCommand {
  std::string name;
  CommandKind kind;
  c10::DeviceIndex device;
  int64_t queue;            // the stream id
  uint64_t correlation;     // the profiler's id of the operator that enqueued it (0 for none)
  int64_t host_enqueue_ns;  // system clock, nanoseconds since the epoch, just before the enqueue
  cl_event event;           // owned: released by device_times
};

// The command's device start and end on the system clock (nanoseconds since the epoch): its device
// times (CL_PROFILING_COMMAND_*) measured from when it was queued, placed at its host enqueue time.
// Waits for the command and releases its event.
struct DeviceTimes {
  int64_t start_ns, end_ns;
};
DeviceTimes device_times(TracedCommand& command);

namespace detail {
extern std::atomic<bool> tracing;
}

inline bool tracing() {
  return detail::tracing.load(std::memory_order_relaxed);
}

// Starts recording (dropping anything an earlier trace left); stop_trace ends it and hands over
// what it recorded.
void start_trace();
std::vector<TracedCommand> stop_trace();

// The correlation ids of the operators running on this thread (the profiler pushes one per operator).
void push_correlation(uint64_t id);
void pop_correlation();

// Around one enqueue: pass event() as the command's event argument (nullptr unless tracing).
class CommandTrace {
 public:
  CommandTrace(c10::DeviceIndex device, std::string_view name, CommandKind kind);
  CommandTrace(const CommandTrace&) = delete;
  CommandTrace& operator=(const CommandTrace&) = delete;
  ~CommandTrace();
  cl_event* event() { return active_ ? &event_ : nullptr; }

 private:
  bool active_;
  c10::DeviceIndex device_;
  std::string name_;
  CommandKind kind_;
  int64_t host_enqueue_ns_ = 0;
  cl_event event_ = nullptr;
};

}  // namespace foo_cl::runtime
