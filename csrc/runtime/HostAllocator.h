// The pinned host allocator of foo (PyTorch's CachingHostAllocator over page-aligned host memory):
// pin_memory(), is_pinned() and DataLoader(pin_memory=True). A block that a non-blocking copy used
// returns to the cache only after an event recorded on the copy's queue completes.
#pragma once

#include <ATen/core/CachingHostAllocator.h>

namespace foo_cl::runtime {

at::HostAllocator& host_allocator();

// Whether `address` lies in a block of host_allocator().
bool is_pinned_address(const void* address);

// Marks the pinned block holding `data` (a tensor's storage DataPtr) as used by the current queue
// of `device`: call after enqueueing a non-blocking copy from or into it. False if not pinned.
bool record_host_use(const c10::DataPtr& data, c10::DeviceIndex device);

}  // namespace foo_cl::runtime
