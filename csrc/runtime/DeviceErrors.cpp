// The devices' error words: one 4-byte buffer per device, made at its first use.
#include "runtime/DeviceErrors.h"

#include "runtime/Device.h"
#include "runtime/QueuePool.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace foo_cl::runtime {
namespace {

struct ErrorWord {
  std::once_flag made;
  cl_mem mem = nullptr;
  std::atomic<bool> armed{false};
};

ErrorWord& word_of(c10::DeviceIndex device) {
  static const auto* words = [] {
    auto* v = new std::vector<std::unique_ptr<ErrorWord>>();
    for (c10::DeviceIndex i = 0; i < device_count(); ++i) v->push_back(std::make_unique<ErrorWord>());
    return v;
  }();
  TORCH_CHECK(device >= 0 && device < static_cast<c10::DeviceIndex>(words->size()), "foo-cl: invalid device index ",
              static_cast<int>(device));
  return *(*words)[device];
}

std::string describe(cl_uint codes) {
  std::string out;
  auto add = [&](const char* what) { out += (out.empty() ? "" : "; and ") + std::string(what); };
  if (codes & kIndexOutOfRange) add("an index out of range in self (index_select, embedding)");
  if (codes & kTargetOutOfRange) add("a target out of bounds (nll_loss, cross_entropy: [0, classes) or ignore_index)");
  if (codes & kCompiledIndexOutOfRange) {
    add("an index out of range in a compiled kernel (an indexing, embedding, gather or loss target of a "
        "torch.compile'd function)");
  }
  return out;
}

}  // namespace

cl_mem error_word(c10::DeviceIndex device) {
  ErrorWord& word = word_of(device);
  std::call_once(word.made, [&] {
    cl_uint zero = 0;
    cl_int err = CL_SUCCESS;
    word.mem = clCreateBuffer(device_info(device).context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(zero),
                              &zero, &err);
    FOO_CL_CHECK(err);
  });
  word.armed.store(true, std::memory_order_release);
  return word.mem;
}

void raise_device_errors(c10::DeviceIndex device) {
  ErrorWord& word = word_of(device);
  if (!word.armed.exchange(false, std::memory_order_acq_rel)) return;
  const cl_command_queue q = queue(device, current_stream_id(device));
  cl_uint codes = 0;
  FOO_CL_CHECK(clEnqueueReadBuffer(q, word.mem, CL_TRUE, 0, sizeof(codes), &codes, 0, nullptr, nullptr));
  if (codes == 0) return;
  const cl_uint zero = 0;
  FOO_CL_CHECK(clEnqueueWriteBuffer(q, word.mem, CL_TRUE, 0, sizeof(zero), &zero, 0, nullptr, nullptr));
  TORCH_CHECK_INDEX(false, "foo-cl: a kernel on foo:", static_cast<int>(device), " found ", describe(codes),
                    ". foo reports what its kernels find at the next synchronisation with the device, as CUDA "
                    "reports device-side asserts, so an op before this one raised");
}

}  // namespace foo_cl::runtime
