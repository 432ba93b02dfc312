// Errors kernels find in their inputs (an index out of range), reported without the host waiting
// for the device at the op: the kernel ORs a code into its device's error word and leaves the bad
// element alone, and the next synchronisation with the device (a stream, event or device
// synchronize, a blocking copy to the host) raises IndexError (RuntimeError for a compiled kernel's failed
// assertion alone), as CUDA reports device-side asserts.
#pragma once

#include "runtime/OpenCL.h"

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

namespace foo_cl::runtime {

// The codes of kernels_cl/common.clh's FOO_ERROR_* (bits of the error word).
enum DeviceError : cl_uint {
  kIndexOutOfRange = 1,          // index_select, embedding, embedding_bag: "index out of range in self"
  kTargetOutOfRange = 2,         // nll_loss, cross_entropy: a target outside [0, classes)
  kCompiledIndexOutOfRange = 4,  // an indirect index of a torch.compile'd kernel
  kPositionOutOfRange = 8,       // gather, scatter, index_add/copy/fill_, take, put_, indexing with tensors
  kBadOffsets = 16,              // embedding_bag: offsets not from 0, decreasing or past the indices' end
  kCompiledAssert = 32,          // a torch.compile'd kernel's device assertion (torch._assert_async, one_hot)
};

// The error word of `device`, for a kernel argument.
cl_mem error_word(c10::DeviceIndex device);

// After enqueueing a kernel that takes the error word on `stream`: the next synchronisation of that
// stream (or of the device) reads the word.
void arm_device_errors(c10::DeviceIndex device, c10::StreamId stream);

// After stream `stream` of `device` finished its work: raises the error of the codes kernels set
// (and clears them) when a kernel on that stream took the error word since its last check; costs a
// 4-byte read then, else nothing.
void raise_device_errors(c10::DeviceIndex device, c10::StreamId stream);

// As above after every stream of `device` finished.
void raise_device_errors(c10::DeviceIndex device);

}  // namespace foo_cl::runtime
