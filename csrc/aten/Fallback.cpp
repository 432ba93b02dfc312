// The boxed fallback for every operator without a foo kernel: check devices as CUDA would, count,
// warn once per operator (or raise in error mode), then run PyTorch's CPU kernel on copies and copy
// results back, which keeps in-place and out= semantics.
#include "aten/Fallback.h"

#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>

namespace foo_cl::aten {
namespace {

enum class Mode { kWarn, kSilent, kError };

Mode parse_mode(const std::string& name);

struct FallbackState {
  FallbackState() {
    const char* env = std::getenv("FOO_CL_FALLBACK");
    mode = env && *env ? parse_mode(env) : Mode::kWarn;
  }
  std::mutex mutex;
  Mode mode;
  std::map<std::string, int64_t> counts;
  std::set<std::string> warned;
};

Mode parse_mode(const std::string& name) {
  if (name == "warn") return Mode::kWarn;
  if (name == "silent") return Mode::kSilent;
  if (name == "error") return Mode::kError;
  TORCH_CHECK(false, "foo-cl: unknown fallback mode '", name, "' (expected warn, silent or error)");
}

FallbackState& state() {
  static FallbackState s;
  return s;
}

// Mixing devices raises CUDA's error: CPU tensors are allowed only as 0-dim scalars.
void check_devices(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  std::optional<c10::Device> foo_device;
  std::optional<c10::Device> other;
  auto note = [&](const at::Tensor& t) {
    if (!t.defined()) return;
    if (t.device().type() == c10::DeviceType::PrivateUse1) {
      if (!foo_device) foo_device = t.device();
      if (t.device() != *foo_device) other = t.device();
    } else if (t.device().is_cpu() && t.dim() > 0) {
      other = t.device();
    }
  };
  for (const c10::IValue& arg : torch::jit::last(stack, n)) {
    if (arg.isTensor()) {
      note(arg.toTensor());
    } else if (arg.isTensorList()) {
      for (const at::Tensor& t : arg.toTensorVector()) note(t);
    }
    // Lists of optional tensors (the indices of index and index_put_) may live on the CPU, as on CUDA.
  }
  TORCH_CHECK(!foo_device || !other, "Expected all tensors to be on the same device, but found at least two devices, ",
              *foo_device, " and ", *other, "! (in ", op.schema().operator_name(), ")");
}

void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  check_devices(op, *stack);
  const auto& name = op.schema().operator_name();
  const std::string full_name = name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
  Mode mode;
  bool first = false;
  {
    FallbackState& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    mode = s.mode;
    if (mode != Mode::kError) {
      s.counts[full_name]++;
      first = s.warned.insert(full_name).second;
    }
  }
  TORCH_CHECK_NOT_IMPLEMENTED(mode != Mode::kError, "foo-cl: the operator '", full_name,
                              "' has no foo kernel, and FOO_CL_FALLBACK=error forbids running it on the CPU");
  if (mode == Mode::kWarn && first) {
    TORCH_WARN("foo-cl: the operator '", full_name,
               "' has no foo kernel and runs on the CPU (FOO_CL_FALLBACK=silent hides this warning, "
               "FOO_CL_FALLBACK=error forbids the fallback)");
  }
  at::native::cpu_fallback(op, stack, /*error_on_views=*/true);
}

}  // namespace

void run_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  fallback(op, stack);
}

std::string fallback_mode() {
  FallbackState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  switch (s.mode) {
    case Mode::kWarn:
      return "warn";
    case Mode::kSilent:
      return "silent";
    case Mode::kError:
      return "error";
  }
  return "warn";
}

void set_fallback_mode(const std::string& mode) {
  const Mode parsed = parse_mode(mode);
  FallbackState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.mode = parsed;
  s.warned.clear();
}

std::map<std::string, int64_t> fallback_counts() {
  FallbackState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.counts;
}

void reset_fallback_counts() {
  FallbackState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.counts.clear();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>());
}

}  // namespace foo_cl::aten
