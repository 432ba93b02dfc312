// The devices' error words: one 4-byte buffer per device, made at its first use.
#include "runtime/DeviceErrors.h"

#include "runtime/Device.h"
#include "runtime/QueuePool.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace foo_cl::runtime {
namespace {

struct ErrorWord {
  std::once_flag made;
  cl_mem mem = nullptr;
  // Bit s % 64: a kernel on stream s took the word since that stream's last check.
  std::atomic<uint64_t> armed{0};
};

uint64_t stream_bit(c10::StreamId stream) {
  return uint64_t{1} << (static_cast<uint64_t>(stream) % 64);
}

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
  if (codes & kIndexOutOfRange) add("an index out of range in self (index_select, embedding, embedding_bag)");
  if (codes & kTargetOutOfRange) add("a target out of bounds (nll_loss, cross_entropy: [0, classes) or ignore_index)");
  if (codes & kPositionOutOfRange) {
    add("an index out of bounds for its dimension (gather, scatter, scatter_reduce, index_add, index_copy, "
        "index_fill_, index_reduce, take, put_ or indexing with tensors)");
  }
  if (codes & kBadOffsets) {
    add("embedding_bag offsets that do not start at 0, decrease, or pass the end of the indices");
  }
  if (codes & kCompiledIndexOutOfRange) {
    add("an index out of range in a compiled kernel (an indexing, embedding, gather or loss target of a "
        "torch.compile'd function)");
  }
  if (codes & kCompiledAssert) add("a failed assertion in a compiled kernel (torch._assert_async, one_hot's classes)");
  return out;
}

// Reads the word on stream `reader` (whose work, and that of the streams in `checked`, has finished)
// and raises what it holds. NOTE: a kernel of a stream still running may set a code between the read
// and the clearing write; two streams that both fail at once can lose one of their reports.
void check(c10::DeviceIndex device, c10::StreamId reader, uint64_t checked) {
  ErrorWord& word = word_of(device);
  if ((word.armed.fetch_and(~checked, std::memory_order_acq_rel) & checked) == 0) return;
  const cl_command_queue q = queue(device, reader);
  cl_uint codes = 0;
  FOO_CL_CHECK(clEnqueueReadBuffer(q, word.mem, CL_TRUE, 0, sizeof(codes), &codes, 0, nullptr, nullptr));
  if (codes == 0) return;
  const cl_uint zero = 0;
  FOO_CL_CHECK(clEnqueueWriteBuffer(q, word.mem, CL_TRUE, 0, sizeof(zero), &zero, 0, nullptr, nullptr));
  const std::string message = "foo-cl: a kernel on foo:" + std::to_string(device) + " found " + describe(codes) +
                              ". foo reports what its kernels find at the next synchronisation with the device, as "
                              "CUDA reports device-side asserts, so an op before this one raised";
  // Bad positions raise IndexError, as on the CPU; a failed assertion alone RuntimeError.
  TORCH_CHECK_INDEX(codes == kCompiledAssert, message);
  TORCH_CHECK(false, message);
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
  return word.mem;
}

void arm_device_errors(c10::DeviceIndex device, c10::StreamId stream) {
  word_of(device).armed.fetch_or(stream_bit(stream), std::memory_order_acq_rel);
}

void raise_device_errors(c10::DeviceIndex device, c10::StreamId stream) {
  check(device, stream, stream_bit(stream));
}

void raise_device_errors(c10::DeviceIndex device) {
  check(device, 0, ~uint64_t{0});
}

}  // namespace foo_cl::runtime
