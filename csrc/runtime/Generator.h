// Philox4x32-10 generators: a default one per device and any number made by torch.Generator. A
// generator's state is (seed, offset); the offset counts the 128-bit Philox counters consumed so far,
// so a random op reserves the counters it uses and its kernel numbers them from the reserved offset.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

#include <optional>

namespace foo_cl::runtime {

// Where a kernel starts: its Philox key is `seed`, its first counter `offset`.
struct PhiloxState {
  uint64_t seed;
  uint64_t offset;
};

class PhiloxGenerator final : public c10::GeneratorImpl {
 public:
  explicit PhiloxGenerator(c10::DeviceIndex device, uint64_t seed = c10::default_rng_seed_val);

  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override;
  uint64_t seed() override;
  void set_offset(uint64_t offset) override;
  uint64_t get_offset() const override;
  // The state is a CPU uint8 tensor of 16 bytes: seed, then offset, each little-endian uint64.
  void set_state(const c10::TensorImpl& new_state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;

  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

 private:
  PhiloxGenerator* clone_impl() const override;

  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The default generator of `device` (-1: the current device), seeded with PyTorch's default seed.
const at::Generator& default_generator(c10::DeviceIndex device);

// Seeds every device's default generator (those not made yet start from `seed`).
void manual_seed_all(uint64_t seed);

at::Generator new_generator(c10::DeviceIndex device);

// Reserves `counters` counters of `gen` (the default generator of `device` when absent) for one
// kernel: returns where the kernel starts and advances the generator past them.
PhiloxState reserve_counters(const std::optional<at::Generator>& gen, c10::DeviceIndex device, uint64_t counters);

}  // namespace foo_cl::runtime
