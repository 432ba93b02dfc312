"""Automatic mixed precision on foo: the autocast switch and dtype; which operators autocast runs in float16 or
bfloat16 and which in float32, as on CUDA; their results against the CPU's on inputs cast the same way; the
GradScaler's kernels (unscaling with the inf/NaN check, the scale update) bit for bit against the CPU's; and a
training loop whose steps with inf or NaN gradients the GradScaler skips as on the CPU. Nothing may fall back to
the CPU.
"""

import copy
import math
from collections.abc import Callable, Iterator

import pytest
import torch
import torch.nn.functional as F
from conftest import FLOAT_DTYPES, FOO, LOW_PRECISION, assert_close_to_cpu, assert_exact, dtype_id, on, randn
from torch import nn

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

LOW_DTYPES = [torch.float16, torch.bfloat16]


@pytest.fixture
def autocast_state() -> Iterator[None]:
    """Restores foo's autocast switch and dtype after the test."""
    enabled, dtype = torch.foo.is_autocast_enabled(), torch.foo.get_autocast_dtype()
    yield
    torch.foo.set_autocast_enabled(enabled)
    torch.foo.set_autocast_dtype(dtype)


def test_amp_supported_dtypes():
    assert torch.foo.get_amp_supported_dtype() == [torch.float16, torch.bfloat16]


@pytest.mark.usefixtures("autocast_state")
def test_autocast_switch_and_dtype():
    assert not torch.foo.is_autocast_enabled()
    assert torch.foo.get_autocast_dtype() == torch.float16
    with torch.autocast("foo", dtype=torch.bfloat16):
        assert torch.foo.is_autocast_enabled()
        assert torch.foo.get_autocast_dtype() == torch.bfloat16
    assert not torch.foo.is_autocast_enabled()
    assert torch.foo.get_autocast_dtype() == torch.float16
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert not torch.foo.is_autocast_enabled(), "CPU autocast turned on foo's"
    a = randn(3, 3).to(FOO)
    torch.foo.set_autocast_dtype(torch.bfloat16)
    assert torch.get_autocast_dtype("foo") == torch.bfloat16
    torch.foo.set_autocast_enabled(True)
    assert torch.is_autocast_enabled("foo")
    assert (a @ a).dtype == torch.bfloat16
    torch.foo.set_autocast_enabled(False)
    assert (a @ a).dtype == torch.float32


def autocast_ops() -> dict[str, Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]]:
    """name: fn(a [4, 4] float32, b [4, 4] float32, image [1, 2, 5, 5] float32, weight [3, 2, 3, 3] float32)."""
    return {
        "matmul": lambda a, b, x, w: a @ b,
        "mm": lambda a, b, x, w: torch.mm(a, b),
        "bmm": lambda a, b, x, w: torch.bmm(a[None], b[None]),
        "addmm": lambda a, b, x, w: torch.addmm(a, a, b),
        "linear": lambda a, b, x, w: F.linear(a, b, b[0]),
        "conv2d": lambda a, b, x, w: F.conv2d(x, w, padding=1),
        "conv1d": lambda a, b, x, w: F.conv1d(a[None], b[:, :, None]),
        "conv_transpose2d": lambda a, b, x, w: F.conv_transpose2d(x, w.transpose(0, 1)),
    }


# Numerically sensitive ops run in float32 on CUDA's lists, given (positive) inputs in the lower dtype.
FLOAT32_OPS: dict[str, Callable[[Tensor], Tensor]] = {
    "exp": torch.exp,
    "log": torch.log,
    "pow": lambda t: torch.pow(t, 2.5),
    "rsqrt": torch.rsqrt,
    "softmax": lambda t: torch.softmax(t, -1),
    "log_softmax": lambda t: F.log_softmax(t, -1),
    "sum": torch.sum,
    "sum_dim": lambda t: t.sum(0),
    "cumsum": lambda t: t.cumsum(0),
    "prod": lambda t: t.prod(1),
    "layer_norm": lambda t: F.layer_norm(t, (4,)),
    "logsumexp": lambda t: t.logsumexp(1),
    "cosine_similarity": lambda t: F.cosine_similarity(t, t.t()),
    "nll_loss": lambda t: F.nll_loss(t, torch.arange(4, device=t.device)),
    "binary_cross_entropy_with_logits": lambda t: F.binary_cross_entropy_with_logits(t, torch.full_like(t, 0.25)),
}


@pytest.mark.usefixtures("autocast_state")
@pytest.mark.parametrize("dtype", LOW_DTYPES, ids=dtype_id)
def test_autocast_casts_like_cuda(dtype):
    a, b = randn(4, 4, seed=1).to(FOO), randn(4, 4, seed=2).to(FOO)
    x, w = randn(1, 2, 5, 5, seed=3).to(FOO), randn(3, 2, 3, 3, seed=4).to(FOO)
    low = (a.abs() + 0.5).to(dtype)
    with torch.autocast("foo", dtype=dtype):
        for name, fn in autocast_ops().items():
            assert fn(a, b, x, w).dtype == dtype, name
        for name, fn in FLOAT32_OPS.items():
            assert fn(low).dtype == torch.float32, name
        # float32 through nll_loss (its log_softmax keeps the input's dtype, as on CUDA)
        assert F.cross_entropy(low, torch.arange(4, device=FOO)).dtype == torch.float32
        # promote: the widest input dtype
        assert torch.addcmul(low, a, low).dtype == torch.float32
        assert torch.addcmul(low, low, low).dtype == dtype
        # ops on no list run in their input's dtype
        assert (low + low).relu().dtype == dtype
        assert (a + a).relu().dtype == torch.float32
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(a.sigmoid(), b.sigmoid())
    # outside autocast nothing is cast
    for name, fn in autocast_ops().items():
        assert fn(a, b, x, w).dtype == torch.float32, name
    for name, fn in FLOAT32_OPS.items():
        assert fn(low).dtype == dtype, name


@pytest.mark.usefixtures("autocast_state")
@pytest.mark.parametrize("dtype", LOW_DTYPES, ids=dtype_id)
def test_autocast_results_match_cpu_in_the_lower_dtype(dtype):
    """Autocast's matmul/conv equal the CPU's on inputs cast to the lower dtype; its float32 ops the CPU's float32."""
    a, b = randn(4, 4, seed=1), randn(4, 4, seed=2)
    x, w = randn(1, 2, 5, 5, seed=3), randn(3, 2, 3, 3, seed=4)
    low = [t.to(dtype) for t in (a, b, x, w)]
    positive = (a.abs() + 0.5).to(dtype)
    with torch.autocast("foo", dtype=dtype):
        actual = [fn(*[t.to(FOO) for t in (a, b, x, w)]) for fn in autocast_ops().values()]
        actual_fp32 = [fn(positive.to(FOO)) for fn in FLOAT32_OPS.values()]
    assert_close_to_cpu(actual, [fn(*low) for fn in autocast_ops().values()], LOW_PRECISION)
    assert_close_to_cpu(actual_fp32, [fn(positive.float()) for fn in FLOAT32_OPS.values()])


def unscale(device: torch.device | str, grads: list[Tensor], inv_scale: float, found: float) -> tuple:
    grads = [on(device, g) for g in grads]
    found_inf = torch.tensor([found], device=device)
    torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, torch.tensor([inv_scale], device=device))
    return grads, found_inf


@pytest.mark.parametrize("inv_scale", [2.0**-16, 1 / 3, 2.0**-26], ids=["2^-16", "1/3", "2^-26"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_amp_unscale_matches_cpu(dtype, inv_scale):
    grads = [randn(7, dtype=dtype) * 10, randn(4, 6, dtype=dtype, seed=1)[:, ::2], torch.empty(0, dtype=dtype)]
    # step by step: finite gradients, then an inf, then a NaN (found_inf stays 1 once set)
    for step in range(3):
        if step == 1:
            grads[1][2, 1] = math.inf
        if step == 2:
            grads[0][3] = math.nan
        for found in (0.0, 1.0):
            actual, expected = unscale(FOO, grads, inv_scale, found), unscale("cpu", grads, inv_scale, found)
            for a, e in zip(actual[0], expected[0]):
                assert_exact(a.cpu(), e)
            assert_exact(actual[1].cpu(), expected[1])
            assert expected[1].item() == (1.0 if step or found else 0.0)


@pytest.mark.parametrize(
    ("growth_interval", "initial_scale"),
    [(1, 2.0**16), (3, 2.0**16), (2, 3e38)],
    ids=["interval_1", "interval_3", "growth_overflows"],
)
def test_amp_update_scale_matches_cpu(growth_interval, initial_scale):
    found = [0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0]
    states = {}
    for device in ("cpu", FOO):
        scale = torch.tensor([initial_scale], device=device)
        tracker = torch.zeros(1, dtype=torch.int32, device=device)
        history = []
        for f in found:
            found_inf = torch.tensor([float(f)], device=device)
            result = torch._amp_update_scale_(scale, tracker, found_inf, 2.0, 0.5, growth_interval)
            assert result is scale
            history.append((scale.item(), tracker.item()))
        states[torch.device(device).type] = history
    assert states["foo"] == states["cpu"]
    assert len({s for s, _ in states["foo"]}) > 2, "the scale neither grew nor backed off"


def test_amp_update_scale_treats_nan_found_inf_as_found_like_cpu():
    states = {}
    for device in ("cpu", FOO):
        scale, tracker = torch.tensor([8.0], device=device), torch.zeros(1, dtype=torch.int32, device=device)
        torch._amp_update_scale_(scale, tracker, torch.tensor([math.nan], device=device), 2.0, 0.5, 1)
        states[torch.device(device).type] = (scale.item(), tracker.item())
    assert states["cpu"] == (4.0, 0)
    assert states["foo"] == states["cpu"]


def test_grad_scaler_skips_steps_with_inf_gradients_like_cpu():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    inputs = [randn(5, 4, seed=s) for s in range(7)]
    inputs[2][0, 1] = math.inf  # inf and NaN gradients: the step is skipped and the scale halves
    inputs[5][3, 0] = math.nan
    runs = {}
    for device in ("cpu", FOO):
        m = copy.deepcopy(model).to(device)
        opt = torch.optim.SGD(m.parameters(), lr=0.05)
        scaler = torch.amp.GradScaler(torch.device(device).type, init_scale=2.0**10, growth_interval=2)
        history = []
        for step, x in enumerate(inputs):
            before = [p.detach().to("cpu", copy=True) for p in m.parameters()]
            opt.zero_grad()
            scaler.scale(m(x.to(device)).square().mean()).backward()
            scaler.step(opt)
            scaler.update()
            after = [p.detach().cpu() for p in m.parameters()]
            skipped = all(torch.equal(b, a) for b, a in zip(before, after))
            assert skipped == (step in (2, 5)), f"step {step} on {device}"
            history.append(scaler.get_scale())
        runs[torch.device(device).type] = (history, [p.detach() for p in m.parameters()])
    assert runs["foo"][0] == runs["cpu"][0]
    assert runs["foo"][0] == [2.0**10, 2.0**11, 2.0**10, 2.0**10, 2.0**11, 2.0**10, 2.0**10]
    assert_close_to_cpu(runs["foo"][1], runs["cpu"][1])
