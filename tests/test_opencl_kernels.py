"""User OpenCL kernels (foo_cl.opencl.Kernel): launches on views, argument conversion and checks, local
memory and work-group shapes, the program cache, streams, and a kernel made into a custom operator that
trains and compiles (examples/custom_kernel.py)."""

import numpy as np
import pytest
import torch
from conftest import FOO, ON_POCL, assert_close_to_cpu, assert_exact, dtype_id, make_tensor, run_python_json

import foo_cl
from examples import custom_kernel
from foo_cl.opencl import Kernel, LocalMemory

AXPY = Kernel(
    """
    #include "common.clh"
    __kernel void axpy(__global float* y, ulong y_offset, __global const float* x, ulong x_offset, float a, uint n) {
      __global float* py = FOO_PTR(float, y, y_offset);
      __global const float* px = FOO_PTR(const float, x, x_offset);
      size_t i = get_global_id(0);
      if (i < n) py[i] += a * px[i];
    }
    """,
    "axpy",
)

# Writes each by-value argument, converted to float64 where the device has it (else float32), to `out`.
SCALARS = """
__kernel void scalars(__global TYPE* out, ulong out_offset, char c, uchar uc, short s, ushort us, int i, uint ui,
                      long l, ulong ul, float f, float3 v3, float4 v4) {
  __global TYPE* o = (__global TYPE*)((__global char*)out + out_offset);
  o[0] = c; o[1] = uc; o[2] = s; o[3] = us; o[4] = i; o[5] = ui; o[6] = l; o[7] = ul; o[8] = f;
  o[9] = v3.x; o[10] = v3.z; o[11] = v4.x; o[12] = v4.w;
}
"""


def test_a_kernel_runs_on_views_and_matches_cpu():
    y, x = make_tensor((30,), torch.float32), make_tensor((40,), torch.float32, seed=1)
    y_foo, x_foo = y.to(FOO), x.to(FOO)
    AXPY(16, y_foo[3:13], x_foo[20:30], 0.5, 10)  # global size past n: the kernel guards
    expected = y.clone()
    expected[3:13] += 0.5 * x[20:30]
    assert_exact(y_foo.cpu(), expected)


def test_numbers_are_converted_to_the_declared_parameter_types():
    dtype = torch.float64 if torch.foo.get_device_properties(0).has_fp64 else torch.float32
    kernel = Kernel(SCALARS, "scalars", options=f"-DTYPE={'double' if dtype == torch.float64 else 'float'}")
    out = torch.zeros(13, dtype=dtype, device=FOO)
    args = (-5, 250, -30000, np.uint16(60000), -(2**31), 2**32 - 1, -(2**40), np.uint64(2**40), 1.5)
    kernel(1, out, *args, (1, 2, 3), np.array([4, 5, 6, 7], dtype=np.float32))
    expected = torch.tensor([float(a) for a in args] + [1.0, 3.0, 4.0, 7.0], dtype=torch.float64).to(dtype)
    assert out.cpu().tolist() == expected.tolist()


@pytest.mark.parametrize(
    "args, message",
    [
        ((1.0, 2, 3), "argument 0"),  # a number for a tensor
        ((lambda: torch.zeros(4, device=FOO), lambda: torch.zeros(4, device=FOO), 1.0), "arguments but was given 3"),
        ((lambda: torch.zeros(4, device=FOO), lambda: torch.zeros(4, device=FOO), 1.0, 2.5), "cannot pass 2.5"),
        ((lambda: torch.zeros(4, device=FOO), lambda: torch.zeros(4, device=FOO), 1.0, -1), "cannot pass -1"),
        ((lambda: torch.zeros(4, device=FOO), lambda: torch.zeros(4, device=FOO), "a", 4), "cannot pass 'a'"),
        ((lambda: torch.zeros(4, device=FOO), lambda: torch.zeros(4, device=FOO), torch.ones(()), 4), "got a tensor"),
        ((lambda: torch.zeros(4, device=FOO), lambda: torch.zeros(4, dtype=torch.int32, device=FOO), 1.0, 4), "int32"),
        (
            (lambda: torch.zeros(4, device=FOO), lambda: torch.zeros(4, dtype=torch.float16, device=FOO), 1.0, 4),
            "float16",
        ),
    ],
    ids=[
        "number_for_tensor",
        "too_few",
        "fraction_for_uint",
        "negative_for_uint",
        "string",
        "tensor_for_float",
        "int_tensor_for_float_pointer",
        "half_tensor_for_float_pointer",
    ],
)
def test_wrong_arguments_raise_naming_the_parameter(args, message):
    args = [a() if callable(a) else a for a in args]
    with pytest.raises(TypeError, match=message):
        AXPY(4, *args)


def test_tensors_must_be_dense_foo_tensors():
    y = torch.zeros(4, device=FOO)
    with pytest.raises(ValueError, match="foo tensor"):
        AXPY(4, y, torch.zeros(4), 1.0, 4)
    with pytest.raises(ValueError, match="contiguous"):
        AXPY(4, y, torch.zeros(8, device=FOO)[::2], 1.0, 4)


@pytest.mark.two_devices
def test_tensors_on_two_devices_are_refused():
    with pytest.raises(ValueError, match="same device"):
        AXPY(4, torch.zeros(4, device=FOO), torch.zeros(4, device="foo:1"), 1.0, 4)


def test_a_kernel_runs_on_the_device_of_its_tensors():
    if torch.foo.device_count() < 2:
        pytest.skip("needs foo:1")
    y = torch.zeros(4, device="foo:1")
    AXPY(4, y, torch.ones(4, device="foo:1"), 2.0, 4)
    assert y.cpu().tolist() == [2.0] * 4 and torch.foo.current_device() == 0


def test_signatures_outside_foos_abi_are_explained():
    no_offset = Kernel("__kernel void k(__global float* y, uint n) { y[0] = n; }", "k")
    with pytest.raises(TypeError, match="ulong byte offset"):
        no_offset(1, torch.zeros(1, device=FOO), 1)
    constant = Kernel("__kernel void k(__constant float* x, ulong o, __global float* y, ulong p) { }", "k")
    with pytest.raises(TypeError, match="__global const"):
        constant(1, torch.zeros(1, device=FOO), torch.zeros(1, device=FOO))


def test_local_memory_and_work_group_shapes():
    # Each work-group of 8 sums its elements in local memory; a 2-D range of (8 * groups, 2) rows.
    kernel = Kernel(
        """
        __kernel void group_sums(__global float* out, ulong out_offset, __global const float* x, ulong x_offset,
                                 __local float* scratch) {
          __global float* o = (__global float*)((__global char*)out + out_offset);
          __global const float* in = (__global const float*)((__global const char*)x + x_offset);
          size_t row = get_global_id(1), cols = get_global_size(0), lid = get_local_id(0);
          scratch[lid] = in[row * cols + get_global_id(0)];
          barrier(CLK_LOCAL_MEM_FENCE);
          if (lid == 0) {
            float sum = 0.0f;
            for (size_t j = 0; j < get_local_size(0); ++j) sum += scratch[j];
            o[row * get_num_groups(0) + get_group_id(0)] = sum;
          }
        }
        """,
        "group_sums",
    )
    x = torch.arange(64, dtype=torch.float32).view(2, 32)
    out = torch.zeros(2, 4, device=FOO)
    kernel((32, 2), out, x.to(FOO), LocalMemory(8 * 4), local_size=(8, 1))
    assert_exact(out.cpu(), x.view(2, 4, 8).sum(-1))
    with pytest.raises(RuntimeError, match="not a multiple of local size"):
        kernel((30, 2), out, x.to(FOO), LocalMemory(8 * 4), local_size=(8, 1))
    with pytest.raises(TypeError, match="LocalMemory"):
        kernel((32, 2), out, x.to(FOO), 32, local_size=(8, 1))


def test_an_empty_launch_or_tensor_is_fine():
    AXPY(0, torch.empty(0, device=FOO), torch.empty(0, device=FOO), 1.0, 0)
    y = torch.zeros(4, device=FOO)
    AXPY(4, y, torch.empty(0, device=FOO), 1.0, 0)  # n = 0: the kernel reads nothing
    assert not y.cpu().any()


def test_build_failures_and_unknown_names_are_explained():
    broken = Kernel("__kernel void k(__global float* y, ulong o) { y[0] = undefined_name; }", "k")
    with pytest.raises(RuntimeError, match=r"(?s)failed to build OpenCL kernel 'user:k@[0-9a-f]+'.*undefined_name"):
        broken(1, torch.zeros(1, device=FOO))
    with pytest.raises(RuntimeError, match="kernel 'nope' not found"):
        Kernel("__kernel void k(__global float* y, ulong o) { }", "nope").params()


def test_a_source_with_several_kernels_describes_each():
    source = """
    __kernel void first(__global float* y, ulong y_offset, float a) { }
    __kernel void second(__global int* y, ulong y_offset, uint n, uint m) { }
    """
    assert [p[1] for p in Kernel(source, "first").params()] == ["float*", "ulong", "float"]
    assert [p[1] for p in Kernel(source, "second").params()] == ["int*", "ulong", "uint", "uint"]


def test_programs_are_cached_in_memory_and_on_disk():
    source = AXPY.source + "\n// cached\n"
    first, second = Kernel(source, "axpy"), Kernel(source, "axpy")
    y, x = torch.zeros(1, device=FOO), torch.zeros(1, device=FOO)  # zeros' own program built first
    first.params()
    builds = len(foo_cl._C._program_builds())
    second(1, y, x, 1.0, 1)
    assert len(foo_cl._C._program_builds()) == builds
    again = run_python_json(
        f"""
        import json, torch, foo_cl
        from foo_cl.opencl import Kernel
        Kernel({source!r}, "axpy").params()
        print(json.dumps([b[3] for b in foo_cl._C._program_builds() if b[0].startswith("user:axpy")]))
        """
    )
    # PoCL's programs are left to PoCL's own cache: foo-cl reads no binary of its own there.
    assert again == [not ON_POCL]


def test_launches_go_on_the_current_stream():
    side = torch.foo.Stream()
    y, x = torch.zeros(1 << 16, device=FOO), torch.ones(1 << 16, device=FOO)
    side.wait_stream(torch.foo.current_stream())
    with torch.foo.stream(side):
        for _ in range(3):
            AXPY(1 << 16, y, x, 1.0, 1 << 16)
        done = torch.foo.Event()
        done.record()
    torch.foo.current_stream().wait_event(done)
    assert y.sum().item() == 3 * (1 << 16)


@pytest.mark.parametrize("dtype", [torch.float32], ids=dtype_id)
def test_a_kernel_as_a_custom_op_matches_cpu_with_gradients(dtype):
    x = make_tensor((5, 37), dtype) / 50
    assert_close_to_cpu(custom_kernel.swish(x.to(FOO)[:, 2:30], 1.3), custom_kernel.swish(x[:, 2:30], 1.3))
    leaf_cpu, leaf_foo = x.clone().requires_grad_(), x.to(FOO).requires_grad_()
    custom_kernel.swish(leaf_cpu, 0.7).pow(2).sum().backward()
    custom_kernel.swish(leaf_foo, 0.7).pow(2).sum().backward()
    assert_close_to_cpu(leaf_foo.grad, leaf_cpu.grad)


def test_the_custom_op_passes_opcheck_and_compiles():
    x = make_tensor((4, 9), torch.float32).to(FOO) / 50
    # (opcheck's autograd-registration check knows only CPU, CUDA and XPU.)
    checks = ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic")
    torch.library.opcheck(custom_kernel.swish, (x, 1.5), test_utils=checks)
    torch.library.opcheck(custom_kernel.swish, (x.requires_grad_(), 0.5), test_utils=checks)
    model = torch.nn.Sequential(custom_kernel.Swish(1.5), torch.nn.Linear(9, 3))
    expected = model(x.detach().cpu())
    compiled = torch.compile(model.to(FOO), backend="aot_eager", fullgraph=True)
    assert_close_to_cpu(compiled(x), expected)
