// The profiler's record of device commands.
#include "runtime/Trace.h"

#include "runtime/QueuePool.h"

#include <c10/util/Exception.h>

#include <chrono>
#include <mutex>

namespace foo_cl::runtime {
namespace detail {
std::atomic<bool> tracing{false};
}

namespace {

std::mutex trace_mutex;
std::vector<TracedCommand>& trace() {
  static std::vector<TracedCommand> commands;
  return commands;
}

std::vector<uint64_t>& correlations() {
  thread_local std::vector<uint64_t> stack;
  return stack;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void release(std::vector<TracedCommand>& commands) {
  for (TracedCommand& c : commands) {
    if (c.event) clReleaseEvent(c.event);
  }
  commands.clear();
}

}  // namespace

void start_trace() {
  const std::lock_guard<std::mutex> lock(trace_mutex);
  release(trace());
  detail::tracing.store(true);
}

std::vector<TracedCommand> stop_trace() {
  const std::lock_guard<std::mutex> lock(trace_mutex);
  detail::tracing.store(false);
  return std::move(trace());
}

void push_correlation(uint64_t id) {
  correlations().push_back(id);
}

void pop_correlation() {
  if (!correlations().empty()) correlations().pop_back();
}

DeviceTimes device_times(TracedCommand& command) {
  cl_ulong queued = 0, start = 0, end = 0;
  const cl_int wait = clWaitForEvents(1, &command.event);
  if (wait == CL_SUCCESS) {
    clGetEventProfilingInfo(command.event, CL_PROFILING_COMMAND_QUEUED, sizeof(queued), &queued, nullptr);
    clGetEventProfilingInfo(command.event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
    clGetEventProfilingInfo(command.event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
  }
  clReleaseEvent(command.event);
  command.event = nullptr;
  if (wait != CL_SUCCESS || start < queued || end < start) return {command.host_enqueue_ns, command.host_enqueue_ns};
  const int64_t begin = command.host_enqueue_ns + static_cast<int64_t>(start - queued);
  return {begin, begin + static_cast<int64_t>(end - start)};
}

CommandTrace::CommandTrace(c10::DeviceIndex device, std::string_view name, CommandKind kind)
    : active_(tracing()), device_(device), kind_(kind) {
  if (!active_) return;
  name_ = name;
  host_enqueue_ns_ = now_ns();
}

CommandTrace::~CommandTrace() {
  if (!event_) return;  // not tracing, or the enqueue failed
  const std::vector<uint64_t>& stack = correlations();
  TracedCommand command{std::move(name_), kind_, device_, current_stream_id(device_), stack.empty() ? 0 : stack.back(),
                        host_enqueue_ns_, event_};
  const std::lock_guard<std::mutex> lock(trace_mutex);
  if (detail::tracing.load()) {
    trace().push_back(std::move(command));
  } else {
    clReleaseEvent(event_);  // the trace stopped meanwhile
  }
}

}  // namespace foo_cl::runtime
