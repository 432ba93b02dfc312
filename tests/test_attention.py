"""scaled_dot_product_attention on foo: the fused paths (composed: two products around one masked
softmax; flash: blocked kernels with an online softmax), each pinned in turn, against the CPU for
masks, causal windows, dtypes and layouts, their dropout, and the cases left to PyTorch's math path
(grouped-query attention, a backend limit)."""

import pytest
import torch
import torch.nn.functional as F
from conftest import CAPABILITIES
from torch.autograd import DeviceType
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile

import foo_cl

FUSED = "ScaledDotProductFusedAttentionOverrideableBackward0"
FAMILIES = ("attention", "attention_backward")
PATHS = foo_cl._C._attention_candidates(0)


def pin_path(candidate: str) -> None:
    for family in FAMILIES:
        foo_cl._C._tune_pin(family, candidate)


@pytest.fixture(params=PATHS, autouse=True)
def path(request):
    """Every test runs on each path (the tuner would choose between them by timing)."""
    pin_path(request.param)
    yield request.param
    pin_path("")


def mask_of(kind: str, b: int, l: int, s: int) -> torch.Tensor | None:
    g = torch.Generator().manual_seed(1)
    if kind == "none":
        return None
    if kind == "bool":
        return torch.rand(l, s, generator=g) > 0.4
    if kind == "bool_batched":
        return torch.rand(b, 1, l, s, generator=g) > 0.4
    if kind == "bool_empty_row":
        mask = torch.ones(l, s, dtype=torch.bool)
        mask[1] = False
        return mask
    return torch.randn(b, 1, l, s, generator=g)  # additive


def run(device, q, k, v, mask, causal, **kwargs):
    q, k, v = (t.detach().to(device).requires_grad_() for t in (q, k, v))
    mask = None if mask is None else mask.to(device)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, **kwargs)
    grads = torch.autograd.grad(out, (q, k, v), torch.ones_like(out).mul_(0.5).add_(out.detach()))
    return out, grads


# (mask kind, query length, key length, causal): PyTorch takes a mask or is_causal, not both.
CASES = [("none", 17, 17, False), ("none", 17, 17, True), ("none", 5, 9, True), ("none", 9, 5, True)] + [
    (kind, l, s, False)
    for kind in ("bool", "bool_batched", "bool_empty_row", "additive")
    for l, s in ((17, 17), (5, 9))
]


@pytest.mark.parametrize(("kind", "l", "s", "causal"), CASES)
def test_fused_attention_matches_cpu(kind, l, s, causal):
    torch.manual_seed(0)
    b, h, e, ev = 2, 3, 8, 6
    q, k, v = torch.randn(b, h, l, e), torch.randn(b, h, s, e), torch.randn(b, h, s, ev)
    mask = mask_of(kind, b, l, s)
    out, grads = run("foo", q, k, v, mask, causal)
    assert type(out.grad_fn).__name__ == FUSED
    expected, expected_grads = run("cpu", q, k, v, mask, causal)
    torch.testing.assert_close(out.cpu(), expected)
    for got, want in zip(grads, expected_grads):
        torch.testing.assert_close(got.cpu(), want)


DTYPES = [torch.float16, torch.bfloat16] + ([torch.float64] if CAPABILITIES["fp64"] else [])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_fused_attention_dtypes_match_cpu(dtype):
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 2, 33, 16).to(dtype) for _ in range(3))
    out, grads = run("foo", q, k, v, None, True)
    assert out.dtype == dtype and type(out.grad_fn).__name__ == FUSED
    expected, expected_grads = run("cpu", q.double(), k.double(), v.double(), None, True)
    tol = {"rtol": 2e-2, "atol": 2e-2} if dtype != torch.float64 else {}
    torch.testing.assert_close(out.cpu().double(), expected, **tol)
    for got, want in zip(grads, expected_grads):
        torch.testing.assert_close(got.cpu().double(), want, **tol)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(("l", "s", "e", "ev"), [(1, 1, 8, 8), (1, 7, 32, 64), (9, 1, 64, 32), (40, 33, 64, 48)])
def test_single_rows_and_wide_heads_match_cpu(l, s, e, ev, causal):
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 2, l, e), torch.randn(2, 2, s, e), torch.randn(2, 2, s, ev)
    out, grads = run("foo", q, k, v, None, causal)
    expected, expected_grads = run("cpu", q, k, v, None, causal)
    torch.testing.assert_close(out.cpu(), expected)
    for got, want in zip(grads, expected_grads):
        torch.testing.assert_close(got.cpu(), want)


# NOTE: a NaN key or value is left out of causal attention: rows that mask it get NaN where a kernel
# multiplies their zero probabilities by it, so which rows do depends on the kernels' tile sizes (the CPU's
# and foo's alike). For the same reason dk is left out with a NaN query where causal.
@pytest.mark.parametrize(("operand", "causal"), [("q", False), ("q", True), ("k", False), ("v", False)])
def test_a_nan_input_gives_the_cpus_nans(operand, causal):
    """A NaN score makes its row's output, lse and gradients NaN (the kernels' running maximum, fmax,
    passes over NaN), and a masked score still has no probability in such a row."""
    torch.manual_seed(0)
    q, k, v = torch.randn(1, 2, 40, 16), torch.randn(1, 2, 40, 16), torch.randn(1, 2, 40, 16)
    {"q": q, "k": k, "v": v}[operand][0, 0, 5, 3] = float("nan")
    results = {}
    for device in ("cpu", "foo"):
        inputs = [t.to(device).requires_grad_() for t in (q, k, v)]
        out = F.scaled_dot_product_attention(*inputs, is_causal=causal)
        results[device] = (out, *torch.autograd.grad(out, inputs, torch.ones_like(out)))
    for name, got, want in zip(("out", "dq", "dk", "dv"), results["foo"], results["cpu"]):
        if not (causal and name == "dk"):
            torch.testing.assert_close(got.cpu(), want, equal_nan=True, msg=lambda m, name=name: f"{name}: {m}")


def test_the_pinned_path_runs_its_kernels(path):
    q, k, v = (torch.randn(1, 2, 20, 8, device="foo", requires_grad=True) for _ in range(3))
    run("foo", q, k, v, None, True)  # kernels built outside the profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        run("foo", q, k, v, None, True)
    kernels = {e.key for e in prof.key_averages() if e.device_type == DeviceType.PrivateUse1}
    if path == "composed":
        expected = {"attention/attention:attention_softmax", "attention/attention:attention_grad_scores"}
    else:
        expected = {
            f"attention/flash:flash_{name}" for name in ("forward", "grad_query", "grad_key_value", "transpose")
        }
    assert expected <= kernels, sorted(kernels)
    assert not any(name.startswith("attention/") for name in kernels - expected), sorted(kernels)


def test_heads_transposed_from_a_projection_and_explicit_scale():
    torch.manual_seed(0)
    x = torch.randn(2, 7, 3, 8)  # [batch, length, heads, dim], as after a linear projection
    q, k, v = ((x + i).transpose(1, 2) for i in range(3))
    out, grads = run("foo", q, k, v, None, False, scale=0.3)
    expected, expected_grads = run("cpu", q, k, v, None, False, scale=0.3)
    torch.testing.assert_close(out.cpu(), expected)
    # OpenCL lets exp be 3 ulp off (llvmpipe's is), and the flash path rescales by it as it goes.
    for got, want in zip(grads, expected_grads):
        torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=2e-5)


def test_heads_sliced_from_one_projection_are_read_where_they_are(path):
    """q, k and v as nn.MultiheadAttention makes them: views into one [batch, length, 3, heads, dim] projection,
    neither contiguous nor dense. Results match the CPU's, the output takes the query's memory order and the gradients
    their inputs' layout (as the meta functions say), and the flash kernels read and write them in place: no copies."""
    torch.manual_seed(0)
    projection = torch.randn(2, 9, 3, 4, 16)

    def attend(device):
        x = projection.to(device).requires_grad_()
        q, k, v = (x.select(2, i).transpose(1, 2) for i in range(3))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return (q, k, v), out, torch.autograd.grad(out, (q, k, v), torch.ones_like(out))

    inputs, out, grads = attend("foo")
    _, expected, expected_grads = attend("cpu")
    torch.testing.assert_close(out.cpu(), expected)
    assert out.stride() == expected.stride()
    for got, want, t in zip(grads, expected_grads, inputs):
        torch.testing.assert_close(got.cpu(), want, rtol=1e-5, atol=2e-5)
        assert got.stride() == torch.empty_like(t).stride()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        attend("foo")
    kernels = {e.key for e in prof.key_averages() if e.device_type == DeviceType.PrivateUse1}
    if path != "composed":
        assert not any(name.startswith("copy/") for name in kernels), sorted(kernels)


def test_an_additive_mask_gets_its_gradient():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 2, 5, 4) for _ in range(3))
    bias = torch.randn(1, 2, 5, 5)
    grads = []
    for device in ("foo", "cpu"):
        b = bias.to(device).requires_grad_()
        out = F.scaled_dot_product_attention(q.to(device), k.to(device), v.to(device), attn_mask=b)
        (out * out).sum().backward()
        grads.append(b.grad.cpu())
    torch.testing.assert_close(grads[0], grads[1])


def test_grouped_heads_and_a_math_only_limit_take_the_math_path():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 6, 8, device="foo", requires_grad=True) for _ in range(3))
    assert torch._fused_sdp_choice(q, k, v) == SDPBackend.OVERRIDEABLE.value
    k2, v2 = k[:, :2].detach(), v[:, :2].detach()
    grouped = F.scaled_dot_product_attention(q, k2, v2, enable_gqa=True)
    expected = F.scaled_dot_product_attention(q.cpu(), k2.cpu(), v2.cpu(), enable_gqa=True)
    torch.testing.assert_close(grouped.cpu(), expected)
    with sdpa_kernel(SDPBackend.MATH):
        assert type(F.scaled_dot_product_attention(q, k, v).grad_fn).__name__ != FUSED


def dropped_probabilities(q, k, p, causal, seed):
    """The fused path's output with the identity as values: its probabilities after dropout."""
    s = k.shape[2]
    eye = torch.eye(s, dtype=q.dtype).expand(*k.shape[:2], s, s).contiguous()
    assert torch._fused_sdp_choice(q.foo(), k.foo(), eye.foo(), dropout_p=p) == SDPBackend.OVERRIDEABLE.value
    torch.manual_seed(seed)
    return F.scaled_dot_product_attention(q.foo(), k.foo(), eye.foo(), dropout_p=p, is_causal=causal).cpu()


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_dropout_drops_probabilities_like_dropout(causal, dtype):
    if dtype == torch.float64 and not CAPABILITIES["fp64"]:
        pytest.skip("the device has no float64")
    torch.manual_seed(0)
    q, k = torch.randn(2, 3, 37, 16, dtype=dtype), torch.randn(2, 3, 37, 16, dtype=dtype)
    p = 0.3
    got = dropped_probabilities(q, k, p, causal, seed=5)
    mask = torch.ones(37, 37, dtype=torch.bool).tril() if causal else torch.ones(37, 37, dtype=torch.bool)
    probabilities = torch.softmax((q @ k.transpose(-1, -2) / 4).masked_fill(~mask, float("-inf")), -1)
    kept = got != 0
    assert torch.equal(kept & ~mask, torch.zeros_like(kept)), "a masked score was kept"
    torch.testing.assert_close(got[kept], (probabilities / (1 - p))[kept])
    dropped = 1 - kept[mask.expand_as(kept)].float().mean().item()
    assert abs(dropped - p) < 0.03, dropped  # over 4000 draws: 0.03 is more than four standard deviations
    assert torch.equal(dropped_probabilities(q, k, p, causal, seed=5), got), "the same seed drops differently"
    assert not torch.equal(dropped_probabilities(q, k, p, causal, seed=6), got)


def test_dropout_of_one_drops_everything_and_consecutive_calls_differ():
    q = torch.randn(1, 2, 8, 4, device="foo", requires_grad=True)
    assert torch._fused_sdp_choice(q, q, q, dropout_p=1.0) == SDPBackend.OVERRIDEABLE.value
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=1.0)
    assert type(out.grad_fn).__name__ == FUSED
    assert torch.equal(out.cpu(), torch.zeros(1, 2, 8, 4))
    out.sum().backward()
    assert torch.equal(q.grad.cpu(), torch.zeros(1, 2, 8, 4))
    torch.manual_seed(0)
    first = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert not torch.equal(F.scaled_dot_product_attention(q, q, q, dropout_p=0.5), first)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind", ["none", "causal", "bool", "bool_empty_row", "additive"])
def test_dropout_gradients_match_the_cpu_with_the_same_drops(kind, dtype):
    if dtype == torch.float64 and not CAPABILITIES["fp64"]:
        pytest.skip("the device has no float64")
    torch.manual_seed(0)
    b, h, l, s, e = 2, 3, 33, 29, 8
    q, k, v = (
        torch.randn(b, h, l, e, dtype=dtype),
        torch.randn(b, h, s, e, dtype=dtype),
        torch.randn(b, h, s, 12, dtype=dtype),
    )
    causal = kind == "causal"
    mask = mask_of("none" if causal else kind, b, l, s)
    if mask is not None and mask.dtype != torch.bool:
        mask = mask.to(dtype)
    # The drops the fused path makes for this seed and shape, read through identity values.
    eye = torch.eye(s, dtype=dtype).expand(b, h, s, s).contiguous()
    torch.manual_seed(3)
    on_foo = None if mask is None else mask.foo()
    kept = F.scaled_dot_product_attention(q.foo(), k.foo(), eye.foo(), on_foo, 0.25, causal).cpu() != 0

    torch.manual_seed(3)
    out, grads = run("foo", q, k, v, mask, causal, dropout_p=0.25)
    assert type(out.grad_fn).__name__ == FUSED
    # The same attention with the same drops, composed on the CPU.
    q, k, v = (t.clone().requires_grad_() for t in (q, k, v))
    scores = q @ k.transpose(-1, -2) / e**0.5
    if causal:
        scores = scores.masked_fill(~torch.ones(l, s, dtype=torch.bool).tril(), float("-inf"))
    elif mask is not None and mask.dtype == torch.bool:
        scores = scores.masked_fill(~mask, float("-inf"))
    elif mask is not None:
        scores = scores + mask
    # Rows with every score masked give zeros, as the math path's safe softmax.
    expected = torch.ops.aten._safe_softmax(scores, -1) * kept / 0.75 @ v
    expected_grads = torch.autograd.grad(
        expected, (q, k, v), torch.ones_like(expected).mul_(0.5).add_(expected.detach())
    )
    torch.testing.assert_close(out.detach().cpu(), expected.detach())
    for got, want in zip(grads, expected_grads):
        torch.testing.assert_close(got.cpu(), want)
