// Command queues for each device, created lazily, kept for the life of the process (like CUDA streams).
#include "runtime/QueuePool.h"

#include "runtime/Device.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace foo_cl::runtime {
namespace {

struct DeviceQueues {
  std::mutex mutex;
  std::deque<cl_command_queue> queues;  // index = stream id; never shrinks, so references stay valid
  std::atomic<uint32_t> next_pool{0};
};

DeviceQueues& queues_of(c10::DeviceIndex device) {
  static std::vector<std::unique_ptr<DeviceQueues>> all = [] {
    std::vector<std::unique_ptr<DeviceQueues>> v;
    for (c10::DeviceIndex i = 0; i < device_count(); ++i) v.push_back(std::make_unique<DeviceQueues>());
    return v;
  }();
  check_device_index(device);
  return *all[device];
}

cl_command_queue create_queue(c10::DeviceIndex device) {
  const DeviceInfo& info = device_info(device);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(info.context, info.id, CL_QUEUE_PROFILING_ENABLE, &err);
  FOO_CL_CHECK(err);
  return q;
}

// Makes sure queues 0..id exist (the default and pool queues are created on first use).
cl_command_queue ensure_queue(DeviceQueues& dq, c10::DeviceIndex device, c10::StreamId id) {
  std::lock_guard<std::mutex> lock(dq.mutex);
  while (static_cast<c10::StreamId>(dq.queues.size()) <= std::min<c10::StreamId>(id, kPoolSize)) {
    dq.queues.push_back(create_queue(device));
  }
  TORCH_CHECK(id >= 0 && id < static_cast<c10::StreamId>(dq.queues.size()), "foo-cl: unknown stream id ", id,
              " on foo:", static_cast<int>(device));
  return dq.queues[id];
}

thread_local std::vector<c10::StreamId> tls_current_streams;

}  // namespace

cl_command_queue queue(c10::DeviceIndex device, c10::StreamId id) {
  return ensure_queue(queues_of(device), device, id);
}

c10::StreamId pool_stream(c10::DeviceIndex device) {
  auto& dq = queues_of(device);
  return 1 + static_cast<c10::StreamId>(dq.next_pool++ % kPoolSize);
}

c10::StreamId new_stream(c10::DeviceIndex device) {
  auto& dq = queues_of(device);
  ensure_queue(dq, device, kPoolSize);
  std::lock_guard<std::mutex> lock(dq.mutex);
  dq.queues.push_back(create_queue(device));
  return static_cast<c10::StreamId>(dq.queues.size() - 1);
}

c10::StreamId num_streams(c10::DeviceIndex device) {
  auto& dq = queues_of(device);
  std::lock_guard<std::mutex> lock(dq.mutex);
  return static_cast<c10::StreamId>(dq.queues.size());
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
  return queue(device, current_stream_id(device));
}

void synchronize_device(c10::DeviceIndex device) {
  auto& dq = queues_of(device);
  std::lock_guard<std::mutex> lock(dq.mutex);
  for (cl_command_queue q : dq.queues) FOO_CL_CHECK(clFinish(q));
}

}  // namespace foo_cl::runtime
