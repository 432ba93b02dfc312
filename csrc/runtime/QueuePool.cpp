// Command queues for each device, created lazily, kept for the life of the process (like CUDA streams).
#include "runtime/QueuePool.h"

#include "runtime/Device.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace foo_cl::runtime {
namespace {

struct QueueState {
  explicit QueueState(cl_command_queue q) : queue(q) {}
  cl_command_queue queue;
  std::mutex mutex;
  std::atomic<uint64_t> submitted{0};  // commands enqueued through current_queue
  std::atomic<bool> shared{false};     // handed to another library, whose commands are not counted
  uint64_t finished = 0;               // of those, how many are known to be complete
  cl_event marker = nullptr;           // enqueued by query_stream after `marker_at` commands
  uint64_t marker_at = 0;
};

cl_command_queue create_queue(c10::DeviceIndex device) {
  const DeviceInfo& info = device_info(device);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(info.context, info.id, CL_QUEUE_PROFILING_ENABLE, &err);
  FOO_CL_CHECK(err);
  return q;
}

constexpr size_t kMaxStreams = 1024;

// Queues are only appended, within a capacity reserved up front, so a stream id below `count`
// can be looked up without the lock (the lookup happens on every kernel launch).
struct DeviceQueues {
  DeviceQueues() { queues.reserve(kMaxStreams); }
  std::mutex mutex;
  std::vector<std::unique_ptr<QueueState>> queues;  // index = stream id
  std::atomic<size_t> count{0};
  std::atomic<uint32_t> next_pool{0};
};

// Appends a queue; the caller holds dq.mutex.
void append_queue(DeviceQueues& dq, c10::DeviceIndex device) {
  TORCH_CHECK(dq.queues.size() < kMaxStreams, "foo-cl: foo:", static_cast<int>(device), " already has ", kMaxStreams,
              " streams");
  dq.queues.push_back(std::make_unique<QueueState>(create_queue(device)));
  dq.count.store(dq.queues.size(), std::memory_order_release);
}

// Never destroyed: tensors (and their deleters, which may synchronize) can outlive static destruction.
DeviceQueues& queues_of(c10::DeviceIndex device) {
  static auto* all = [] {
    auto* v = new std::vector<std::unique_ptr<DeviceQueues>>();
    for (c10::DeviceIndex i = 0; i < device_count(); ++i) v->push_back(std::make_unique<DeviceQueues>());
    return v;
  }();
  check_device_index(device);
  return *(*all)[device];
}

// Makes sure queues 0..id exist (the default and pool queues are created on first use).
QueueState& ensure_queue(DeviceQueues& dq, c10::DeviceIndex device, c10::StreamId id) {
  if (id >= 0 && static_cast<size_t>(id) < dq.count.load(std::memory_order_acquire)) return *dq.queues[id];
  std::lock_guard<std::mutex> lock(dq.mutex);
  while (static_cast<c10::StreamId>(dq.queues.size()) <= std::min<c10::StreamId>(id, kPoolSize)) {
    append_queue(dq, device);
  }
  TORCH_CHECK(id >= 0 && id < static_cast<c10::StreamId>(dq.queues.size()), "foo-cl: unknown stream id ", id,
              " on foo:", static_cast<int>(device));
  return *dq.queues[id];
}

QueueState& state_of(c10::DeviceIndex device, c10::StreamId id) {
  return ensure_queue(queues_of(device), device, id);
}

void finish(QueueState& q) {
  const uint64_t submitted = q.submitted.load();
  FOO_CL_CHECK(clFinish(q.queue));
  std::lock_guard<std::mutex> lock(q.mutex);
  q.finished = std::max(q.finished, submitted);
}

thread_local std::vector<c10::StreamId> tls_current_streams;

}  // namespace

cl_command_queue queue(c10::DeviceIndex device, c10::StreamId id) {
  return state_of(device, id).queue;
}

c10::StreamId pool_stream(c10::DeviceIndex device) {
  auto& dq = queues_of(device);
  return 1 + static_cast<c10::StreamId>(dq.next_pool++ % kPoolSize);
}

c10::StreamId new_stream(c10::DeviceIndex device) {
  auto& dq = queues_of(device);
  ensure_queue(dq, device, kPoolSize);
  std::lock_guard<std::mutex> lock(dq.mutex);
  append_queue(dq, device);
  return static_cast<c10::StreamId>(dq.queues.size() - 1);
}

c10::StreamId current_stream_id(c10::DeviceIndex device) {
  check_device_index(device);
  return device < static_cast<c10::DeviceIndex>(tls_current_streams.size()) ? tls_current_streams[device] : 0;
}

void set_current_stream_id(c10::DeviceIndex device, c10::StreamId id) {
  queue(device, id);  // validates the id
  if (static_cast<c10::DeviceIndex>(tls_current_streams.size()) <= device) tls_current_streams.resize(device + 1, 0);
  tls_current_streams[device] = id;
}

cl_command_queue current_queue(c10::DeviceIndex device) {
  QueueState& q = state_of(device, current_stream_id(device));
  q.submitted++;
  return q.queue;
}

cl_command_queue shared_queue(c10::DeviceIndex device, c10::StreamId id) {
  QueueState& q = state_of(device, id);
  q.shared = true;
  return q.queue;
}

bool query_stream(c10::DeviceIndex device, c10::StreamId id) {
  QueueState& q = state_of(device, id);
  std::lock_guard<std::mutex> lock(q.mutex);
  if (q.shared) q.submitted++;  // the queue may hold uncounted commands: always ask a fresh marker
  const uint64_t submitted = q.submitted.load();
  if (q.finished >= submitted) return true;
  if (!q.marker || q.marker_at != submitted) {
    if (q.marker) clReleaseEvent(q.marker);
    q.marker = nullptr;
    FOO_CL_CHECK(clEnqueueMarkerWithWaitList(q.queue, 0, nullptr, &q.marker));
    FOO_CL_CHECK(clFlush(q.queue));
    q.marker_at = submitted;
  }
  cl_int status = CL_COMPLETE;
  // A shared queue's marker is new at every query: on an idle queue it completes within microseconds,
  // so it gets up to 20 ms before the stream is called busy.
  // NOTE: rusticl, with both cores busy, took more than 1 ms to complete a marker on an idle queue.
  const auto patience = std::chrono::steady_clock::now() + std::chrono::milliseconds(q.shared ? 20 : 0);
  while (true) {
    FOO_CL_CHECK(clGetEventInfo(q.marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr));
    if (status <= CL_COMPLETE || std::chrono::steady_clock::now() >= patience) break;
    std::this_thread::yield();
  }
  TORCH_CHECK(status >= 0, "foo-cl: a command on this stream failed with ", cl_error_name(status));
  if (status != CL_COMPLETE) return false;
  q.finished = std::max(q.finished, q.marker_at);
  return true;
}

void synchronize_stream(c10::DeviceIndex device, c10::StreamId id) {
  finish(state_of(device, id));
}

void synchronize_device(c10::DeviceIndex device) {
  auto& dq = queues_of(device);
  std::vector<QueueState*> states;
  {
    std::lock_guard<std::mutex> lock(dq.mutex);
    for (auto& q : dq.queues) states.push_back(q.get());
  }
  for (QueueState* q : states) finish(*q);
}

}  // namespace foo_cl::runtime
