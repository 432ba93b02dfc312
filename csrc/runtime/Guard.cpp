// The PrivateUse1 DeviceGuardImplInterface: current device and stream, events, synchronisation.
// With it, c10::DeviceGuard, torch.Stream, torch.Event and torch.accelerator work for foo.
#include "runtime/Allocator.h"
#include "runtime/Device.h"
#include "runtime/DeviceErrors.h"
#include "runtime/Event.h"
#include "runtime/QueuePool.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>

namespace foo_cl::runtime {
namespace {

constexpr auto kFoo = c10::DeviceType::PrivateUse1;

Event* as_event(void* e) {
  return static_cast<Event*>(e);
}

struct GuardImpl final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kFoo; }

  c10::Device exchangeDevice(c10::Device d) const override {
    const c10::Device old = getDevice();
    if (old.index() != d.index()) setDevice(d);
    return old;
  }
  c10::Device getDevice() const override { return {kFoo, current_device()}; }
  void setDevice(c10::Device d) const override { set_current_device(d.index()); }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    try {
      set_current_device(d.index());
    } catch (...) {
    }
  }

  c10::Stream getStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::UNSAFE, d, current_stream_id(d.index()));
  }
  c10::Stream getDefaultStream(c10::Device d) const override { return c10::Stream(c10::Stream::UNSAFE, d, 0); }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool) const override {
    return c10::Stream(c10::Stream::UNSAFE, d, pool_stream(d.index()));
  }
  c10::Stream getNewStream(c10::Device d, int) const override {
    return c10::Stream(c10::Stream::UNSAFE, d, new_stream(d.index()));
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    const c10::Stream old = getStream(s.device());
    set_current_stream_id(s.device_index(), s.id());
    return old;
  }
  void* getStreamNativeHandle(const c10::Stream s) const override { return queue(s.device_index(), s.id()); }
  c10::DeviceIndex deviceCount() const noexcept override { return device_count(); }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "foo-cl: event device index ",
                static_cast<int>(device_index), " does not match the stream's foo:",
                static_cast<int>(stream.device_index()));
    if (!*event) *event = new Event(stream.device_index());
    as_event(*event)->record(stream);
  }
  void block(void* event, const c10::Stream& stream) const override {
    if (event) as_event(event)->block(stream);
  }
  bool queryEvent(void* event) const override { return !event || as_event(event)->query(); }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override { delete as_event(event); }
  void synchronizeEvent(void* event) const override {
    if (event) as_event(event)->synchronize();
  }
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start && end, "foo-cl: both events must be recorded before measuring elapsed time");
    return as_event(start)->elapsed_ms(*as_event(end));
  }

  bool queryStream(const c10::Stream& stream) const override {
    return query_stream(stream.device_index(), stream.id());
  }
  void synchronizeStream(const c10::Stream& stream) const override {
    synchronize_stream(stream.device_index(), stream.id());
    raise_device_errors(stream.device_index(), stream.id());
  }
  void synchronizeDevice(const c10::DeviceIndex device_index) const override {
    synchronize_device(device_index);
    raise_device_errors(device_index);
  }
  void recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const override {
    allocator().recordStream(data_ptr, stream);
  }
};

}  // namespace

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

}  // namespace foo_cl::runtime
