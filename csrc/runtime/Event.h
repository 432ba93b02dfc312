// An event on a foo stream: a marker enqueued on a queue, queryable, waitable from another queue
// (or from the host across devices, whose contexts differ) and timeable through profiling info.
#pragma once

#include "runtime/OpenCL.h"

#include <c10/core/Stream.h>

namespace foo_cl::runtime {

class Event {
 public:
  explicit Event(c10::DeviceIndex device) : device_(device) {}
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  c10::DeviceIndex device() const { return device_; }
  void record(const c10::Stream& stream);
  void block(const c10::Stream& stream) const;  // makes `stream` wait for this event
  bool query() const;
  void synchronize() const;
  double elapsed_ms(const Event& end) const;

 private:
  c10::DeviceIndex device_;
  cl_event event_ = nullptr;
  c10::StreamId stream_ = 0;  // the stream of the last record()
};

// Waits for `event`: polls its status for up to kPollMicros, yielding the core between polls, and
// only then blocks in the driver. Raises the failure of the command it marks.
// NOTE: PoCL wakes a thread blocked in clFinish or a blocking read 35-40 us after the work ends
// (pthread-skylake-avx512-AMD EPYC, a KVM guest): a 1024-element add_ then synchronize took 55 us,
// 18 us polled. A wait longer than the polling costs at most kPollMicros of one core.
constexpr int kPollMicros = 200;
void wait_for_event(cl_event event);
// Enqueues a marker on `queue` and waits for it (wait_for_event): for everything enqueued before.
void wait_for_queue(cl_command_queue queue);

}  // namespace foo_cl::runtime
