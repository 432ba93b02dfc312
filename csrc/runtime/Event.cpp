// Events as OpenCL markers.
#include "runtime/Event.h"

#include "runtime/Device.h"
#include "runtime/DeviceErrors.h"
#include "runtime/QueuePool.h"

#include <c10/util/Exception.h>

namespace foo_cl::runtime {

Event::~Event() {
  if (event_) clReleaseEvent(event_);
}

void Event::record(const c10::Stream& stream) {
  TORCH_CHECK(stream.device_index() == device_, "foo-cl: event was created on foo:", static_cast<int>(device_),
              " and cannot be recorded on a stream of foo:", static_cast<int>(stream.device_index()));
  cl_event marker = nullptr;
  FOO_CL_CHECK(clEnqueueMarkerWithWaitList(queue(stream.device_index(), stream.id()), 0, nullptr, &marker));
  if (event_) clReleaseEvent(event_);
  event_ = marker;
  stream_ = stream.id();
  // NOTE: without a flush a runtime may hold the marker back, and query() would never see it done.
  FOO_CL_CHECK(clFlush(queue(stream.device_index(), stream.id())));
}

void Event::block(const c10::Stream& stream) const {
  if (!event_) return;
  if (device_info(stream.device_index()).context != device_info(device_).context) {
    // NOTE: an OpenCL queue can only wait on events of its own context; across devices the host waits.
    synchronize();
    return;
  }
  FOO_CL_CHECK(clEnqueueBarrierWithWaitList(queue(stream.device_index(), stream.id()), 1, &event_, nullptr));
}

bool Event::query() const {
  if (!event_) return true;
  cl_int status = CL_COMPLETE;
  FOO_CL_CHECK(clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr));
  TORCH_CHECK(status >= 0, "foo-cl: a command before this event failed with ", cl_error_name(status));
  return status == CL_COMPLETE;
}

void Event::synchronize() const {
  if (!event_) return;
  FOO_CL_CHECK(clWaitForEvents(1, &event_));
  raise_device_errors(device_, stream_);
}

double Event::elapsed_ms(const Event& end) const {
  TORCH_CHECK(event_ && end.event_, "foo-cl: both events must be recorded before measuring elapsed time");
  const DeviceInfo& info = device_info(device_);
  TORCH_CHECK(info.times_commands, "foo-cl: foo:", static_cast<int>(device_), " (", info.name, ", ", info.platform_name,
              ") does not time its commands (its OpenCL driver gives them no start and end times), so events ",
              "cannot measure elapsed time there");
  synchronize();
  end.synchronize();
  cl_ulong start_ns = 0, end_ns = 0;
  FOO_CL_CHECK(clGetEventProfilingInfo(event_, CL_PROFILING_COMMAND_END, sizeof(start_ns), &start_ns, nullptr));
  FOO_CL_CHECK(clGetEventProfilingInfo(end.event_, CL_PROFILING_COMMAND_END, sizeof(end_ns), &end_ns, nullptr));
  return (static_cast<double>(end_ns) - static_cast<double>(start_ns)) / 1e6;
}

}  // namespace foo_cl::runtime
