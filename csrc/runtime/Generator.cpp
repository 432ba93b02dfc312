// PhiloxGenerator and the per-device default generators.
#include "runtime/Generator.h"

#include "runtime/Device.h"

#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>
#include <c10/core/TensorImpl.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace foo_cl::runtime {

constexpr size_t kStateBytes = 2 * sizeof(uint64_t);

PhiloxGenerator::PhiloxGenerator(c10::DeviceIndex device, uint64_t seed)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, device),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
      seed_(seed) {}

void PhiloxGenerator::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t PhiloxGenerator::current_seed() const {
  return seed_;
}

uint64_t PhiloxGenerator::seed() {
  const uint64_t random = c10::detail::getNonDeterministicRandom(/*is_cuda=*/true);
  set_current_seed(random);
  return random;
}

void PhiloxGenerator::set_offset(uint64_t offset) {
  offset_ = offset;
}

uint64_t PhiloxGenerator::get_offset() const {
  return offset_;
}

void PhiloxGenerator::set_state(const c10::TensorImpl& new_state) {
  at::detail::check_rng_state(new_state);
  TORCH_CHECK(new_state.numel() == kStateBytes, "foo-cl: a foo RNG state has ", kStateBytes, " bytes, got ",
              new_state.numel(), " (was it saved from another device type?)");
  uint64_t words[2];
  std::memcpy(words, new_state.data(), kStateBytes);
  seed_ = words[0];
  offset_ = words[1];
}

c10::intrusive_ptr<c10::TensorImpl> PhiloxGenerator::get_state() const {
  at::Tensor state = at::detail::empty_cpu({static_cast<int64_t>(kStateBytes)}, c10::ScalarType::Byte, std::nullopt,
                                           std::nullopt, std::nullopt, std::nullopt);
  const uint64_t words[2] = {seed_, offset_};
  std::memcpy(state.data_ptr(), words, kStateBytes);
  return state.getIntrusivePtr();
}

PhiloxGenerator* PhiloxGenerator::clone_impl() const {
  auto* copy = new PhiloxGenerator(device().index(), seed_);
  copy->offset_ = offset_;
  return copy;
}

namespace {

// The default generators are made on first use with the seed manual_seed_all set before then, so
// torch.manual_seed() does not open the OpenCL devices of a program that never uses foo.
struct DefaultGenerators {
  std::mutex mutex;
  std::atomic<bool> created{false};
  std::vector<at::Generator> all;
  uint64_t seed = c10::default_rng_seed_val;
};

DefaultGenerators& defaults() {
  static DefaultGenerators d;
  return d;
}

}  // namespace

const at::Generator& default_generator(c10::DeviceIndex device) {
  if (device < 0) device = current_device();
  check_device_index(device);
  DefaultGenerators& d = defaults();
  if (!d.created.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(d.mutex);
    if (!d.created.load(std::memory_order_relaxed)) {
      for (c10::DeviceIndex i = 0; i < device_count(); ++i) d.all.push_back(at::make_generator<PhiloxGenerator>(i, d.seed));
      d.created.store(true, std::memory_order_release);
    }
  }
  return d.all[device];
}

void manual_seed_all(uint64_t seed) {
  DefaultGenerators& d = defaults();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.seed = seed;
  for (at::Generator& gen : d.all) {
    std::lock_guard<std::mutex> gen_lock(gen.mutex());
    gen.set_current_seed(seed);
  }
}

at::Generator new_generator(c10::DeviceIndex device) {
  if (device < 0) device = current_device();
  check_device_index(device);
  return at::make_generator<PhiloxGenerator>(device);
}

PhiloxState reserve_counters(const std::optional<at::Generator>& gen, c10::DeviceIndex device, uint64_t counters) {
  auto* philox = at::get_generator_or_default<PhiloxGenerator>(gen, default_generator(device));
  std::lock_guard<std::mutex> lock(philox->mutex_);
  const PhiloxState state{philox->current_seed(), philox->get_offset()};
  philox->set_offset(state.offset + counters);
  return state;
}

}  // namespace foo_cl::runtime
