// Caching allocator after CUDA's: small (<= 1 MiB) and large pools of blocks carved from OpenCL
// buffers ("segments"; on CPU devices in huge pages), best-fit per stream, splitting and merging,
// events delaying the reuse of blocks used on other streams, and out-of-memory handling that
// empties the cache and retries once.
#include "runtime/Allocator.h"

#include "runtime/Device.h"
#include "runtime/QueuePool.h"

#include <c10/util/Exception.h>

#include <sys/mman.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace foo_cl::runtime {
namespace {

using c10::CachingAllocator::Stat;
using c10::CachingAllocator::StatArray;
using c10::CachingAllocator::StatType;
using c10::CachingDeviceAllocator::DeviceStats;

constexpr size_t kMinBlockSize = 512;       // every block size is a multiple of this
constexpr size_t kSmallSize = 1 << 20;      // requests up to this size use the small pool
constexpr size_t kSmallBuffer = 2 << 20;    // segment size of the small pool
constexpr size_t kLargeBuffer = 20 << 20;   // segment size for large requests under kMinLargeAlloc
constexpr size_t kMinLargeAlloc = 10 << 20;
constexpr size_t kRoundLarge = 2 << 20;     // larger segments are rounded up to this

// Host memory mapped for a buffer (create_huge_page_buffer), unmapped by the buffer's destructor callback.
struct HostMapping {
  void* address;
  size_t size;
};

void CL_CALLBACK unmap_host_memory(cl_mem, void* data) {
  const auto* mapping = static_cast<HostMapping*>(data);
  munmap(mapping->address, mapping->size);
  delete mapping;
}

// A CPU device's buffer in memory mapped here, aligned to 2 MiB and advised to take transparent
// huge pages, which the OpenCL implementation uses in place (CL_MEM_USE_HOST_PTR): fewer TLB misses
// make bandwidth-bound kernels faster (PoCL, AMD EPYC: sum of 16M floats 7%, add 20%; measured
// against plain buffers in one process). Null when the memory or the buffer cannot be had.
cl_mem create_huge_page_buffer(cl_context context, size_t size) {
  constexpr size_t kHugePage = 2 << 20;
  const size_t length = (size + kHugePage - 1) / kHugePage * kHugePage;  // whole huge pages
  void* mapped = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  // Unmaps the unaligned head and the tail, keeping [aligned, aligned + length).
  const uintptr_t start = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage, end = start + length + kHugePage;
  if (aligned > start) munmap(mapped, aligned - start);
  if (end > aligned + length) munmap(reinterpret_cast<void*>(aligned + length), end - aligned - length);
  void* host = reinterpret_cast<void*>(aligned);
  madvise(host, length, MADV_HUGEPAGE);
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, host, &err);
  if (err != CL_SUCCESS) {
    munmap(host, length);
    return nullptr;
  }
  auto* mapping = new HostMapping{host, length};
  if (clSetMemObjectDestructorCallback(mem, unmap_host_memory, mapping) != CL_SUCCESS) {
    delete mapping;  // the memory stays mapped rather than be freed under the buffer
  }
  return mem;
}

struct Segment {
  cl_mem mem;
  uintptr_t address;
  size_t size;
  bool imported = false;  // another library's buffer (import_buffer), not the allocator's
};

struct Block {
  Segment* segment;
  uintptr_t address;
  size_t size;
  c10::StreamId stream;
  bool small;
  bool allocated = false;
  size_t requested = 0;
  int pending_events = 0;
  Block* prev = nullptr;  // neighbours inside the segment
  Block* next = nullptr;
  std::vector<c10::StreamId> stream_uses;

  bool is_split() const { return prev != nullptr || next != nullptr; }
};

struct BlockOrder {
  bool operator()(const Block* a, const Block* b) const {
    return std::tie(a->stream, a->size, a->address) < std::tie(b->stream, b->size, b->address);
  }
};

std::string format_bytes(uint64_t n) {
  char buf[32];
  if (n >= (1ull << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", n / double(1ull << 30));
  } else if (n >= (1ull << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2f MiB", n / double(1ull << 20));
  } else {
    std::snprintf(buf, sizeof(buf), "%" PRIu64 " bytes", n);
  }
  return buf;
}

size_t round_size(size_t n) {
  return n < kMinBlockSize ? kMinBlockSize : (n + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

// The address range every device's segments live in: reserved, never accessible, one slice a device.
struct AddressSpace {
  uintptr_t base = 0;
  uintptr_t slice = 0;

  AddressSpace() {
    const size_t devices = std::max<size_t>(device_count(), 1);
    for (uintptr_t slice_bytes = 1ull << 40; slice_bytes >= (1ull << 32); slice_bytes >>= 1) {
      void* p = mmap(nullptr, slice_bytes * devices, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) {
        base = reinterpret_cast<uintptr_t>(p);
        slice = slice_bytes;
        return;
      }
    }
    TORCH_CHECK(false, "foo-cl: could not reserve address space for device memory");
  }
};

const AddressSpace& address_space() {
  static const AddressSpace space;
  return space;
}

class DeviceMemory {
 public:
  explicit DeviceMemory(c10::DeviceIndex device) : device_(device) {
    const auto& space = address_space();
    next_address_ = space.base + space.slice * device;
    end_address_ = next_address_ + space.slice;
  }

  void* malloc(size_t nbytes, c10::StreamId stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    process_events();
    const size_t size = round_size(nbytes);
    const bool small = size <= kSmallSize;
    auto& pool = small ? small_pool_ : large_pool_;

    Block* block = take_free_block(pool, stream, size);
    if (!block) {
      const DeviceInfo& info = device_info(device_);
      if (size > info.max_alloc_size) {
        stats_.num_ooms++;
        TORCH_CHECK_WITH(OutOfMemoryError, false, "foo-cl: out of memory on foo:", static_cast<int>(device_), " (",
                         info.name, "). Tried to allocate ", format_bytes(nbytes), " in one piece, but OpenCL ",
                         "limits one allocation to CL_DEVICE_MAX_MEM_ALLOC_SIZE = ", format_bytes(info.max_alloc_size),
                         " on this device (of ", format_bytes(info.global_mem_size),
                         " in total): split the tensor into smaller ones.");
      }
      std::string why;
      // A segment rounded up past the limit still fits the request exactly.
      const size_t wanted = std::min<size_t>(segment_size(size), info.max_alloc_size);
      Segment* segment = create_segment(wanted, &why);
      if (!segment) {
        stats_.num_alloc_retries++;
        release_cached_segments();
        segment = create_segment(wanted, &why);
      }
      if (!segment) {
        stats_.num_ooms++;
        TORCH_CHECK_WITH(OutOfMemoryError, false, "foo-cl: out of memory on foo:", static_cast<int>(device_), " (",
                         info.name, "). Tried to allocate ", format_bytes(nbytes), ": ", why, ". foo:",
                         static_cast<int>(device_), " has ", format_bytes(info.global_mem_size), " in total, of which ",
                         format_bytes(allocated_bytes()), " is allocated by tensors and ", format_bytes(reserved_bytes()),
                         " reserved by foo-cl.");
      }
      block = new Block{segment, segment->address, segment->size, stream, small};
    }
    if (should_split(block, size)) {
      Block* rest = new Block{block->segment, block->address + size, block->size - size, stream, small};
      rest->prev = block;
      rest->next = block->next;
      if (rest->next) rest->next->prev = rest;
      block->next = rest;
      block->size = size;
      insert_free(rest);
    }
    block->allocated = true;
    block->requested = nbytes;
    active_[block->address] = block;
    update(stats_.allocation, small, 1);
    update(stats_.allocated_bytes, small, block->size);
    update(stats_.requested_bytes, small, nbytes);
    update(stats_.active, small, 1);
    update(stats_.active_bytes, small, block->size);
    return reinterpret_cast<void*>(block->address);
  }

  void free(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    Block* block = find_active(ptr);
    active_.erase(block->address);
    block->allocated = false;
    update(stats_.allocation, block->small, -1);
    update(stats_.allocated_bytes, block->small, -static_cast<int64_t>(block->size));
    update(stats_.requested_bytes, block->small, -static_cast<int64_t>(block->requested));
    if (!block->stream_uses.empty()) {
      // NOTE: the block stays active until every stream it was used on has passed this point.
      for (c10::StreamId s : block->stream_uses) {
        cl_event event = nullptr;
        FOO_CL_CHECK(clEnqueueMarkerWithWaitList(queue(device_, s), 0, nullptr, &event));
        pending_.emplace_back(event, block);
        block->pending_events++;
      }
      block->stream_uses.clear();
      return;
    }
    release_block(block);
  }

  void record_stream(void* ptr, c10::StreamId stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    Block* block = find_active(ptr);
    if (stream != block->stream &&
        std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) == block->stream_uses.end()) {
      block->stream_uses.push_back(stream);
    }
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached_segments();
  }

  // Gives a buffer made elsewhere (retained here) a range of this device's addresses.
  uintptr_t import_buffer(cl_mem mem, size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    FOO_CL_CHECK(clRetainMemObject(mem));
    const uintptr_t address = take_address_range(round_size(size));
    if (!address) clReleaseMemObject(mem);
    TORCH_CHECK(address, "foo-cl: foo:", static_cast<int>(device_), "'s device address range is exhausted");
    segments_[address] = new Segment{mem, address, size, /*imported=*/true};
    return address;
  }

  // The address of byte 0 of one of the allocator's buffers, or 0 for another buffer.
  uintptr_t address_of(cl_mem mem) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [address, segment] : segments_) {
      if (segment->mem == mem && !segment->imported) return address;
    }
    return 0;
  }

  void release_import(uintptr_t address) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = segments_.find(address);
    TORCH_INTERNAL_ASSERT(it != segments_.end());
    clReleaseMemObject(it->second->mem);
    free_addresses_[address] = round_size(it->second->size);
    delete it->second;
    segments_.erase(it);
  }

  BufferRef lookup(uintptr_t address) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = segments_.upper_bound(address);
    TORCH_CHECK(it != segments_.begin(), "foo-cl: ", reinterpret_cast<void*>(address),
                " is not an address of foo device memory");
    --it;
    const Segment* segment = it->second;
    TORCH_CHECK(address <= segment->address + segment->size, "foo-cl: ", reinterpret_cast<void*>(address),
                " is not an address of foo device memory");
    return {segment->mem, address - segment->address};
  }

  DeviceStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  std::vector<SegmentSnapshot> snapshot() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::map<const Segment*, SegmentSnapshot> segments;
    // Every block of a segment has the segment's stream and pool.
    const auto add = [&](const Block* b, const char* state) {
      SegmentSnapshot& s = segments.try_emplace(b->segment, SegmentSnapshot{b->segment->address, b->segment->size,
                                                                            b->stream, b->small, {}})
                               .first->second;
      s.blocks.push_back({b->address, b->size, b->allocated ? b->requested : 0, state});
    };
    for (const auto& [address, block] : active_) add(block, "active_allocated");
    std::set<const Block*> pending;  // a block freed on several streams waits for several events
    for (const auto& [event, block] : pending_) {
      if (pending.insert(block).second) add(block, "active_pending_free");
    }
    for (const auto* pool : {&small_pool_, &large_pool_}) {
      for (const Block* block : *pool) add(block, "inactive");
    }
    std::vector<SegmentSnapshot> result;
    for (auto& [segment, s] : segments) {
      std::sort(s.blocks.begin(), s.blocks.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
      result.push_back(std::move(s));
    }
    std::sort(result.begin(), result.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
    return result;
  }

  void reset_accumulated() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (StatArray* a : stat_arrays()) {
      for (Stat& s : *a) s.reset_accumulated();
    }
    stats_.num_alloc_retries = 0;
    stats_.num_ooms = 0;
    stats_.num_device_alloc = 0;
    stats_.num_device_free = 0;
  }

  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (StatArray* a : stat_arrays()) {
      for (Stat& s : *a) s.reset_peak();
    }
  }

  size_t reserved_bytes() const { return stats_.reserved_bytes[0].current; }
  size_t allocated_bytes() const { return stats_.allocated_bytes[0].current; }

 private:
  std::vector<StatArray*> stat_arrays() {
    return {&stats_.allocation, &stats_.segment, &stats_.active, &stats_.inactive_split, &stats_.allocated_bytes,
            &stats_.reserved_bytes, &stats_.active_bytes, &stats_.inactive_split_bytes, &stats_.requested_bytes};
  }

  static void update(StatArray& stat, bool small, int64_t delta) {
    for (size_t type : {size_t(StatType::AGGREGATE), size_t(small ? StatType::SMALL_POOL : StatType::LARGE_POOL)}) {
      if (delta >= 0) {
        stat[type].increase(delta);
      } else {
        stat[type].decrease(-delta);
      }
    }
  }

  Block* find_active(void* ptr) {
    auto it = active_.find(reinterpret_cast<uintptr_t>(ptr));
    TORCH_CHECK(it != active_.end(), "foo-cl: freeing ", ptr, ", which is not an allocated block on foo:",
                static_cast<int>(device_));
    return it->second;
  }

  std::set<Block*, BlockOrder>& pool_of(const Block* block) { return block->small ? small_pool_ : large_pool_; }

  // Free blocks inside a split segment are counted as inactive_split, as CUDA's allocator does.
  void insert_free(Block* block) {
    pool_of(block).insert(block);
    if (block->is_split()) {
      update(stats_.inactive_split, block->small, 1);
      update(stats_.inactive_split_bytes, block->small, block->size);
    }
  }

  void erase_free(Block* block) {
    pool_of(block).erase(block);
    if (block->is_split()) {
      update(stats_.inactive_split, block->small, -1);
      update(stats_.inactive_split_bytes, block->small, -static_cast<int64_t>(block->size));
    }
  }

  Block* take_free_block(std::set<Block*, BlockOrder>& pool, c10::StreamId stream, size_t size) {
    Block key{nullptr, 0, size, stream, false};
    auto it = pool.lower_bound(&key);
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    Block* block = *it;
    // A small request does not take most of a huge cached block: that would strand the rest.
    if (!block->small && block->size - size >= kLargeBuffer && size < kMinLargeAlloc) return nullptr;
    erase_free(block);
    return block;
  }

  static bool should_split(const Block* block, size_t size) {
    const size_t rest = block->size - size;
    return block->small ? rest >= kMinBlockSize : rest > kSmallSize;
  }

  static bool is_free(const Block* b) { return b && !b->allocated && b->pending_events == 0; }

  void release_block(Block* block) {
    update(stats_.active, block->small, -1);
    update(stats_.active_bytes, block->small, -static_cast<int64_t>(block->size));
    for (Block* neighbour : {block->prev, block->next}) {
      if (!is_free(neighbour)) continue;
      erase_free(neighbour);
      if (neighbour == block->prev) {
        block->address = neighbour->address;
        block->prev = neighbour->prev;
        if (block->prev) block->prev->next = block;
      } else {
        block->next = neighbour->next;
        if (block->next) block->next->prev = block;
      }
      block->size += neighbour->size;
      delete neighbour;
    }
    insert_free(block);
  }

  void process_events() {
    while (!pending_.empty()) {
      auto [event, block] = pending_.front();
      cl_int status = CL_COMPLETE;
      FOO_CL_CHECK(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr));
      if (status > CL_COMPLETE) return;  // events complete in order only per queue; good enough to stop here
      finish_event(event, block);
    }
  }

  void finish_event(cl_event event, Block* block) {
    clReleaseEvent(event);
    pending_.pop_front();
    if (--block->pending_events == 0) release_block(block);
  }

  void release_cached_segments() {
    while (!pending_.empty()) {
      FOO_CL_CHECK(clWaitForEvents(1, &pending_.front().first));
      finish_event(pending_.front().first, pending_.front().second);
    }
    for (auto* pool : {&small_pool_, &large_pool_}) {
      for (auto it = pool->begin(); it != pool->end();) {
        Block* block = *it;
        if (block->is_split()) {
          ++it;
          continue;
        }
        it = pool->erase(it);
        release_segment(block->segment, block->small);
        delete block;
      }
    }
  }

  Segment* create_segment(size_t size, std::string* why) {
    const DeviceInfo& info = device_info(device_);
    if (size > info.max_alloc_size) {
      *why = "the device's largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is " + format_bytes(info.max_alloc_size);
      return nullptr;
    }
    if (reserved_bytes() + size > info.global_mem_size) {
      *why = "the device has " + format_bytes(info.global_mem_size - reserved_bytes()) + " free";
      return nullptr;
    }
    const uintptr_t address = take_address_range(size);
    if (!address) {
      *why = "foo-cl's device address range is exhausted";
      return nullptr;
    }
    cl_int err = CL_SUCCESS;
    cl_mem mem = info.type & CL_DEVICE_TYPE_CPU ? create_huge_page_buffer(info.context, size) : nullptr;
    if (!mem) mem = clCreateBuffer(info.context, CL_MEM_READ_WRITE, size, nullptr, &err);
    if (err != CL_SUCCESS) {
      free_addresses_[address] = size;
      *why = std::string("clCreateBuffer failed with ") + cl_error_name(err);
      return nullptr;
    }
    auto* segment = new Segment{mem, address, size};
    segments_[address] = segment;
    const bool small = size == kSmallBuffer;
    update(stats_.segment, small, 1);
    update(stats_.reserved_bytes, small, size);
    stats_.num_device_alloc++;
    return segment;
  }

  void release_segment(Segment* segment, bool small) {
    clReleaseMemObject(segment->mem);
    segments_.erase(segment->address);
    free_addresses_[segment->address] = segment->size;
    update(stats_.segment, small, -1);
    update(stats_.reserved_bytes, small, -static_cast<int64_t>(segment->size));
    stats_.num_device_free++;
    delete segment;
  }

  // First fit among released ranges, else fresh addresses; released ranges are reused, not merged,
  // which is enough because the slice is far larger than any device's memory.
  uintptr_t take_address_range(size_t size) {
    for (auto it = free_addresses_.begin(); it != free_addresses_.end(); ++it) {
      if (it->second < size) continue;
      const uintptr_t address = it->first;
      const size_t rest = it->second - size;
      free_addresses_.erase(it);
      if (rest > 0) free_addresses_[address + size] = rest;
      return address;
    }
    if (next_address_ + size > end_address_) return 0;
    const uintptr_t address = next_address_;
    next_address_ += size;
    return address;
  }

  const c10::DeviceIndex device_;
  std::mutex mutex_;
  std::set<Block*, BlockOrder> small_pool_, large_pool_;
  std::unordered_map<uintptr_t, Block*> active_;
  std::map<uintptr_t, Segment*> segments_;
  std::map<uintptr_t, size_t> free_addresses_;
  uintptr_t next_address_, end_address_;
  std::deque<std::pair<cl_event, Block*>> pending_;
  DeviceStats stats_;
};

// Per-device state is never destroyed: tensors may still be freed during interpreter shutdown.
DeviceMemory& memory(c10::DeviceIndex device) {
  static std::vector<DeviceMemory*> all = [] {
    std::vector<DeviceMemory*> v;
    for (c10::DeviceIndex i = 0; i < device_count(); ++i) v.push_back(new DeviceMemory(i));
    return v;
  }();
  check_device_index(device);
  return *all[device];
}

void delete_block(void* ptr) {
  if (ptr) memory(device_of_address(ptr)).free(ptr);
}

struct ImportedBuffer {
  c10::DeviceIndex device;
  uintptr_t address;
  void* owner;
  void (*release_owner)(void*);
};

void delete_import(void* context) {
  auto* imported = static_cast<ImportedBuffer*>(context);
  memory(imported->device).release_import(imported->address);
  // NOTE: the owner may recycle the memory at once (a pyopencl memory pool hands it to the next
  // array), so foo's queued work on it must be done first.
  try {
    synchronize_device(imported->device);
  } catch (const c10::Error& e) {
    TORCH_WARN("foo-cl: waiting for foo:", static_cast<int>(imported->device),
               " before releasing imported memory failed: ", e.what_without_backtrace());
  }
  imported->release_owner(imported->owner);
  delete imported;
}

}  // namespace

c10::DeviceIndex device_of_address(const void* address) {
  const auto& space = address_space();
  const auto a = reinterpret_cast<uintptr_t>(address);
  if (a < space.base || a >= space.base + space.slice * device_count()) return -1;
  return static_cast<c10::DeviceIndex>((a - space.base) / space.slice);
}

BufferRef buffer_of(const void* address) {
  const c10::DeviceIndex device = device_of_address(address);
  // NOTE: an operator reaches here with a tensor that is not on foo (a CPU out= tensor, say).
  TORCH_CHECK(device >= 0, "Expected all tensors to be on the same device, but an operand of a foo operator is not ",
              "in foo device memory (address ", address, "; a CPU tensor given as out=?)");
  return memory(device).lookup(reinterpret_cast<uintptr_t>(address));
}

uintptr_t address_of_buffer(c10::DeviceIndex device, cl_mem mem) {
  return memory(device).address_of(mem);
}

c10::DataPtr import_buffer(c10::DeviceIndex device, cl_mem mem, size_t offset, void* owner,
                           void (*release_owner)(void*)) {
  size_t size = 0;
  FOO_CL_CHECK(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(size), &size, nullptr));
  TORCH_CHECK(offset <= size, "foo-cl: offset ", offset, " is past the end of a ", size, "-byte OpenCL buffer");
  const uintptr_t address = memory(device).import_buffer(mem, size);
  auto* context = new ImportedBuffer{device, address, owner, release_owner};
  return {reinterpret_cast<void*>(address + offset), context, &delete_import,
          c10::Device(c10::DeviceType::PrivateUse1, device)};
}

std::vector<SegmentSnapshot> memory_snapshot(c10::DeviceIndex device) {
  return memory(device).snapshot();
}

c10::DataPtr CachingAllocator::allocate(size_t nbytes) {
  return allocate_on(current_device(), nbytes);
}

c10::DataPtr CachingAllocator::allocate_on(c10::DeviceIndex device, size_t nbytes) {
  const c10::Device where(c10::DeviceType::PrivateUse1, device);
  if (nbytes == 0) {
    check_device_index(device);
    return {nullptr, nullptr, &delete_block, where};
  }
  void* ptr = memory(device).malloc(nbytes, current_stream_id(device));
  return {ptr, ptr, &delete_block, where};
}

c10::DeleterFnPtr CachingAllocator::raw_deleter() const {
  return &delete_block;
}

void CachingAllocator::copy_data(void* dest, const void* src, std::size_t count) const {
  if (count == 0) return;
  const BufferRef d = buffer_of(dest), s = buffer_of(src);
  FOO_CL_CHECK(clEnqueueCopyBuffer(current_queue(device_of_address(dest)), s.mem, d.mem, s.offset, d.offset, count, 0,
                                   nullptr, nullptr));
}

bool CachingAllocator::initialized() {
  return device_count() > 0;
}

void CachingAllocator::emptyCache(c10::MempoolId_t) {
  for (c10::DeviceIndex i = 0; i < device_count(); ++i) memory(i).empty_cache();
}

void CachingAllocator::recordStream(const c10::DataPtr& ptr, c10::Stream stream) {
  // Imported buffers are not the allocator's to reuse: nothing to delay.
  if (!ptr.get() || ptr.get_deleter() != &delete_block) return;
  memory(stream.device_index()).record_stream(ptr.get(), stream.id());
}

c10::CachingDeviceAllocator::DeviceStats CachingAllocator::getDeviceStats(c10::DeviceIndex device) {
  return memory(device).stats();
}

void CachingAllocator::resetAccumulatedStats(c10::DeviceIndex device) {
  memory(device).reset_accumulated();
}

void CachingAllocator::resetPeakStats(c10::DeviceIndex device) {
  memory(device).reset_peak();
}

std::pair<size_t, size_t> CachingAllocator::getMemoryInfo(c10::DeviceIndex device) {
  // OpenCL cannot report free device memory; what foo-cl has not reserved is the best estimate.
  const size_t total = device_info(device).global_mem_size;
  const size_t reserved = memory(device).stats().reserved_bytes[0].current;
  return {total > reserved ? total - reserved : 0, total};
}

CachingAllocator& allocator() {
  static CachingAllocator instance;
  return instance;
}

void resize_storage_bytes(c10::StorageImpl& storage, size_t nbytes) {
  TORCH_CHECK(storage.resizable(), "Trying to resize storage that is not resizable");
  const c10::DeviceIndex device = storage.device().index();
  c10::DataPtr data = allocator().allocate_on(device, nbytes);
  const size_t keep = std::min(nbytes, storage.nbytes());
  if (keep > 0) {
    const BufferRef d = buffer_of(data.get()), s = buffer_of(storage.data());
    FOO_CL_CHECK(clEnqueueCopyBuffer(current_queue(device), s.mem, d.mem, s.offset, d.offset, keep, 0, nullptr,
                                     nullptr));
  }
  storage.set_data_ptr_noswap(std::move(data));
  storage.set_nbytes(nbytes);
}

static c10::AllocatorRegisterer<c10::DeviceType::PrivateUse1> register_allocator(&allocator());

}  // namespace foo_cl::runtime
