// foo_cl._C: the Python bindings the torch.foo module is written on. Loading it registers the
// runtime (allocator, guard, hooks) and every foo kernel through static initialisers.
#include "aten/Fallback.h"
#include "distributed/GlooBackend.h"
#include "launch/Attention.h"
#include "launch/Clblast.h"
#include "launch/Conv.h"
#include "launch/Gemm.h"
#include "launch/Launch.h"
#include "launch/Reduce.h"
#include "launch/UserKernel.h"
#include "runtime/Allocator.h"
#include "runtime/Device.h"
#include "runtime/DeviceErrors.h"
#include "runtime/Generator.h"
#include "runtime/ProgramCache.h"
#include "runtime/QueuePool.h"
#include "tune/Tuner.h"

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>
#include <torch/csrc/utils/pybind.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace foo_cl;

namespace {

py::dict describe(const runtime::DeviceInfo& info) {
  const char* type = (info.type & CL_DEVICE_TYPE_GPU)           ? "gpu"
                     : (info.type & CL_DEVICE_TYPE_CPU)         ? "cpu"
                     : (info.type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                                : "other";
  py::dict d;
  d["name"] = info.name;
  d["vendor"] = info.vendor;
  d["driver_version"] = info.driver_version;
  d["opencl_version"] = info.opencl_version;
  d["opencl_c_version"] = info.opencl_c_version;
  d["platform_name"] = info.platform_name;
  d["platform_version"] = info.platform_version;
  d["device_type"] = type;
  d["total_memory"] = info.global_mem_size;
  d["max_alloc_size"] = info.max_alloc_size;
  d["local_memory"] = info.local_mem_size;
  d["multi_processor_count"] = info.compute_units;
  d["max_work_group_size"] = info.max_work_group_size;
  d["max_parameter_size"] = info.max_parameter_size;
  d["constant_buffer_size"] = info.constant_buffer_size;
  d["float_vector_width"] = info.float_vector_width;
  d["has_fp16"] = info.has_fp16;
  d["has_fp64"] = info.has_fp64;
  d["has_fma"] = info.has_fma;
  d["has_denormals"] = info.has_denormals;
  d["has_int64_atomics"] = info.has_int64_atomics;
  d["loop_iteration_limit"] = info.loop_iteration_limit;
  d["times_commands"] = info.times_commands;
  d["extensions"] = info.extensions;
  return d;
}

py::dict device_properties(int index) {
  return describe(runtime::device_info(static_cast<c10::DeviceIndex>(index)));
}

// What foo chose for a device, and why: the variant class and the GEMM tiles.
py::dict device_choices(int index) {
  const runtime::DeviceInfo& info = runtime::device_info(static_cast<c10::DeviceIndex>(index));
  py::dict d;
  d["device_class"] = runtime::device_class_reason(info);
  d["gemm"] = launch::gemm_tiles_summary(info);
  return d;
}

py::list opencl_inventory() {
  py::list out;
  for (const runtime::DeviceInfo& info : runtime::opencl_inventory()) out.append(describe(info));
  return out;
}

// The device whose context is `context`, or -1.
int device_of_context(uintptr_t context) {
  for (c10::DeviceIndex i = 0; i < runtime::device_count(); ++i) {
    if (reinterpret_cast<uintptr_t>(runtime::device_info(i).context) == context) return i;
  }
  return -1;
}

void release_python_object(void* object) {
  // NOTE: at interpreter exit the reference goes with the interpreter (a deleter may run then, on
  // any thread, where taking the GIL would hang or abort).
#if PY_VERSION_HEX >= 0x030D0000
  if (!Py_IsInitialized() || Py_IsFinalizing()) return;
#else
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
#endif
  py::gil_scoped_acquire gil;
  delete static_cast<py::object*>(object);
}

// A foo tensor over `nbytes` of an OpenCL buffer of foo's context from byte `offset` on (a pyopencl
// array's memory); `owner` is kept alive with it. One of foo's own buffers keeps its addresses.
at::Tensor tensor_from_buffer(int device, uintptr_t mem, size_t offset, size_t nbytes, std::vector<int64_t> sizes,
                              std::vector<int64_t> strides, at::ScalarType dtype, py::object owner) {
  const auto index = static_cast<c10::DeviceIndex>(device);
  auto kept = std::make_unique<py::object>(std::move(owner));
  c10::DataPtr data;
  if (const uintptr_t address = runtime::address_of_buffer(index, reinterpret_cast<cl_mem>(mem))) {
    data = c10::DataPtr(reinterpret_cast<void*>(address + offset), kept.get(), &release_python_object,
                        c10::Device(c10::DeviceType::PrivateUse1, index));
  } else {
    data = runtime::import_buffer(index, reinterpret_cast<cl_mem>(mem), offset, kept.get(), &release_python_object);
  }
  kept.release();  // the DataPtr owns it now
  c10::Storage storage(c10::Storage::use_byte_size_t(), nbytes, std::move(data), nullptr, /*resizable=*/false);
  at::Tensor tensor = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), c10::scalarTypeToTypeMeta(dtype));
  tensor.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides);
  return tensor;
}

launch::UserKernelSource user_kernel(std::string source, std::string name, std::string options) {
  return {std::move(source), std::move(name), std::move(options)};
}

// A launch's arguments from Python: (0, address) for a tensor, (1, bytes) for a value, (2, size) for
// __local memory.
std::vector<launch::UserKernelArg> user_kernel_args(const py::list& args) {
  std::vector<launch::UserKernelArg> out;
  for (const py::handle& item : args) {
    const auto pair = item.cast<py::tuple>();
    const int kind = pair[0].cast<int>();
    launch::UserKernelArg arg{static_cast<launch::UserKernelArg::Kind>(kind)};
    if (kind == 0) arg.address = reinterpret_cast<const void*>(pair[1].cast<uintptr_t>());
    if (kind == 1) arg.bytes = pair[1].cast<std::string>();
    if (kind == 2) arg.local_size = pair[1].cast<size_t>();
    out.push_back(std::move(arg));
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  // Runtime errors reach Python as RuntimeError with PyTorch's message, without the C++ backtrace.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const c10::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
    }
  });
  m.def("_device_count", [] { return static_cast<int>(runtime::device_count()); });
  m.def("_current_device", [] { return static_cast<int>(runtime::current_device()); });
  m.def("_set_device", [](int index) { runtime::set_current_device(static_cast<c10::DeviceIndex>(index)); });
  m.def("_check_device", [](int index) { runtime::check_device_index(static_cast<c10::DeviceIndex>(index)); });
  m.def("_device_properties", &device_properties);
  m.def("_device_choices", &device_choices);
  m.def("_opencl_inventory", &opencl_inventory);
  m.def("_is_in_bad_fork", &runtime::in_bad_fork);
  m.def("_is_initialized", &runtime::devices_initialized);
  m.def("_manual_seed_all", &runtime::manual_seed_all);
  m.def("_default_generator",
        [](int index) { return runtime::default_generator(static_cast<c10::DeviceIndex>(index)); });
  m.def("_synchronize", [](int index) {
    py::gil_scoped_release no_gil;
    runtime::synchronize_device(static_cast<c10::DeviceIndex>(index));
    try {
      runtime::raise_device_errors(static_cast<c10::DeviceIndex>(index));
    } catch (const c10::IndexError& e) {
      throw py::index_error(e.what_without_backtrace());  // as torch's own bindings raise it
    }
  });

  m.def("_memory_snapshot", [](int index) {
    py::list segments;
    for (const runtime::SegmentSnapshot& s : runtime::memory_snapshot(static_cast<c10::DeviceIndex>(index))) {
      py::list blocks;
      size_t allocated = 0, active = 0, requested = 0;
      for (const runtime::BlockSnapshot& b : s.blocks) {
        blocks.append(py::dict(py::arg("address") = b.address, py::arg("size") = b.size,
                               py::arg("requested_size") = b.requested, py::arg("state") = b.state,
                               py::arg("frames") = py::list()));
        if (std::string_view(b.state) != "inactive") active += b.size;
        if (std::string_view(b.state) == "active_allocated") allocated += b.size;
        requested += b.requested;
      }
      segments.append(py::dict(py::arg("device") = index, py::arg("address") = s.address,
                               py::arg("total_size") = s.size, py::arg("allocated_size") = allocated,
                               py::arg("active_size") = active, py::arg("requested_size") = requested,
                               py::arg("stream") = s.stream, py::arg("segment_type") = s.small ? "small" : "large",
                               py::arg("segment_pool_id") = py::make_tuple(0, 0), py::arg("is_expandable") = false,
                               py::arg("frames") = py::list(), py::arg("blocks") = blocks));
    }
    return segments;
  });
  m.def("_fallback_mode", &aten::fallback_mode);
  m.def("_set_fallback_mode", &aten::set_fallback_mode);
  m.def("_fallback_counts", &aten::fallback_counts);
  m.def("_reset_fallback_counts", &aten::reset_fallback_counts);

  // OpenCL interop (foo_cl.opencl): handles as integers, for pyopencl's from_int_ptr.
  m.def("_cl_handles", [](int index) {
    const runtime::DeviceInfo& info = runtime::device_info(static_cast<c10::DeviceIndex>(index));
    return py::dict(py::arg("device") = reinterpret_cast<uintptr_t>(info.id),
                    py::arg("context") = reinterpret_cast<uintptr_t>(info.context));
  });
  m.def("_cl_queue", [](int index, int64_t stream_id) {
    return reinterpret_cast<uintptr_t>(runtime::shared_queue(static_cast<c10::DeviceIndex>(index), stream_id));
  });
  m.def("_cl_buffer", [](const at::Tensor& tensor) {
    const runtime::BufferRef ref = runtime::buffer_of(tensor.data_ptr());
    return py::make_tuple(reinterpret_cast<uintptr_t>(ref.mem), ref.offset);
  });
  m.def("_device_of_context", &device_of_context);
  m.def("_tensor_from_buffer", &tensor_from_buffer);
  m.def("_user_kernel_params", [](int device, std::string source, std::string name, std::string options) {
    py::list out;
    for (const auto& p :
         launch::user_kernel_params(static_cast<c10::DeviceIndex>(device),
                                    user_kernel(std::move(source), std::move(name), std::move(options)))) {
      out.append(py::make_tuple(p.address_space, p.type, p.name));
    }
    return out;
  });
  m.def("_launch_user_kernel", [](int device, std::string source, std::string name, std::string options,
                                  const py::list& args, std::vector<size_t> global, std::vector<size_t> local) {
    launch::launch_user_kernel(static_cast<c10::DeviceIndex>(device),
                               user_kernel(std::move(source), std::move(name), std::move(options)),
                               user_kernel_args(args), global, local);
  });

  // The source (a Python str) is read only when the program is built.
  m.def("_launch_generated_kernel", [](int device, const std::string& key, const std::string& name,
                                       const py::object& source, const std::vector<uintptr_t>& addresses,
                                       const std::vector<int64_t>& values, int64_t n, int64_t loop_block,
                                       bool reports_errors) {
    launch::launch_generated_kernel(
        static_cast<c10::DeviceIndex>(device), key, name, [&] { return source.cast<std::string>(); }, addresses,
        values, n, loop_block, reports_errors);
  });

  distributed::init_bindings(m);

  m.def("_kernel_cache_dir", &runtime::disk_cache_dir);
  m.def("_clear_kernel_cache", &runtime::clear_disk_cache);
  m.def("_program_builds", [] {
    py::list out;
    for (const auto& b : runtime::program_builds()) {
      out.append(py::make_tuple(b.key, b.options, b.milliseconds, b.from_disk));
    }
    return out;
  });
  m.def("_tune_mode", [] {
    const tune::Mode mode = tune::mode();
    return mode == tune::Mode::kOff ? "off" : mode == tune::Mode::kExhaustive ? "exhaustive" : "on";
  });
  m.def("_tune_entries", [](int index) {
    py::list out;
    for (const auto& e : tune::entries(static_cast<c10::DeviceIndex>(index))) {
      out.append(py::make_tuple(e.family, e.shape_class, e.candidate, e.timings));
    }
    return out;
  });
  m.def("_tune_cache_path", [](int index) { return tune::cache_path(static_cast<c10::DeviceIndex>(index)); });
  m.def("_tune_clear", [](int index) { tune::clear(static_cast<c10::DeviceIndex>(index)); });
  m.def("_tune_pin", &tune::pin);
  m.def("_clblast_status", &launch::clblast_status);
  m.def("_attention_candidates", [](int index) {
    return launch::attention_candidate_list(runtime::device_info(static_cast<c10::DeviceIndex>(index)));
  });
  m.def("_row_candidates", [](int index, bool vectorized) {
    return launch::row_candidates(runtime::device_info(static_cast<c10::DeviceIndex>(index)), vectorized);
  });
  m.def("_column_candidates", [](int index, int64_t columns, bool vector_safe) {
    return launch::column_candidates(static_cast<c10::DeviceIndex>(index), columns, vector_safe);
  });
  m.def("_im2col_candidates", [](int index, bool same) {
    return launch::im2col_candidates(static_cast<c10::DeviceIndex>(index), same);
  });
  m.def("_gemm_candidates", [](int index, bool nn) {
    return launch::gemm_candidate_list(runtime::device_info(static_cast<c10::DeviceIndex>(index)), nn);
  });
}
