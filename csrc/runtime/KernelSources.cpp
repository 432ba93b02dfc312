// Reading kernels_cl/ files (embedded or from FOO_CL_KERNEL_DIR) and expanding their includes.
#include "runtime/KernelSources.h"

#include <c10/util/Exception.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace foo_cl::runtime {
namespace {

std::string read_file(const std::string& path) {
  const char* dir = std::getenv("FOO_CL_KERNEL_DIR");
  if (dir && *dir) {
    std::ifstream in(std::string(dir) + "/" + path);
    TORCH_CHECK(in, "foo-cl: FOO_CL_KERNEL_DIR=", dir, " has no file ", path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  const auto& sources = embedded_kernel_sources();
  auto it = sources.find(path);
  TORCH_CHECK(it != sources.end(), "foo-cl: no kernel source kernels_cl/", path, " in this build");
  return it->second;
}

void expand_text(const std::string& text, const std::string& origin, std::set<std::string>& included,
                 std::string& out);

void expand(const std::string& path, std::set<std::string>& included, std::string& out) {
  if (!included.insert(path).second) return;  // every file is included once, like #pragma once
  expand_text(read_file(path), "kernels_cl/" + path, included, out);
}

void expand_text(const std::string& text, const std::string& origin, std::set<std::string>& included,
                 std::string& out) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto start = line.find_first_not_of(" \t");
    if (start != std::string::npos && line.compare(start, 9, "#include ") == 0) {
      const auto open = line.find('"', start);
      const auto close = line.find('"', open + 1);
      TORCH_CHECK(open != std::string::npos && close != std::string::npos, "foo-cl: ", origin,
                  ": only #include \"file\" is supported, got: ", line);
      expand(line.substr(open + 1, close - open - 1), included, out);
      continue;
    }
    out += line;
    out += '\n';
  }
}

}  // namespace

std::string program_source(const std::string& key) {
  std::set<std::string> included;
  std::string out;
  expand(key + ".cl", included, out);
  return out;
}

std::string expand_includes(const std::string& text) {
  std::set<std::string> included;
  std::string out;
  expand_text(text, "the kernel source", included, out);
  return out;
}

}  // namespace foo_cl::runtime
