// Tensor creation and metadata: empty, empty_strided, the view ops that need a backend kernel,
// resize_, set_, record_stream and whether one tensor may take another's data (`.data =`). Views
// share storage with their base, as on every PyTorch device.
#include "launch/Dtypes.h"
#include "runtime/Allocator.h"
#include "runtime/Device.h"

#include <ATen/EmptyTensor.h>
#include <ATen/native/TensorFactories.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace foo_cl::aten {
namespace {

constexpr c10::DispatchKeySet kFooKeys{c10::DispatchKey::PrivateUse1};

c10::Device foo_device(std::optional<c10::Device> device) {
  const c10::Device d = device.value_or(c10::Device(c10::DeviceType::PrivateUse1));
  TORCH_INTERNAL_ASSERT(d.type() == c10::DeviceType::PrivateUse1);
  return d;
}

at::Tensor empty(c10::IntArrayRef size, std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                 std::optional<at::Device> device, std::optional<bool> pin_memory,
                 std::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!pin_memory.value_or(false), "foo-cl: only CPU tensors can be pinned");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided, "foo-cl: only strided tensors are supported on foo");
  const c10::DeviceGuard guard(foo_device(device));
  const auto type = dtype.value_or(c10::get_default_dtype_as_scalartype());
  launch::check_dtype_supported(guard.current_device().index(), type);
  return at::detail::empty_generic(size, &runtime::allocator(), kFooKeys, type, memory_format);
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout> layout, std::optional<at::Device> device,
                         std::optional<bool> pin_memory) {
  TORCH_CHECK(!pin_memory.value_or(false), "foo-cl: only CPU tensors can be pinned");
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided, "foo-cl: only strided tensors are supported on foo");
  const c10::DeviceGuard guard(foo_device(device));
  const auto type = dtype.value_or(c10::get_default_dtype_as_scalartype());
  launch::check_dtype_supported(guard.current_device().index(), type);
  return at::detail::empty_strided_generic(size, stride, &runtime::allocator(), kFooKeys, type);
}

// Sets sizes (and strides, when given) and grows the storage to fit them, as CPU's resize does.
void resize_impl(at::Tensor& self, c10::IntArrayRef size, at::OptionalIntArrayRef stride) {
  at::TensorImpl* impl = self.unsafeGetTensorImpl();
  at::native::resize_impl_cpu_(impl, size, stride, /*resize_storage=*/false);
  if (impl->numel() == 0) return;
  const size_t itemsize = self.dtype().itemsize();
  const size_t needed =
      stride ? at::detail::computeStorageNbytes(size, *stride, itemsize, impl->storage_offset())
             : at::detail::computeStorageNbytesContiguous(size, itemsize, impl->storage_offset());
  if (needed > impl->unsafe_storage().nbytes()) {
    runtime::resize_storage_bytes(*impl->unsafe_storage().unsafeGetStorageImpl(), needed);
  }
}

const at::Tensor& resize_(const at::Tensor& self, c10::IntArrayRef size,
                          std::optional<at::MemoryFormat> memory_format) {
  at::Tensor t = self;
  resize_impl(t, size, std::nullopt);
  if (memory_format) {
    TORCH_CHECK(*memory_format != at::MemoryFormat::Preserve, "Unsupported memory format ", *memory_format);
    self.unsafeGetTensorImpl()->empty_tensor_restride(*memory_format);
  }
  return self;
}

at::Tensor& set_storage_(at::Tensor& self, at::Storage source, int64_t storage_offset, c10::IntArrayRef size,
                         c10::IntArrayRef stride) {
  at::native::checkSetStorage(self, std::move(source), storage_offset, size, stride);
  self.unsafeGetTensorImpl()->set_storage_offset(storage_offset);
  resize_impl(self, size, stride.data() != nullptr ? at::OptionalIntArrayRef(stride) : std::nullopt);
  return self;
}

at::Tensor& set_source_storage_(at::Tensor& self, at::Storage source) {
  const int64_t numel = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_storage_(self, std::move(source), 0, {numel}, {});
}

at::Tensor& set_source_tensor_(at::Tensor& self, const at::Tensor& source) {
  if (self.is_same(source)) return self;
  return set_storage_(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty_(at::Tensor& self) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, runtime::allocator().allocate_on(self.device().index(), 0),
                       &runtime::allocator(), /*resizable=*/true);
  return set_storage_(self, std::move(storage), 0, {0}, {});
}

// Delays the reuse of the tensor's memory until the work queued so far on `stream` is done.
void record_stream(at::Tensor& self, c10::Stream stream) {
  TORCH_CHECK(stream.device() == self.device(), "record_stream: the stream is on ", stream.device(),
              " but the tensor is on ", self.device());
  runtime::allocator().recordStream(self.storage().data_ptr(), stream);
}

// A tensor of zeros that owns no memory (autograd's gradients known to be zero): operators see
// its ZeroTensor dispatch key and treat it as zeros.
at::Tensor efficient_zero_tensor(c10::IntArrayRef size, std::optional<at::ScalarType> dtype,
                                 std::optional<at::Layout> /*layout*/, std::optional<at::Device> device,
                                 std::optional<bool> /*pin_memory*/) {
  c10::Device on = device.value_or(c10::Device(c10::DeviceType::PrivateUse1));
  if (!on.has_index()) on.set_index(runtime::current_device());
  at::native::ZeroTensorAllocator allocator(on);
  return at::detail::empty_generic(size, &allocator, kFooKeys | c10::DispatchKeySet(c10::DispatchKey::ZeroTensor),
                                   c10::dtype_or_default(dtype), std::nullopt);
}

// Whether `self` may take `from`'s data in place (`param.data = t`, and nn.Module._apply moving a module's
// Parameters). TensorImpl's own answer knows the built-in dense backends only; foo's strided tensors are
// dense like them, so a Parameter moved to or from foo keeps its identity as one moved to CUDA does, and
// tied weights stay tied.
bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  constexpr c10::DispatchKeySet dense_backends({c10::BackendComponent::CPUBit, c10::BackendComponent::CUDABit,
                                                c10::BackendComponent::MPSBit, c10::BackendComponent::HIPBit,
                                                c10::BackendComponent::XPUBit, c10::BackendComponent::HPUBit,
                                                c10::BackendComponent::MTIABit,
                                                c10::BackendComponent::PrivateUse1Bit});
  const auto dense = [&](const at::Tensor& t) {
    const c10::DispatchKeySet keys = t.key_set();
    return keys.has_any(c10::DispatchKeySet(c10::DispatchKey::Dense)) && keys.has_any(dense_backends);
  };
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set()) ||
         (dense(self) && dense(from));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_has_compatible_shallow_copy_type", has_compatible_shallow_copy_type);
  m.impl("_efficientzerotensor", efficient_zero_tensor);
  m.impl("empty.memory_format", empty);
  m.impl("empty_strided", empty_strided);
  m.impl("as_strided", at::native::as_strided_tensorimpl);
  m.impl("view", at::native::view);
  m.impl("_reshape_alias", at::native::_reshape_alias);
  m.impl("unfold", at::native::unfold);
  m.impl("resize_", resize_);
  m.impl("set_.source_Storage_storage_offset", set_storage_);
  m.impl("set_.source_Storage", set_source_storage_);
  m.impl("set_.source_Tensor", set_source_tensor_);
  m.impl("set_", set_empty_);
  m.impl("record_stream", record_stream);
}

}  // namespace foo_cl::aten
