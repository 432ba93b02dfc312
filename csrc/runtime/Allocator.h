// The caching device allocator. OpenCL buffers are carved into blocks whose "pointers" are virtual
// device addresses in a reserved, inaccessible host range, so data_ptr() arithmetic, overlap checks
// and device-from-pointer work as on CUDA; buffer_of() turns an address back into (cl_mem, offset).
#pragma once

#include "runtime/OpenCL.h"

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/core/StorageImpl.h>

#include <vector>

namespace foo_cl::runtime {

struct BufferRef {
  cl_mem mem;
  size_t offset;  // bytes from the start of mem
};

// The buffer and byte offset behind a foo device address.
BufferRef buffer_of(const void* address);

// The device owning a foo device address, or -1 for any other pointer.
c10::DeviceIndex device_of_address(const void* address);

// The foo device address of byte 0 of `mem` when it is one of foo's own buffers on `device`, else 0
// (a tensor shared with pyopencl and back keeps its address, so PyTorch sees the aliasing).
uintptr_t address_of_buffer(c10::DeviceIndex device, cl_mem mem);

// Memory that another library (pyopencl) allocated in foo's context for `device`, as foo memory:
// the buffer gets device addresses of its own and is retained until the returned DataPtr (pointing
// `offset` bytes in) is freed; `release_owner(owner)` then lets go of what else kept it valid,
// once the device's queued work is done.
c10::DataPtr import_buffer(c10::DeviceIndex device, cl_mem mem, size_t offset, void* owner,
                           void (*release_owner)(void*));

class CachingAllocator final : public c10::DeviceAllocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override;
  c10::DataPtr allocate_on(c10::DeviceIndex device, size_t nbytes);
  c10::DeleterFnPtr raw_deleter() const override;
  void copy_data(void* dest, const void* src, std::size_t count) const override;

  bool initialized() override;
  void emptyCache(c10::MempoolId_t mempool_id = {0, 0}) override;
  void recordStream(const c10::DataPtr& ptr, c10::Stream stream) override;
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override;
  void resetAccumulatedStats(c10::DeviceIndex device) override;
  void resetPeakStats(c10::DeviceIndex device) override;
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override;
};

CachingAllocator& allocator();

// One block of a segment, as torch.cuda.memory_snapshot describes it.
struct BlockSnapshot {
  uintptr_t address;
  size_t size;
  size_t requested;  // bytes the tensor asked for (0 for free blocks)
  const char* state;  // "active_allocated", "active_pending_free" (freed, awaiting a stream) or "inactive"
};

// One OpenCL buffer the allocator holds and its blocks in address order.
struct SegmentSnapshot {
  uintptr_t address;
  size_t size;
  c10::StreamId stream;
  bool small;
  std::vector<BlockSnapshot> blocks;
};

std::vector<SegmentSnapshot> memory_snapshot(c10::DeviceIndex device);

// Reallocates a foo storage to `nbytes`, keeping its leading contents (Tensor.resize_, storage.resize_).
void resize_storage_bytes(c10::StorageImpl& storage, size_t nbytes);

}  // namespace foo_cl::runtime
