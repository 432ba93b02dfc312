"""Errors name what went wrong: invalid devices, mixed devices, unsupported dtypes (NotImplementedError, as
the CPU's, for an op given a dtype its kernel has no maths for), bad fill values,
empty item(), pinning, pooling backwards given tensors of the wrong dtype, and a machine without any OpenCL
device."""

import pytest
import torch
from conftest import FOO, assert_exact, dtype_id, make_tensor, run_python_json


@pytest.mark.parametrize(
    "action",
    [
        lambda: torch.ones(2, device="foo:7"),
        lambda: torch.ones(2).to("foo:7"),
        lambda: torch.foo.set_device(7),
        lambda: torch.foo.get_device_properties(7),
        lambda: torch.foo.memory_allocated(7),
        lambda: torch.foo.synchronize(7),
        lambda: torch.foo.Stream(7),
    ],
    ids=["factory", "to", "set_device", "properties", "memory_allocated", "synchronize", "stream"],
)
def test_invalid_device_index(action):
    with pytest.raises(RuntimeError, match="invalid device index"):
        action()


@pytest.mark.parametrize(
    "action",
    [
        lambda a, c: a + c,
        lambda a, c: c + a,
        lambda a, c: torch.mm(a.view(1, 3), c.view(3, 1)),
        lambda a, c: a.add_(c),
        lambda a, c: torch.cat([a, c]),
        lambda a, c: torch.hypot(a, c),
    ],
    ids=["foo_plus_cpu", "cpu_plus_foo", "mm", "in_place", "tensor_list", "hypot"],
)
def test_mixing_foo_and_cpu_tensors_is_rejected(action):
    a = torch.ones(3, device=FOO)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        action(a, torch.ones(3))
    assert a.cpu().tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("op", [torch.add, torch.mul, torch.hypot], ids=lambda op: op.__name__)
def test_zero_dim_cpu_tensor_is_accepted_as_a_scalar(op):
    base = make_tensor((3, 4), torch.float32)
    got = op(base.to(FOO), torch.tensor(2.5))
    assert got.device == FOO
    assert_exact(got.cpu(), op(base, torch.tensor(2.5)))


@pytest.mark.parametrize(
    "operands",
    [
        lambda x: (torch.tensor(True), x, -x),
        lambda x: (x > 0, x, torch.tensor(2.5)),
        lambda x: (x > 0, torch.tensor(-1.5, dtype=torch.float64), x),
        lambda x: (x > 0, torch.tensor(3), x.to(torch.int32)),
        lambda x: (x > 0, x, x.to(torch.int64)),  # mixed dtypes on foo, converted to the result's
    ],
    ids=["condition", "other", "self_float64", "int_self", "mixed_dtypes"],
)
def test_where_takes_zero_dim_cpu_operands_as_cuda_does(operands):
    base = make_tensor((3, 4), torch.float32)
    on_foo = [t.to(FOO) if t.dim() > 0 else t for t in operands(base)]
    got = torch.where(*on_foo)
    assert got.device == FOO
    expected = torch.where(*operands(base))
    assert got.dtype == expected.dtype
    assert_exact(got.cpu(), expected)


@pytest.mark.parametrize("other_dtype", [torch.float32, torch.float16], ids=dtype_id)
def test_where_rejects_a_cpu_operand_with_dims(other_dtype):
    x = torch.ones(3, device=FOO)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.where(x > 0, x, torch.zeros(3, dtype=other_dtype))


@pytest.mark.parametrize(
    "make",
    [
        lambda d: torch.ones(2, dtype=d, device=FOO),
        lambda d: torch.ones(2, dtype=d).foo(),
        lambda d: torch.ones(2, device=FOO).to(d),
    ],
    ids=["factory", "from_cpu", "convert"],
)
def test_complex32_is_not_supported(make):
    with pytest.raises(RuntimeError, match="not supported on foo"):
        make(torch.complex32)


# NOTE: only operators whose kernel no OpenCL C compiler takes for the dtype: rusticl's builds frac of int32
# and logaddexp of int64 (PoCL's does not), and foo then computes them where the CPU raises.
UNSUPPORTED_DTYPE_CALLS = {
    "softmax_int64": lambda d: torch.softmax(torch.arange(6, device=d), 0),
    "log_softmax_int64": lambda d: torch.log_softmax(torch.arange(6, device=d), 0),
    "gelu_int64": lambda d: torch.nn.functional.gelu(torch.arange(6, device=d)),
    "bitwise_not_float32": lambda d: torch.bitwise_not(torch.ones(6, device=d)),
}


@pytest.mark.parametrize("call", UNSUPPORTED_DTYPE_CALLS.values(), ids=UNSUPPORTED_DTYPE_CALLS.keys())
def test_an_op_given_a_dtype_without_its_maths_raises_not_implemented_like_cpu(call):
    with pytest.raises(NotImplementedError):
        call("cpu")
    with pytest.raises(NotImplementedError, match="is not implemented for '(Long|Int|Float)'"):
        call(FOO)


def test_fill_with_a_non_scalar_tensor_is_rejected_like_cpu():
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        torch.zeros(3, device=FOO).fill_(torch.ones(2, device=FOO))


def test_item_of_several_or_no_elements_is_rejected_like_cpu():
    with pytest.raises(RuntimeError, match="a Tensor with 0 elements cannot be converted to Scalar"):
        torch.empty(0, device=FOO).item()
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        torch.ones(2, device=FOO).item()


@pytest.mark.parametrize(
    "backward",
    [
        lambda g, x, i: torch.ops.aten.max_pool2d_with_indices_backward(g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, i),
        lambda g, x, i: torch.ops.aten.max_pool3d_with_indices_backward(
            g.unsqueeze(2), x.unsqueeze(2), [1, 2, 2], [1, 2, 2], [0, 0, 0], [1, 1, 1], False, i.unsqueeze(2)
        ),
        lambda g, x, i: torch.ops.aten.adaptive_max_pool2d_backward(g, x, i),
    ],
    ids=["max_pool2d", "max_pool3d", "adaptive_max_pool2d"],
)
def test_pooling_backward_rejects_wrong_dtypes(backward):
    """The kernels read indices as int64 and the gradient in the input's dtype: anything else is an error, not a
    read past the end of a buffer."""
    x = torch.randn(1, 2, 4, 4, device=FOO)
    g = torch.randn(1, 2, 2, 2, device=FOO)
    i = torch.zeros(1, 2, 2, 2, dtype=torch.int64, device=FOO)
    with pytest.raises(RuntimeError, match="indices of dtype int64"):
        backward(g, x, i.int())
    with pytest.raises(RuntimeError, match=r"dtype .* for `?grad_?[oO]utput|grad_output of dtype"):
        backward(g.half(), x, i)


def test_foo_memory_cannot_be_pinned():
    with pytest.raises(RuntimeError, match="pinned"):
        torch.empty(2, device=FOO, pin_memory=True)


def test_without_an_opencl_device_everything_says_so():
    result = run_python_json(
        """
        import json, torch
        result = {"available": torch.foo.is_available(), "count": torch.foo.device_count()}
        try:
            torch.ones(1, device="foo")
        except RuntimeError as e:
            result["error"] = str(e)
        print(json.dumps(result))
        """,
        FOO_CL_PLATFORM="nonexistent",
    )
    assert result["available"] is False and result["count"] == 0
    assert "no OpenCL device" in result.get("error", "")
