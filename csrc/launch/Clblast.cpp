// CLBlast's C API through dlopen: the library's two GEMM entry points per precision (one matrix,
// strided batches), with foo's buffers passed as cl_mem plus an element offset.
#include "launch/Clblast.h"

#include "runtime/Allocator.h"
#include "runtime/OpenCL.h"
#include "runtime/QueuePool.h"

#include <c10/util/Exception.h>

#include <dlfcn.h>

#include <algorithm>
#include <optional>

namespace foo_cl::launch {
namespace {

// NOTE: the values and signatures of clblast_c.h (CLBlast 1.x), declared here so that the
// extension builds without CLBlast's headers; the C API has kept them since 1.0.
enum Layout { kRowMajor = 101, kColMajor = 102 };
enum Transpose { kNo = 111, kYes = 112 };

template <typename T>
using Gemm = int (*)(int layout, int a_transpose, int b_transpose, size_t m, size_t n, size_t k, T alpha, cl_mem a,
                     size_t a_offset, size_t a_ld, cl_mem b, size_t b_offset, size_t b_ld, T beta, cl_mem c,
                     size_t c_offset, size_t c_ld, cl_command_queue* queue, cl_event* event);
template <typename T>
using GemmStridedBatched = int (*)(int layout, int a_transpose, int b_transpose, size_t m, size_t n, size_t k, T alpha,
                                   cl_mem a, size_t a_offset, size_t a_ld, size_t a_stride, cl_mem b, size_t b_offset,
                                   size_t b_ld, size_t b_stride, T beta, cl_mem c, size_t c_offset, size_t c_ld,
                                   size_t c_stride, size_t batch_count, cl_command_queue* queue, cl_event* event);

struct Library {
  Gemm<float> sgemm = nullptr;
  Gemm<double> dgemm = nullptr;
  GemmStridedBatched<float> sgemm_batched = nullptr;
  GemmStridedBatched<double> dgemm_batched = nullptr;
  std::string status;
};

const Library& library() {
  static const Library lib = [] {
    Library l;
    void* handle = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      l.status = std::string("not loaded (") + dlerror() + "); install CLBlast (Debian: libclblast1) to add it";
      return l;
    }
    l.sgemm = reinterpret_cast<Gemm<float>>(dlsym(handle, "CLBlastSgemm"));
    l.dgemm = reinterpret_cast<Gemm<double>>(dlsym(handle, "CLBlastDgemm"));
    l.sgemm_batched = reinterpret_cast<GemmStridedBatched<float>>(dlsym(handle, "CLBlastSgemmStridedBatched"));
    l.dgemm_batched = reinterpret_cast<GemmStridedBatched<double>>(dlsym(handle, "CLBlastDgemmStridedBatched"));
    if (!l.sgemm || !l.dgemm || !l.sgemm_batched || !l.dgemm_batched) {
      l = Library{};
      l.status = "libclblast.so.1 lacks the GEMM entry points (CLBlast older than 1.0?)";
      return l;
    }
    Dl_info info{};
    l.status = std::string("loaded from ") +
               (dladdr(reinterpret_cast<void*>(l.sgemm), &info) && info.dli_fname ? info.dli_fname : "libclblast.so.1");
    return l;
  }();
  return lib;
}

// How CLBlast addresses a rows x cols matrix with element strides (rs, cs) in a layout: not
// transposed when it is contiguous along the layout's fast dim, transposed when along the other,
// with the other stride as leading dimension. A dim of size one takes any stride.
struct Addressing {
  int transpose;
  size_t ld;
};

std::optional<Addressing> addressing(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool row_major) {
  if (!row_major) {
    std::swap(rows, cols);
    std::swap(rs, cs);
  }
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= cols)) return Addressing{kNo, size_t(std::max(rs, cols))};
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= rows)) return Addressing{kYes, size_t(std::max(cs, rows))};
  return std::nullopt;
}

const char* status_name(int status) {
  switch (status) {
    case -1017:
      return "CLBlastInvalidDimension";
    case -2046:
      return "CLBlastInvalidLocalMemUsage";
    case -2041:
      return "CLBlastDatabaseError";
    case -2039:
    case -2040:
      return "CLBlastUnknownError";
    default:
      return status > -1000 ? runtime::cl_error_name(status) : "a CLBlast status";
  }
}

template <typename T>
void enqueue(Gemm<T> gemm, GemmStridedBatched<T> batched, const at::Tensor& c, const at::Tensor& a, const at::Tensor& b,
             T alpha, T beta) {
  const int64_t batch = c.size(0), M = c.size(1), N = c.size(2), K = a.size(2);
  const bool row_major = c.stride(2) == 1 || N == 1;
  const auto c_addr = addressing(M, N, c.stride(1), c.stride(2), row_major);
  TORCH_INTERNAL_ASSERT(c_addr && c_addr->transpose == kNo);
  auto a_addr = addressing(M, K, a.stride(1), a.stride(2), row_major);
  auto b_addr = addressing(K, N, b.stride(1), b.stride(2), row_major);
  const at::Tensor A = a_addr ? a : a.contiguous(), B = b_addr ? b : b.contiguous();
  if (!a_addr) a_addr = addressing(M, K, A.stride(1), A.stride(2), row_major);
  if (!b_addr) b_addr = addressing(K, N, B.stride(1), B.stride(2), row_major);
  const runtime::BufferRef ca = runtime::buffer_of(A.const_data_ptr()), cb = runtime::buffer_of(B.const_data_ptr()),
                           cc = runtime::buffer_of(c.const_data_ptr());
  cl_command_queue queue = runtime::current_queue(c.device().index());
  const int layout = row_major ? kRowMajor : kColMajor;
  const int status =
      batch == 1 ? gemm(layout, a_addr->transpose, b_addr->transpose, M, N, K, alpha, ca.mem, ca.offset / sizeof(T),
                        a_addr->ld, cb.mem, cb.offset / sizeof(T), b_addr->ld, beta, cc.mem, cc.offset / sizeof(T),
                        c_addr->ld, &queue, nullptr)
                 : batched(layout, a_addr->transpose, b_addr->transpose, M, N, K, alpha, ca.mem, ca.offset / sizeof(T),
                           a_addr->ld, A.stride(0), cb.mem, cb.offset / sizeof(T), b_addr->ld, B.stride(0), beta,
                           cc.mem, cc.offset / sizeof(T), c_addr->ld, c.stride(0), batch, &queue, nullptr);
  TORCH_CHECK(status == 0, "foo-cl: CLBlast's GEMM failed on foo:", static_cast<int>(c.device().index()), " with ",
              status_name(status), " (", status, ") for a ", batch, " x ", M, "x", K, " @ ", K, "x", N, " product");
}

}  // namespace

bool clblast_available() {
  return library().sgemm != nullptr;
}

std::string clblast_status() {
  return library().status;
}

void clblast_gemm(const at::Tensor& c, const at::Tensor& a, const at::Tensor& b, const c10::Scalar& alpha,
                  const c10::Scalar& beta) {
  const Library& lib = library();
  TORCH_INTERNAL_ASSERT(lib.sgemm && c.dim() == 3 && a.size(2) > 0);
  const bool row_major = c.stride(2) == 1 || c.size(2) == 1;
  const auto c_addr = addressing(c.size(1), c.size(2), c.stride(1), c.stride(2), row_major);
  if (!c_addr || c_addr->transpose != kNo) {
    const at::Tensor dense = c.contiguous();
    clblast_gemm(dense, a, b, alpha, beta);
    c.copy_(dense);
    return;
  }
  if (c.scalar_type() == c10::kDouble) {
    enqueue<double>(lib.dgemm, lib.dgemm_batched, c, a, b, alpha.toDouble(), beta.toDouble());
  } else {
    enqueue<float>(lib.sgemm, lib.sgemm_batched, c, a, b, alpha.toFloat(), beta.toFloat());
  }
}

}  // namespace foo_cl::launch
