// The autotuner: for each device and shape class, the fastest of a kernel family's candidate
// parameter sets, timed on the device at the class's first use and kept in a readable text file
// per device and driver beside the kernel cache. FOO_CL_TUNE chooses how much it measures.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/util/FunctionRef.h>

#include <string>
#include <vector>

namespace foo_cl::tune {

// A candidate is a kernel family's parameters as space-separated words, "NAME=value" or a bare
// variant name: "nn TM=6 NV=2 VW=16 KC=0 LM=8 LN=1". A family's first candidate is its default.
using Candidate = std::string;

enum class Mode {
  kOff,         // FOO_CL_TUNE=off: every family takes its default candidate; nothing is read or timed
  kFirstUse,    // FOO_CL_TUNE=on (the default): cached choices, else candidates timed within a budget
  kExhaustive,  // FOO_CL_TUNE=exhaustive: like on, but every candidate of a new class is timed
};
Mode mode();

// Enqueues one run of a candidate on the device's current queue and returns the tensor it wrote;
// throws when the candidate cannot run there.
using Run = c10::function_ref<at::Tensor(const Candidate&)>;

// The candidate `family` uses for `shape_class` on `device`: a pinned one (when it is one of
// `candidates`), the default (the first) for work too small to be `tunable`, the cached choice, or
// (when tuning) the fastest of `candidates` as timed now by `run` whose result agrees with the
// first candidate's. Timing stops once FOO_CL_TUNE_BUDGET_MS (2000) have passed, not counting each
// candidate's first, untimed run (which builds its program: on a cold kernel cache a class's first
// use takes longer than the budget), unless exhaustive.
Candidate choose(c10::DeviceIndex device, const std::string& family, const std::string& shape_class,
                 const std::vector<Candidate>& candidates, bool tunable, Run run);

// The integer parameter `name` of a candidate ("TM" of "nn TM=6"), `fallback` when it has none.
int param(const Candidate& candidate, const char* name, int fallback = 0);
// Whether a candidate is the variant `name` (its first word).
bool is_variant(const Candidate& candidate, const char* name);

// "M<=256"-style bucket words of a shape class: the power of two at or above `n`, at least `lowest`,
// and "<dim>>=<highest>" beyond it.
std::string bucket(const char* dim, int64_t n, int64_t lowest, int64_t highest);

struct Entry {
  std::string family, shape_class, candidate;
  std::string timings;  // "<microseconds> <candidate>" per timed candidate, fastest first, "; "-separated
};

// The choices known for a device (from this process and the file), and the file's path: in
// FOO_CL_TUNE_DIR, else in the kernel cache's folder "tuning".
std::vector<Entry> entries(c10::DeviceIndex device);
std::string cache_path(c10::DeviceIndex device);
// Forgets a device's choices, in memory and on disk.
void clear(c10::DeviceIndex device);

// Makes every shape class of `family` whose candidates include `candidate` use it in this process
// (an empty one unpins): for tests of each candidate, and to rule a kernel in or out while debugging.
void pin(const std::string& family, const Candidate& candidate);

}  // namespace foo_cl::tune
