// The range launchers (kernels_cl/factory/range.cl): arange's start + i * step and linspace's
// values into an iterator's contiguous output, accumulated in CPU's types (range_accumulate_type).
#pragma once

#include <c10/core/Scalar.h>

namespace at {
class TensorIteratorBase;
}

namespace foo_cl::launch {

void launch_arange(at::TensorIteratorBase& iter, const c10::Scalar& start, const c10::Scalar& step, int64_t size);

// As CPU: an integer linspace has a fractional step; start and end are first cast to the dtype.
void launch_linspace(at::TensorIteratorBase& iter, const c10::Scalar& start, const c10::Scalar& end, int64_t steps);

}  // namespace foo_cl::launch
