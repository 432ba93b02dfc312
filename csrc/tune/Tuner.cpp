// Choosing, timing and caching candidates: one table of choices per device, loaded from and merged
// into <kernel cache>/tuning/<device>.txt (or FOO_CL_TUNE_DIR), whose lines read "family | shape
// class | choice | timings".
#include "tune/Tuner.h"

#include "runtime/Device.h"
#include "runtime/ProgramCache.h"
#include "runtime/QueuePool.h"

#include <ATen/ops/sub.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace foo_cl::tune {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSeparator = " | ";
constexpr int kTimedRuns = 5;
constexpr int kBackToBack = 4;
// In the file's name, raised when a change makes the recorded choices stale, so that older files are
// not read: "-2", builds stopped counting against the budget (older files may hold defaults chosen
// untimed); "-3", gemm_nn's groups stopped padding M to LM rows and im2col_contig its rows' edges
// element by element (older timings of small-M products and of im2col ranked other candidates); "-4",
// gemm_nn's columns past its last whole tile became a tile of their own (3-4x faster than one element
// a work-item: older timings of such products ranked other candidates).
constexpr const char* kFileVersion = "-4";

struct Table {
  bool loaded = false;
  std::map<std::string, Entry> entries;  // by family + kSeparator + shape class
};

// NOTE: recursive, since a candidate's run may reach another family's choice (a convolution's
// im2col GEMM); tuning is rare enough that one lock for every device costs nothing.
std::recursive_mutex& mutex() {
  static auto* m = new std::recursive_mutex();
  return *m;
}

std::unordered_map<c10::DeviceIndex, Table>& tables() {
  static auto* t = new std::unordered_map<c10::DeviceIndex, Table>();
  return *t;
}

std::unordered_map<std::string, Candidate>& pins() {
  static auto* p = new std::unordered_map<std::string, Candidate>();
  return *p;
}

std::string key_of(const std::string& family, const std::string& shape_class) {
  return family + kSeparator + shape_class;
}

std::vector<std::string> split(const std::string& line, const std::string& separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t at; (at = line.find(separator, start)) != std::string::npos; start = at + separator.size()) {
    fields.push_back(line.substr(start, at - start));
  }
  fields.push_back(line.substr(start));
  return fields;
}

std::map<std::string, Entry> read_file(const std::string& path) {
  std::map<std::string, Entry> entries;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = split(line, kSeparator);
    // NOTE: a line that does not parse (an edit by hand, a file from another version) is skipped.
    if (f.size() != 4 || f[0].empty() || f[2].empty()) continue;
    entries[key_of(f[0], f[1])] = Entry{f[0], f[1], f[2], f[3]};
  }
  return entries;
}

Table& table(c10::DeviceIndex device) {
  Table& t = tables()[device];
  if (!t.loaded) {
    t.loaded = true;
    if (runtime::disk_cache_enabled()) t.entries = read_file(cache_path(device));
  }
  return t;
}

// Merges the device's table into its file: what other processes wrote meanwhile is kept.
void save(c10::DeviceIndex device, const Table& t) {
  if (!runtime::disk_cache_enabled()) return;
  const std::string path = cache_path(device);
  std::map<std::string, Entry> merged = read_file(path);
  for (const auto& [key, entry] : t.entries) merged[key] = entry;
  const runtime::DeviceInfo& info = runtime::device_info(device);
  std::ostringstream out;
  out << "# foo-cl tuning cache: " << info.name << " (" << info.platform_name << ", " << info.platform_version
      << ", driver " << info.driver_version << ")\n"
      << "# family | shape class | choice | best time of each candidate timed, microseconds\n";
  for (const auto& [key, e] : merged)
    out << e.family << kSeparator << e.shape_class << kSeparator << e.candidate << kSeparator << e.timings << "\n";
  runtime::write_file_atomically(path, out.str());
}

double budget_ms() {
  const char* env = std::getenv("FOO_CL_TUNE_BUDGET_MS");
  if (!env || !*env) return 2000;
  char* end = nullptr;
  const double ms = std::strtod(env, &end);
  TORCH_CHECK(end && *end == '\0' && ms >= 0, "foo-cl: FOO_CL_TUNE_BUDGET_MS must be a number of milliseconds, got '",
              env, "'");
  return ms;
}

double elapsed_ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// The time of one run of a candidate, in microseconds: the mean of kBackToBack runs enqueued one
// after another from an idle queue, as a model's launches follow each other.
double time_once(c10::DeviceIndex device, c10::StreamId stream, const Candidate& candidate, Run run) {
  const auto start = Clock::now();
  for (int i = 0; i < kBackToBack; ++i) run(candidate);
  runtime::synchronize_stream(device, stream);
  return elapsed_ms(start) * 1000 / kBackToBack;
}

// Whether a candidate's result matches the reference's within rounding: its largest difference is
// at most 1e-3 of the reference's largest magnitude (NaN anywhere disagrees).
bool agrees(const at::Tensor& output, const at::Tensor& reference) {
  // Booleans and integers (a reduction's all, any or argmax) compare as doubles.
  const auto values = [](const at::Tensor& t) {
    return t.is_floating_point() || t.is_complex() ? t : t.to(at::kDouble);
  };
  const double scale = values(reference).abs().max().item<double>();
  const double error = at::sub(values(output), values(reference)).abs().max().item<double>();
  return error <= 1e-3 * scale;
}

// Times the candidates in rounds: the first runs each one untimed (which builds its program),
// checks its result against the first's and times it once; the second times every candidate again,
// budget or not, and later ones those within twice the best while the budget lasts, in turn, so that
// a burst of load on the machine falls on all of them rather than on one. Each keeps its best time,
// over up to kTimedRuns rounds. NOTE: a single timing is not enough to drop a candidate: the first
// one timed in a process often takes several times its later time (im2col's first candidate: 667
// and 1633 us against 53-64 us in later calls, pthread-skylake-avx512-AMD EPYC). The
// untimed runs do not count against the budget (so a class's first use on a cold kernel cache takes
// the budget plus a build of every candidate, CLBlast's included): with them counted, building the first
// candidates used it all up and left the class with its default, untimed against the others (a
// 256x64x192 product of a linear layer's weight took 596 us with it, 90 us with the choice timed
// against every candidate, pthread-skylake-avx512-AMD EPYC).
Entry tune(c10::DeviceIndex device, const std::string& family, const std::string& shape_class,
           const std::vector<Candidate>& candidates, Run run) {
  const auto start = Clock::now();
  const double budget = budget_ms();
  auto deadline = start + std::chrono::microseconds(static_cast<int64_t>(budget * 1000));
  const bool exhaustive = mode() == Mode::kExhaustive;
  const c10::StreamId stream = runtime::current_stream_id(device);
  std::vector<std::pair<double, Candidate>> timed;
  at::Tensor reference;  // the result of the first candidate that ran, normally the default
  std::string first_error;
  runtime::synchronize_stream(device, stream);
  for (const Candidate& candidate : candidates) {
    if (!timed.empty() && !exhaustive && Clock::now() >= deadline) break;
    const auto untimed_start = Clock::now();
    bool credited = false;
    try {
      const at::Tensor output = run(candidate);
      runtime::synchronize_stream(device, stream);
      deadline += Clock::now() - untimed_start;
      credited = true;
      // NOTE: a candidate that a driver miscompiles must not win by being fast.
      if (!reference.defined()) {
        reference = output;
      } else if (!agrees(output, reference)) {
        if (first_error.empty()) first_error = candidate + ": results differ from " + timed.front().second + "'s";
        continue;
      }
      timed.emplace_back(time_once(device, stream, candidate, run), candidate);
    } catch (const c10::Error& e) {
      // A candidate the device cannot build or run (too much local memory, a work-group too large)
      // is left out; it never becomes the choice.
      if (!credited) deadline += Clock::now() - untimed_start;
      if (first_error.empty()) first_error = candidate + ": " + e.what_without_backtrace();
    }
  }
  TORCH_CHECK(!timed.empty(), "foo-cl: no candidate of '", family, "' runs on foo:", static_cast<int>(device), " for ",
              shape_class, "; the first failure was ", first_error);
  for (int round = 1; round < kTimedRuns && timed.size() > 1; ++round) {
    const double best = std::min_element(timed.begin(), timed.end())->first;
    for (auto& [microseconds, candidate] : timed) {
      if (round > 1 && Clock::now() >= deadline) break;
      if (round == 1 || microseconds < 2 * best) {
        microseconds = std::min(microseconds, time_once(device, stream, candidate, run));
      }
    }
  }
  std::stable_sort(timed.begin(), timed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::ostringstream timings;
  timings.precision(1);
  timings << std::fixed;
  for (size_t i = 0; i < timed.size(); ++i) timings << (i ? "; " : "") << timed[i].first << " " << timed[i].second;
  return Entry{family, shape_class, timed.front().second, timings.str()};
}

}  // namespace

Mode mode() {
  const char* env = std::getenv("FOO_CL_TUNE");
  const std::string value = env ? env : "";
  if (value.empty() || value == "on" || value == "1") return Mode::kFirstUse;
  if (value == "off" || value == "0") return Mode::kOff;
  if (value == "exhaustive") return Mode::kExhaustive;
  TORCH_CHECK(false, "foo-cl: FOO_CL_TUNE must be off, on or exhaustive, got '", value, "'");
}

Candidate choose(c10::DeviceIndex device, const std::string& family, const std::string& shape_class,
                 const std::vector<Candidate>& candidates, bool tunable, Run run) {
  TORCH_INTERNAL_ASSERT(!candidates.empty());
  auto is_candidate = [&](const Candidate& c) {
    return std::find(candidates.begin(), candidates.end(), c) != candidates.end();
  };
  std::lock_guard<std::recursive_mutex> lock(mutex());
  if (auto pinned = pins().find(family); pinned != pins().end() && is_candidate(pinned->second)) {
    return pinned->second;
  }
  if (!tunable || candidates.size() == 1 || mode() == Mode::kOff) return candidates.front();
  Table& t = table(device);
  const std::string key = key_of(family, shape_class);
  auto cached = t.entries.find(key);
  // A cached choice that is no longer a candidate (other parameters in a newer version) is retuned.
  if (cached != t.entries.end() && is_candidate(cached->second.candidate)) return cached->second.candidate;
  Entry entry = tune(device, family, shape_class, candidates, run);
  t.entries[key] = entry;
  save(device, t);
  return entry.candidate;
}

int param(const Candidate& candidate, const char* name, int fallback) {
  // NOTE: read at every launch of a tuned kernel, so without a stream or copies.
  const size_t length = std::strlen(name);
  for (size_t word = 0; word < candidate.size();) {
    const size_t end = std::min(candidate.find(' ', word), candidate.size());
    if (end - word > length && candidate.compare(word, length, name) == 0 && candidate[word + length] == '=') {
      return static_cast<int>(std::strtol(candidate.c_str() + word + length + 1, nullptr, 10));
    }
    word = end + 1;
  }
  return fallback;
}

bool is_variant(const Candidate& candidate, const char* name) {
  const std::string variant(name);
  return candidate.compare(0, variant.size(), variant) == 0 &&
         (candidate.size() == variant.size() || candidate[variant.size()] == ' ');
}

std::string bucket(const char* dim, int64_t n, int64_t lowest, int64_t highest) {
  if (n >= highest) return std::string(dim) + ">=" + std::to_string(highest);
  int64_t b = lowest;
  while (b < n) b *= 2;
  return std::string(dim) + "<=" + std::to_string(b);
}

std::vector<Entry> entries(c10::DeviceIndex device) {
  std::lock_guard<std::recursive_mutex> lock(mutex());
  std::vector<Entry> out;
  for (const auto& [key, entry] : table(device).entries) out.push_back(entry);
  return out;
}

std::string cache_path(c10::DeviceIndex device) {
  const char* dir = std::getenv("FOO_CL_TUNE_DIR");
  const fs::path folder = dir && *dir ? fs::path(dir) : fs::path(runtime::disk_cache_dir()) / "tuning";
  return (folder / (runtime::device_cache_name(device) + kFileVersion + ".txt")).string();
}

void clear(c10::DeviceIndex device) {
  std::lock_guard<std::recursive_mutex> lock(mutex());
  tables()[device] = Table{true, {}};
  std::error_code ec;
  fs::remove(cache_path(device), ec);
}

void pin(const std::string& family, const Candidate& candidate) {
  std::lock_guard<std::recursive_mutex> lock(mutex());
  if (candidate.empty()) {
    pins().erase(family);
  } else {
    pins()[family] = candidate;
  }
}

}  // namespace foo_cl::tune
