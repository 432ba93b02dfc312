// The PrivateUse1 hooks: availability, device count and current device for torch.accelerator,
// device-from-pointer, storage resizing, pinned host memory, and the Philox generators.
#include "runtime/Allocator.h"
#include "runtime/Device.h"
#include "runtime/Generator.h"
#include "runtime/HostAllocator.h"

#include <ATen/detail/PrivateUse1HooksInterface.h>

namespace foo_cl::runtime {
namespace {

struct Hooks final : public at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return device_count() > 0; }
  void init() const override { check_device_index(current_device()); }
  bool hasPrimaryContext(c10::DeviceIndex device_index) const override {
    return device_index >= 0 && device_index < device_count();
  }
  c10::DeviceIndex deviceCount() const override { return device_count(); }
  void setCurrentDevice(c10::DeviceIndex device) const override { set_current_device(device); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    const c10::DeviceIndex old = current_device();
    set_current_device(device);
    return old;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override { return exchangeDevice(device); }
  at::Device getDeviceFromPtr(void* data) const override {
    const c10::DeviceIndex device = device_of_address(data);
    TORCH_CHECK(device >= 0, "foo-cl: ", data, " is not an address of foo device memory");
    return {c10::DeviceType::PrivateUse1, device};
  }
  const at::Generator& getDefaultGenerator(c10::DeviceIndex device_index) const override {
    return default_generator(device_index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device_index) const override { return new_generator(device_index); }
  bool isPinnedPtr(const void* data) const override { return is_pinned_address(data); }
  at::Allocator* getPinnedMemoryAllocator() const override { return &host_allocator(); }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t nbytes) const override {
    resize_storage_bytes(*storage.unsafeGetStorageImpl(), nbytes);
  }
};

const bool registered = [] {
  at::RegisterPrivateUse1HooksInterface(new Hooks());
  return true;
}();

}  // namespace
}  // namespace foo_cl::runtime
