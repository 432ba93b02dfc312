// The CPU fallback's controls: mode (FOO_CL_FALLBACK=warn|silent|error) and per-operator counts.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <cstdint>
#include <map>
#include <string>

namespace foo_cl::aten {

std::string fallback_mode();
void set_fallback_mode(const std::string& mode);
std::map<std::string, int64_t> fallback_counts();
void reset_fallback_counts();

// Runs `op` with the arguments on `stack` through the CPU fallback (counted and governed by
// FOO_CL_FALLBACK like an operator without a foo kernel), for cases a foo kernel does not cover.
void run_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

}  // namespace foo_cl::aten
