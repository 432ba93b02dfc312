// Range launches: a grid loop over the output.
#include "launch/Factory.h"

#include "launch/Launch.h"

#include <ATen/TensorIterator.h>
#include <c10/core/DeviceGuard.h>

namespace foo_cl::launch {
namespace {

// A call of `name` with the output bound; `acc` is the type its values accumulate in.
KernelCall range_kernel(at::TensorIteratorBase& iter, const char* name, c10::ScalarType acc) {
  const std::string options =
      dtype_option("OUT", iter.dtype(0)) + dtype_option("ACC", acc) + index_option(iter.numel());
  KernelCall call(iter.device(0).index(), "factory/range", name, options);
  call.buffer(iter.data_ptr(0));
  return call;
}

}  // namespace

void launch_arange(at::TensorIteratorBase& iter, const c10::Scalar& start, const c10::Scalar& step, int64_t size) {
  if (iter.numel() == 0) return;
  const c10::DeviceGuard guard(iter.device(0));
  // As CPU and CUDA, integers count in int64 from start and step converted to it (2.1 counts from 2).
  const c10::ScalarType acc = c10::isIntegralType(iter.dtype(0), /*includeBool=*/true)
                                  ? c10::kLong
                                  : range_accumulate_type(iter.device(0).index(), iter.dtype(0));
  KernelCall call = range_kernel(iter, "arange_contig", acc);
  call.scalar(start, acc);
  call.scalar(step, acc);
  call.count(size).launch(size);
}

void launch_linspace(at::TensorIteratorBase& iter, const c10::Scalar& start, const c10::Scalar& end, int64_t steps) {
  if (iter.numel() == 0) return;
  const c10::DeviceGuard guard(iter.device(0));
  const c10::ScalarType acc = range_accumulate_type(iter.device(0).index(), iter.dtype(0));
  const bool integral = c10::isIntegralType(iter.dtype(0), /*includeBool=*/true);
  const double first = integral ? static_cast<double>(start.toLong()) : start.toDouble();
  const double last = integral ? static_cast<double>(end.toLong()) : end.toDouble();
  KernelCall call = range_kernel(iter, "linspace_contig", acc);
  call.scalar(first, acc);
  call.scalar(last, acc);
  call.scalar((last - first) / static_cast<double>(steps - 1), acc);
  call.count(steps).launch(steps);
}

}  // namespace foo_cl::launch
