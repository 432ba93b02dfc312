// foo_cl._C: the Python bindings the torch.foo module is written on. Loading it registers the
// runtime (allocator, guard, hooks) and every foo kernel through static initialisers.
#include "aten/Fallback.h"
#include "launch/Gemm.h"
#include "runtime/Allocator.h"
#include "runtime/Device.h"
#include "runtime/Generator.h"
#include "runtime/ProgramCache.h"
#include "runtime/QueuePool.h"

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
  m.def("_default_generator", [](int index) { return runtime::default_generator(static_cast<c10::DeviceIndex>(index)); });
  m.def("_synchronize", [](int index) {
    py::gil_scoped_release no_gil;
    runtime::synchronize_device(static_cast<c10::DeviceIndex>(index));
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

  m.def("_kernel_cache_dir", &runtime::disk_cache_dir);
  m.def("_clear_kernel_cache", &runtime::clear_disk_cache);
  m.def("_program_builds", [] {
    py::list out;
    for (const auto& b : runtime::program_builds()) {
      out.append(py::make_tuple(b.key, b.options, b.milliseconds, b.from_disk));
    }
    return out;
  });
}
