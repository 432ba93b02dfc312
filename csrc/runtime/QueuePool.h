// Streams as in-order OpenCL command queues. Stream id 0 is a device's default queue, ids
// 1..kPoolSize a round-robin pool, and higher ids queues made by getNewStream. Each thread has a
// current stream per device. Queues count the work enqueued on them, so an idle stream reports done
// without waiting on a runtime that completes markers lazily.
#pragma once

#include "runtime/OpenCL.h"

#include <c10/core/Stream.h>

namespace foo_cl::runtime {

constexpr c10::StreamId kPoolSize = 4;

cl_command_queue queue(c10::DeviceIndex device, c10::StreamId id);
c10::StreamId pool_stream(c10::DeviceIndex device);
c10::StreamId new_stream(c10::DeviceIndex device);

c10::StreamId current_stream_id(c10::DeviceIndex device);
void set_current_stream_id(c10::DeviceIndex device, c10::StreamId id);
// The current queue of `device`, to enqueue work on: the queue counts it, for query_stream.
cl_command_queue current_queue(c10::DeviceIndex device);

// The queue of a stream, for another library (pyopencl) to enqueue on: query_stream then no longer
// trusts its count of foo's own commands.
cl_command_queue shared_queue(c10::DeviceIndex device, c10::StreamId id);

// True when every command enqueued through current_queue on this stream has completed.
bool query_stream(c10::DeviceIndex device, c10::StreamId id);
void synchronize_stream(c10::DeviceIndex device, c10::StreamId id);

// Waits for every queue of `device` to finish.
void synchronize_device(c10::DeviceIndex device);

}  // namespace foo_cl::runtime
