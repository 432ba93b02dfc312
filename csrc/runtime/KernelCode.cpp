// Finds the kernel objects PoCL loaded through the dynamic loader's list and maps their pages in.
#include "runtime/KernelCode.h"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_set>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels refuse it (EINVAL), which costs nothing
#endif

namespace foo_cl::runtime {
namespace {

struct LoaderCounts {
  unsigned long long adds = 0, subs = 0;
};

int read_counts(dl_phdr_info* info, size_t, void* data) {
  *static_cast<LoaderCounts*>(data) = {info->dlpi_adds, info->dlpi_subs};
  return 1;  // the counts are the same in every object's entry: stop at the first
}

// Objects under PoCL's kernel cache (<cache>/kcache/<hash>/<kernel>/<launch shape>/<kernel>.so)
// not mapped in yet, by load address.
int map_kernel_object(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "/kcache/") == nullptr) return 0;
  auto& mapped = *static_cast<std::unordered_set<uintptr_t>*>(data);
  if (!mapped.insert(info->dlpi_addr).second) return 0;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) & segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const uintptr_t begin = (info->dlpi_addr + segment.p_vaddr) & ~(page - 1);
    const uintptr_t end = (info->dlpi_addr + segment.p_vaddr + segment.p_memsz + page - 1) & ~(page - 1);
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
  }
  return 0;
}

}  // namespace

void map_loaded_kernel_code() {
  static std::atomic<unsigned long long> seen_adds{0};
  LoaderCounts counts;
  dl_iterate_phdr(read_counts, &counts);
  if (counts.adds == seen_adds.load(std::memory_order_relaxed)) return;
  static std::mutex mutex;
  static std::unordered_set<uintptr_t> mapped;
  static unsigned long long seen_subs = 0;
  const std::lock_guard<std::mutex> lock(mutex);
  if (counts.subs != seen_subs) mapped.clear();  // an unloaded object's address may come back
  seen_subs = counts.subs;
  dl_iterate_phdr(map_kernel_object, &mapped);
  seen_adds.store(counts.adds, std::memory_order_relaxed);
}

}  // namespace foo_cl::runtime
