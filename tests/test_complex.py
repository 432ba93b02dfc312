"""Complex tensors on foo against the CPU: storage and copies in every direction (conjugate and
negative views included), the elementwise arithmetic foo computes natively, everything else through
the CPU fallback (torch.fft, stft), and a Llama-style attention block with rotary position
embeddings written with view_as_complex training on foo with no fallback.
"""

import pytest
import torch
import torch.nn.functional as F
from conftest import FOO, LAYOUTS, WRITABLE_LAYOUTS, assert_close_to_cpu, check_forward, on, randn
from torch import nn

COMPLEX_DTYPES = [torch.complex64, torch.complex128]
TOLERANCES = {torch.complex64: {"rtol": 1e-5, "atol": 1e-6}, torch.float32: {"rtol": 1e-5, "atol": 1e-6}}


def crandn(*shape: int, dtype: torch.dtype = torch.complex64, seed: int = 0) -> torch.Tensor:
    """A CPU tensor of complex standard normal values."""
    real = randn(*shape, 2, dtype=torch.float64, seed=seed)
    return torch.view_as_complex(real).to(dtype)


def in_layout(name: str, dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    layout = LAYOUTS[name]
    return layout.view(crandn(*layout.base_shape, dtype=dtype, seed=seed))


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_complex_tensors_round_trip(dtype, layout):
    x = in_layout(layout, dtype)
    assert torch.equal(on(FOO, x).cpu(), x)
    assert torch.equal(x.to(FOO).cpu(), x)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize(
    "other", [torch.float32, torch.float64, torch.float16, torch.int64, torch.bool, torch.complex64, torch.complex128]
)
def test_conversions_to_and_from_complex_match_cpu(dtype, other):
    x = crandn(4, 5, dtype=dtype) * 10
    check_forward(lambda t: t.to(other), [x])
    check_forward(lambda t: t.to(dtype), [x.to(other)] if other.is_complex else [x.real.to(other)])


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_conjugate_and_negative_views_resolve_like_cpu(dtype, layout):
    x = in_layout(layout, dtype)
    views = {
        "conj": lambda t: t.conj(),
        "neg_of_conj": lambda t: t.conj().imag,  # the imaginary part of a conjugate view is a negative view
        "conj_of_transpose": lambda t: t.mT.conj() if t.dim() >= 2 else t.conj(),
    }
    for name, view in views.items():
        expected = view(x).resolve_conj().resolve_neg()
        actual = view(on(FOO, x))
        assert torch.equal(actual.resolve_conj().resolve_neg().cpu(), expected), name
        assert torch.equal(actual.cpu().resolve_conj().resolve_neg(), expected), name
        assert torch.equal(actual.clone().cpu(), expected), name
        # Written into a view of each kind, and back into memory of the other.
        target = on(FOO, torch.zeros_like(view(x)))
        target.copy_(view(on(FOO, x)))
        assert torch.equal(target.cpu(), expected), name
    written = on(FOO, x).conj()
    written.copy_(on(FOO, x * 2))
    assert torch.equal(written.cpu().resolve_conj(), x * 2)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_fills_and_scalars_match_cpu(dtype):
    x = crandn(3, 4, dtype=dtype)
    check_forward(lambda t: torch.full_like(t, 2.5 - 1.25j), [x])
    check_forward(lambda t: t.fill_(-1j), [x])
    check_forward(lambda t: torch.zeros_like(t), [x])
    check_forward(lambda t: t * (2 - 3j) + 1j, [x])
    check_forward(lambda t: torch.add(t, t, alpha=0.5 + 2j), [x])
    assert on(FOO, x)[1, 2].item() == x[1, 2].item()


UNARY = {
    "neg": torch.neg,
    "exp": torch.exp,
    "abs": torch.abs,
    "angle": torch.angle,
    "sgn": torch.sgn,
    "reciprocal": torch.reciprocal,
    "conj_physical": torch.conj_physical,
    "real": lambda t: t.real * 1,
    "imag": lambda t: t.imag * 1,
    "view_as_real": lambda t: torch.view_as_real(t) * 1,
    "isnan": torch.isnan,
    "logical_not": lambda t: torch.logical_not(t * (t.real > 0)),
}
BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2 - 1j),
    "mul_real": lambda a, b: a * b.real,
    "div_by_real": lambda a, b: a / b.imag,
    "real_times_complex": lambda a, b: a.real * b,
    "where": lambda a, b: torch.where(a.real > 0, a, b),
    "masked_fill": lambda a, b: a.masked_fill(b.real > 0, 1 - 2j),
    "eq": lambda a, b: a == torch.where(b.real > 0, a, b),
    "ne": lambda a, b: a != torch.where(b.real > 0, a, b),
    "logical_and": lambda a, b: torch.logical_and(a * (a.real > 0), b * (b.imag > 0)),
    "logical_or": lambda a, b: torch.logical_or(a * (a.real > 0), b * (b.imag > 0)),
    "logical_xor": lambda a, b: torch.logical_xor(a * (a.real > 0), b * (b.imag > 0)),
}


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_run_natively_and_match_cpu(name, layout, dtype):
    check_forward(UNARY[name], [in_layout(layout, dtype)], TOLERANCES)


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_run_natively_and_match_cpu(name, layout, dtype):
    check_forward(BINARY[name], [in_layout(layout, dtype), in_layout(layout, dtype, seed=1)], TOLERANCES)


@pytest.mark.usefixtures("no_fallback")
def test_division_edge_values_match_cpu():
    values = torch.tensor([0, 1e30 + 1e-30j, 1e-30 + 1e30j, float("inf"), float("nan") * 1j, -3 + 4j, 1j])
    a, b = values.repeat_interleave(len(values)), values.repeat(len(values))
    check_forward(torch.div, [a, b])
    check_forward(torch.exp, [values])
    check_forward(torch.sgn, [values])


@pytest.mark.usefixtures("no_fallback")
def test_comparisons_and_truth_of_zero_parts_match_cpu():
    # A complex value is true when either part is nonzero; -0.0 is zero, NaN is not.
    nan, inf = float("nan"), float("inf")
    values = torch.tensor([0, 1j, 1, complex(-0.0, 0), complex(0, -0.0), complex(nan, 0), complex(0, nan), inf])
    a, b = values.repeat_interleave(len(values)), values.repeat(len(values))
    for op in [torch.eq, torch.ne, torch.logical_and, torch.logical_or, torch.logical_xor]:
        check_forward(op, [a, b])
        check_forward(lambda t, op=op: op(t, torch.tensor(1j)), [a])  # a 0-dim CPU operand
        check_forward(lambda x, y, op=op: op(x.real, y), [a, b])  # a real operand promotes to complex
    for scalar in [1j, 0, complex("nan")]:  # Python scalars: eq.Scalar and ne.Scalar
        check_forward(lambda t, s=scalar: (t == s, t != s, t.real == s, t.eq_(s)), [values])
    check_forward(torch.logical_not, [values])
    check_forward(lambda t: t.logical_and_(t.conj()), [values])  # in place: the output stays complex
    check_forward(lambda t: torch.logical_or(t, t, out=torch.empty_like(t.real)), [values])


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_polar_complex_and_real_angle_run_natively_and_match_cpu(dtype):
    magnitude, angle = randn(5, 6, dtype=dtype).abs(), randn(5, 6, dtype=dtype, seed=1)
    check_forward(torch.polar, [magnitude, angle], TOLERANCES)
    check_forward(torch.complex, [magnitude, angle])
    check_forward(torch.angle, [torch.tensor([-2.0, -0.0, 0.0, 3.0, float("nan")], dtype=dtype)])
    check_forward(torch.angle, [torch.tensor([-2, 0, 3])])


def test_mismatched_parts_raise_like_cpu():
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float"):
        torch.complex(torch.ones(2, device=FOO), torch.ones(2, device=FOO, dtype=torch.float16))
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double"):
        torch.polar(torch.ones(2, device=FOO, dtype=torch.int64), torch.ones(2, device=FOO, dtype=torch.int64))


@pytest.mark.usefixtures("no_fallback")
def test_complex_gradients_match_cpu():
    def fn(z, w):
        return torch.view_as_real((z * w.conj() + z / (w + 2)).exp() * z.abs()).sum()

    z, w = crandn(4, 3), crandn(4, 3, seed=1)
    grads = []
    for device in ("cpu", FOO):
        zd, wd = (t.to(device).detach().requires_grad_() for t in (z, w))
        fn(zd, wd).backward()
        grads.append((zd.grad, wd.grad))
    assert_close_to_cpu(grads[1], grads[0], {torch.complex64: {"rtol": 1e-4, "atol": 1e-5}})


SPECTRAL = {
    "fft": lambda t: torch.fft.fft(t),
    "ifft": lambda t: torch.fft.ifft(t, norm="ortho"),
    "fft2": lambda t: torch.fft.fft2(t),
    "fftn": lambda t: torch.fft.fftn(t, s=(4, 8)),
    "rfft": lambda t: torch.fft.rfft(t.real),
    "irfft": lambda t: torch.fft.irfft(t),
    "hfft": lambda t: torch.fft.hfft(t),
    "fftshift": lambda t: torch.fft.fftshift(torch.fft.fft(t)),
    "stft": lambda t: torch.stft(
        t.real.flatten(), 8, hop_length=2, window=torch.hann_window(8, device=t.device), return_complex=True
    ),
    "istft": lambda t: torch.istft(
        torch.stft(
            t.real.flatten(), 8, hop_length=2, window=torch.hann_window(8, device=t.device), return_complex=True
        ),
        8,
        hop_length=2,
        window=torch.hann_window(8, device=t.device),
    ),
}


def check_through_fallback(fn, inputs: list[torch.Tensor]) -> None:
    """fn on foo, where some of its operators run on the CPU, against the CPU."""
    expected = fn(*inputs)
    assert_close_to_cpu(fn(*[on(FOO, t) for t in inputs]), expected, {torch.complex64: {"rtol": 1e-4, "atol": 1e-5}})


@pytest.mark.parametrize("name", SPECTRAL)
def test_spectral_ops_run_through_the_fallback_and_match_cpu(name):
    check_through_fallback(SPECTRAL[name], [crandn(6, 16)])


def test_complex_ops_without_foo_kernels_run_through_the_fallback():
    a, b = crandn(3, 4), crandn(4, 2, seed=1)
    check_through_fallback(lambda x, y: (x @ y, torch.sin(x), x.sum(0), x.mean()), [a, b])
    check_through_fallback(lambda x, y: (torch.dot(x[0], y[:, 0]), torch.vdot(x[0], y[:, 0])), [a, b])


def test_printing_complex_tensors_matches_cpu():
    x = crandn(3, 2)
    assert repr(x.to(FOO)) == repr(x).replace(")", ", device='foo:0')")


# A Llama-style attention block: rotary position embeddings applied as complex products
# (torch.view_as_complex / torch.polar, as Meta's reference Llama code writes them).
def rotary_frequencies(head_dim: int, positions: int, device) -> torch.Tensor:
    inverse = 1.0 / (10000 ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    angles = torch.outer(torch.arange(positions, device=device).float(), inverse)
    return torch.polar(torch.ones_like(angles), angles)


def apply_rotary(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    rotated = torch.view_as_real(pairs * freqs.view(1, x.shape[1], 1, -1)).flatten(3)
    return rotated.type_as(x)


class RotaryBlock(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.norm = nn.RMSNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        freqs = rotary_frequencies(d // self.heads, t, x.device)
        q, k = apply_rotary(q, freqs), apply_rotary(k, freqs)
        attention = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        return x + self.out(attention.transpose(1, 2).reshape(b, t, d))


@pytest.mark.usefixtures("no_fallback")
def test_llama_style_rotary_block_trains_on_foo_like_cpu():
    torch.manual_seed(0)
    cpu_model = RotaryBlock()
    foo_model = RotaryBlock().to(FOO)
    foo_model.load_state_dict(cpu_model.state_dict())
    x = randn(2, 6, 32)
    losses = {}
    for device, model in (("cpu", cpu_model), (FOO, foo_model)):
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        losses[device] = []
        for _ in range(3):
            loss = model(x.to(device)).square().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses[device].append(loss.item())
    torch.testing.assert_close(losses[FOO], losses["cpu"], rtol=1e-4, atol=0)


def test_complex128_needs_fp64():
    if torch.foo.get_device_properties(FOO).has_fp64:
        assert torch.ones(2, dtype=torch.complex128, device=FOO).dtype == torch.complex128
    else:
        with pytest.raises(RuntimeError, match="does not support complex128"):
            torch.ones(2, dtype=torch.complex128, device=FOO)
