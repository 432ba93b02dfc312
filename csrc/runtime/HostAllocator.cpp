// Pinned host memory: page-aligned blocks cached by PyTorch's CachingHostAllocatorImpl, with foo
// events as the "in use by a queue" marks.
#include "runtime/HostAllocator.h"

#include "runtime/Device.h"
#include "runtime/Event.h"
#include "runtime/QueuePool.h"

#include <c10/util/Exception.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace foo_cl::runtime {
namespace {

constexpr size_t kHostAlignment = 4096;

using Block = at::HostBlock<c10::Stream>;

// Every live block's [address, address + size), for is_pinned_address.
struct PinnedRanges {
  std::mutex mutex;
  std::map<uintptr_t, size_t> ranges;
};

PinnedRanges& pinned_ranges() {
  static auto* ranges = new PinnedRanges();  // NOTE: leaked: blocks may be freed during static destruction
  return *ranges;
}

struct HostAllocatorImpl final : public at::CachingHostAllocatorImpl<c10::Stream, std::shared_ptr<Event>> {
 private:
  void allocate_host_memory(size_t size, void** ptr) override {
    *ptr = std::aligned_alloc(kHostAlignment, (size + kHostAlignment - 1) / kHostAlignment * kHostAlignment);
    TORCH_CHECK_WITH(OutOfMemoryError, *ptr, "foo-cl: out of pinned host memory allocating ", size, " bytes");
    std::lock_guard<std::mutex> lock(pinned_ranges().mutex);
    pinned_ranges().ranges[reinterpret_cast<uintptr_t>(*ptr)] = size;
  }

  void free_block(Block* block) override {
    {
      std::lock_guard<std::mutex> lock(pinned_ranges().mutex);
      pinned_ranges().ranges.erase(reinterpret_cast<uintptr_t>(block->ptr_));
    }
    std::free(block->ptr_);
  }

  void record_stream(std::optional<std::vector<std::shared_ptr<Event>>>& events, c10::Stream stream) override {
    auto event = std::make_shared<Event>(stream.device_index());
    event->record(stream);
    events->push_back(std::move(event));
  }

  bool query_event(std::shared_ptr<Event>& event) override { return event->query(); }

  c10::Stream get_current_stream() const override {
    const c10::DeviceIndex device = current_device();
    return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, device),
                       current_stream_id(device));
  }

  bool stream_is_capturing(c10::Stream) const override { return false; }
};

void free_pinned(void* ctx);
struct FooHostAllocator final : public at::CachingHostAllocatorInterface<HostAllocatorImpl, free_pinned> {};
FooHostAllocator instance;
void free_pinned(void* ctx) {
  instance.free(ctx);
}

}  // namespace

at::HostAllocator& host_allocator() {
  return instance;
}

bool is_pinned_address(const void* address) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  std::lock_guard<std::mutex> lock(pinned_ranges().mutex);
  auto it = pinned_ranges().ranges.upper_bound(a);
  if (it == pinned_ranges().ranges.begin()) return false;
  --it;
  return a < it->first + it->second;
}

bool record_host_use(const c10::DataPtr& data, c10::DeviceIndex device) {
  if (data.get_deleter() != &free_pinned) return false;
  const c10::Stream stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, device),
                           current_stream_id(device));
  return instance.record_event(data.get(), data.get_context(), stream);
}

REGISTER_HOST_ALLOCATOR(at::kPrivateUse1, &instance)

}  // namespace foo_cl::runtime
