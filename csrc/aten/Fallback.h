// The CPU fallback's controls: mode (FOO_CL_FALLBACK=warn|silent|error) and per-operator counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace foo_cl::aten {

std::string fallback_mode();
void set_fallback_mode(const std::string& mode);
std::map<std::string, int64_t> fallback_counts();
void reset_fallback_counts();

}  // namespace foo_cl::aten
