// The random-fill launcher: runs a kernels_cl/random/<op>.cl program over a foo tensor, taking the
// Philox counters it consumes from a generator. Values follow the tensor's logical (row-major) index,
// so a non-contiguous tensor gets the values a contiguous one of its shape would.
#pragma once

#include "runtime/Generator.h"

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <optional>
#include <string>

namespace foo_cl::launch {

// The tiles of draws a kernel takes for n elements: 32 elements (16 with 64-bit draws) per tile of
// 8 Philox blocks (kernels_cl/random/philox.clh).
uint64_t philox_tiles(int64_t n, int bits);

// Reserves the counters of those tiles, 8 per tile, from `gen` (the default generator of `device`
// when absent): where the kernel's draws start.
runtime::PhiloxState reserve_philox_tiles(const std::optional<at::Generator>& gen, c10::DeviceIndex device, int64_t n,
                                          int bits);

// Fills `out` with the program `key` (random/uniform, random/normal, ...); s0 and s1 are the op's
// parameters, passed as float (double for a float64 output). `bits` is 64 when an element needs
// 64 random bits. `input`, when defined, is a tensor of out's shape whose values the op reads.
void launch_random(const at::Tensor& out, const std::string& key, int bits, const std::optional<at::Generator>& gen,
                   double s0, double s1, const at::Tensor& input = {});

// Fills `out` with base + (random bits % range), from 32 random bits when range fits them and 64
// otherwise; range 0 means all 2^64 values.
void launch_random_integers(const at::Tensor& out, uint64_t range, int64_t base,
                            const std::optional<at::Generator>& gen);

// Inverted dropout: mask = Bernoulli(p1m) (bool), out = input * mask * scale; out and mask contiguous.
void launch_dropout(const at::Tensor& out, const at::Tensor& mask, const at::Tensor& input, double p1m, double scale,
                    const std::optional<at::Generator>& gen);

// A uniform random permutation of 0 .. n-1 into out (contiguous int64 [n]), by random buckets
// shuffled one by one (kernels_cl/random/randperm.cl).
void launch_randperm(const at::Tensor& out, const std::optional<at::Generator>& gen);

// Samples with replacement: out [rows, samples] (int64) gets category indices drawn from each row
// of `cdf` [rows, categories], the running sums of the weights (float or double).
void launch_multinomial(const at::Tensor& out, const at::Tensor& cdf, const std::optional<at::Generator>& gen);

}  // namespace foo_cl::launch
