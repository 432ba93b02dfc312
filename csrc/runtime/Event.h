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

}  // namespace foo_cl::runtime
