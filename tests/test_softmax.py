"""softmax and log_softmax against the CPU, forward and backward (with a random incoming gradient): every dim of
0-D to 4-D inputs, contiguous and strided, every float dtype, huge values, -inf and NaN in rows, the dtype=
argument and empty inputs. No test may fall back to the CPU.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from conftest import FLOAT_DTYPES, FOO, Layout, assert_close_to_cpu, dtype_id, forward_backward

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor
FUNCTIONS = {"softmax": F.softmax, "log_softmax": F.log_softmax}
# NOTE: foo computes float16/bfloat16 in float32 and rounds once; the CPU's outputs are up to an ulp off
# that. Each device's backward reads its own rounded output y, so the gradients (grad - exp(y) * sum(grad)
# for log_softmax) differ by up to an ulp of y times the row's sum of the incoming gradient.
TOLERANCES = {
    torch.float16: {"rtol": 2e-3, "atol": 1e-3},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 1e-2},
}
GRAD_TOLERANCES = {
    torch.float16: {"rtol": 2e-3, "atol": 5e-3},
    torch.bfloat16: {"rtol": 1.6e-2, "atol": 3e-2},
}

INPUTS = {
    "zero_dim": Layout((), lambda t: t),
    "1d": Layout((7,), lambda t: t),
    "1d_long": Layout((1001,), lambda t: t),  # longer than a vector loop, with a tail
    "2d": Layout((5, 6), lambda t: t),
    "2d_transposed": Layout((6, 5), lambda t: t.t()),
    "2d_sliced": Layout((5, 14), lambda t: t[:, 1::2]),
    "3d": Layout((3, 4, 5), lambda t: t),
    "3d_transposed": Layout((3, 5, 4), lambda t: t.transpose(1, 2)),
    "4d": Layout((2, 3, 4, 5), lambda t: t),
    "4d_permuted": Layout((2, 3, 4, 5), lambda t: t.permute(3, 1, 0, 2)),
}


def normal(shape: tuple[int, ...], dtype: torch.dtype, seed: int, scale: float = 3.0) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return (scale * torch.randn(shape, generator=g, dtype=torch.float64)).to(dtype)


def every_dim(t: Tensor) -> list[int]:
    return [0, -1] if t.dim() == 0 else list(range(-t.dim(), t.dim()))


def check_like_cpu(name: str, x: Tensor, x_foo: Tensor, dim: int, **kwargs: object) -> None:
    """FUNCTIONS[name] along `dim` of x (on the CPU) and of x_foo: the same output, and the same gradient
    of x after a backward pass with one random incoming gradient."""
    fn = FUNCTIONS[name]
    grad = normal(x.shape, kwargs.get("dtype", x.dtype), seed=1, scale=1.0)
    expected, (expected_grad,) = forward_backward(lambda t: fn(t, dim, **kwargs), [x], grad)
    actual, (actual_grad,) = forward_backward(lambda t: fn(t, dim, **kwargs), [x_foo], grad)
    assert actual_grad.dtype == x.dtype
    assert_close_to_cpu(actual, expected, TOLERANCES)
    assert_close_to_cpu(actual_grad, expected_grad, GRAD_TOLERANCES)


@pytest.mark.parametrize("layout", INPUTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_forward_and_backward_along_every_dim_match_cpu(name, dtype, layout):
    base_shape, view = INPUTS[layout]
    base = normal(base_shape, dtype, seed=0)
    x, x_foo = view(base), view(base.to(FOO))
    failures = []
    for dim in every_dim(x):
        try:
            check_like_cpu(name, x, x_foo, dim)
        except Exception as e:  # noqa: BLE001 (every dim runs; the test reports them all)
            failures.append(f"dim={dim}: {type(e).__name__}: {e}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_huge_inputs_are_numerically_stable(name, dtype):
    """Inputs of thousands (exp overflows without subtracting the row maximum): finite, and like the CPU."""
    x = normal((6, 37), dtype, seed=0) * 1000
    for dim in [0, 1]:
        check_like_cpu(name, x, x.to(FOO), dim)
        assert FUNCTIONS[name](x.to(FOO), dim).isfinite().all()


NAN, INF = math.nan, math.inf
# Rows with some -inf (probability 0), all -inf (NaN on the CPU), a NaN (a NaN row), +inf (NaN where the
# inf is, 0 elsewhere), and a plain row, so that columns (dim 0) mix them too.
SPECIAL_ROWS = [
    [0.0, -INF, 1.0, 2.0, -INF, 0.5, -1.0],
    [-INF, -INF, -INF, -INF, -INF, -INF, -INF],
    [1.0, NAN, 2.0, 3.0, 4.0, 0.0, -2.0],
    [INF, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    [-INF, 3.0, 3.0, 3.0, -INF, 3.0, 2.0],
    [0.25, -0.5, 1.5, -2.0, 0.0, 1.0, 3.0],
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_rows_with_infinities_and_nan_match_cpu(name, dtype):
    """The same values, and NaN in the same places, forward and backward, along rows and columns."""
    x = torch.tensor(SPECIAL_ROWS, dtype=dtype)
    failures = []
    for dim in [1, 0]:
        try:
            check_like_cpu(name, x, x.to(FOO), dim)
        except AssertionError as e:
            failures.append(f"dim={dim}: {e}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize(
    "dtypes",
    [(torch.float16, torch.float32), (torch.bfloat16, torch.float32), (torch.float32, torch.float64)],
    ids=lambda pair: f"{dtype_id(pair[0])}->{dtype_id(pair[1])}",
)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_dtype_argument_computes_in_that_dtype(name, dtypes):
    """dtype= converts the input first: the output has that dtype, the gradient the input's."""
    dtype, result_dtype = dtypes
    x = normal((4, 9), dtype, seed=0)
    for dim in [1, 0]:
        check_like_cpu(name, x.t(), x.to(FOO).t(), dim, dtype=result_dtype)
        assert FUNCTIONS[name](x.to(FOO), dim, dtype=result_dtype).dtype == result_dtype


@pytest.mark.parametrize("shape", [(0, 5), (3, 0), (2, 0, 3)], ids=str)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_empty_inputs_match_cpu(name, shape):
    x = normal(shape, torch.float32, seed=0)
    for dim in every_dim(x):
        check_like_cpu(name, x, x.to(FOO), dim)
