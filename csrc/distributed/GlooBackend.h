// torch.distributed on foo: the "foogloo" backend (foo tensors staged through host memory to gloo).
#pragma once

namespace pybind11 {
class module_;
}

namespace foo_cl::distributed {

// Adds _gloo_backend(ProcessGroupGloo) -> Backend, which foo_cl.distributed registers with c10d.
void init_bindings(pybind11::module_& m);

}  // namespace foo_cl::distributed
