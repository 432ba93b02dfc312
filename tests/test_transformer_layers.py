"""nn.MultiheadAttention and nn.TransformerEncoderLayer in eval mode without autograd take PyTorch's
inference fast paths (_native_multi_head_attention, _transformer_encoder_layer_fwd, _masked_softmax,
_addmm_activation); on foo they run natively and agree with the CPU."""

import copy

import pytest
import torch
from conftest import FOO
from torch import nn

pytestmark = pytest.mark.usefixtures("no_fallback")

PAD = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
CAUSAL = nn.Transformer.generate_square_subsequent_mask(5)


def to_foo(value):
    return value.to(FOO) if isinstance(value, torch.Tensor) else value


def eval_on_both(make, *args, fast_path: str, **kwargs):
    """(cpu outputs, foo outputs moved to the CPU) of one model in eval mode without autograd, checking
    that foo's call went through the operator `fast_path`."""
    torch.manual_seed(0)
    cpu = make().eval()
    foo = copy.deepcopy(cpu).to(FOO)
    with torch.no_grad():
        expected = cpu(*args, **kwargs)
        moved = {id(a): to_foo(a) for a in args}  # the same tensor passed twice stays one (self-attention)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as trace:
            actual = foo(*(moved[id(a)] for a in args), **{k: to_foo(v) for k, v in kwargs.items()})
    assert any(event.name == fast_path for event in trace.events()), f"{fast_path} did not run"
    return as_tuple(expected), tuple(None if t is None else t.cpu() for t in as_tuple(actual))


def as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def attention():
    return nn.MultiheadAttention(16, 4, batch_first=True)


X = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(3))

# Self-attention with boolean masks: the cases nn.MultiheadAttention takes its fast path for.
ATTENTION_CASES = {
    "weights_averaged": {},
    "weights_per_head": {"average_attn_weights": False},
    "key_padding_mask": {"key_padding_mask": PAD},
    "bool_attn_mask": {"attn_mask": CAUSAL.isinf()},
    "no_mask_no_weights": {"need_weights": False},
}


@pytest.mark.parametrize("kwargs", ATTENTION_CASES.values(), ids=ATTENTION_CASES.keys())
def test_multi_head_attention_fast_path_matches_cpu(kwargs):
    expected, actual = eval_on_both(attention, X, X, X, fast_path="aten::_native_multi_head_attention", **kwargs)
    for e, a in zip(expected, actual):
        assert (e is None) == (a is None)
        if e is not None:
            torch.testing.assert_close(a, e, rtol=1e-4, atol=1e-5)


# The operator itself, called as the encoder and decoder layers of other libraries call it: separate
# or shared key and value, each mask type.
OPERATOR_CASES = {
    "cross_attention": (X.flip(1), X.flip(0), None, None),
    "shared_key_value": (X.flip(1), None, None, None),
    "attention_mask": (X, X, CAUSAL.isinf(), 0),
    "padding_mask": (X, X, PAD, 1),
    "generic_mask": (X, X, CAUSAL.isinf().expand(3, 4, 5, 5), 2),
}


@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("case", OPERATOR_CASES.values(), ids=OPERATOR_CASES.keys())
def test_native_multi_head_attention_operator_matches_cpu(case, need_weights):
    key, value, mask, mask_type = case
    g = torch.Generator().manual_seed(6)
    weights = [torch.randn(48, 16, generator=g), torch.randn(48, generator=g), torch.randn(16, 16, generator=g)]
    weights.append(torch.randn(16, generator=g))
    results = []
    for device in ("cpu", FOO):
        q = X.to(device)
        k = q if key is X else key.to(device)
        v = k if value is None else value.to(device)
        m = None if mask is None else mask.to(device)
        on = [w.to(device) for w in weights]
        out = torch._native_multi_head_attention(q, k, v, 16, 4, *on, m, need_weights, True, mask_type)
        results.append([t.cpu() for t in out if t is not None])
    assert len(results[0]) == len(results[1]) == (2 if need_weights else 1)
    for expected, actual in zip(*results):
        torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5)


LAYER_CASES = {
    "relu": ({}, {}),
    "gelu_norm_first": ({"activation": "gelu", "norm_first": True}, {}),
    "key_padding_mask": ({}, {"src_key_padding_mask": PAD}),
    "causal_mask": ({}, {"src_mask": CAUSAL}),
    "bool_causal_mask": ({}, {"src_mask": CAUSAL.isinf(), "is_causal": True}),
}


@pytest.mark.parametrize("case", LAYER_CASES.values(), ids=LAYER_CASES.keys())
def test_encoder_layer_fast_path_matches_cpu(case):
    options, kwargs = case
    (expected,), (actual,) = eval_on_both(
        lambda: nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, **options),
        X,
        fast_path="aten::_transformer_encoder_layer_fwd",
        **kwargs,
    )
    torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5)


def test_encoder_with_a_padding_mask_declines_nested_tensors():
    # On CPU the encoder packs the real tokens into a nested tensor and pads the result with zeros;
    # foo has no nested tensors and runs the padded batch with the mask: the real tokens agree.
    def encoder():
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2)

    (expected,), (actual,) = eval_on_both(
        encoder, X, fast_path="aten::_transformer_encoder_layer_fwd", src_key_padding_mask=PAD
    )
    torch.testing.assert_close(actual[~PAD], expected[~PAD], rtol=1e-4, atol=1e-5)
    assert torch.isfinite(actual).all()


def test_nested_tensors_from_a_mask_raise_a_clear_error():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2, mask_check=False)
    encoder.eval().to(FOO)
    with torch.no_grad(), pytest.raises(RuntimeError, match="nested tensors are not supported on foo"):
        encoder(X.to(FOO), src_key_padding_mask=PAD.to(FOO))


@pytest.mark.parametrize("dim", [-1, 2])
@pytest.mark.parametrize("mask_type", [0, 1, 2])
def test_masked_softmax_matches_cpu_forward_and_backward(mask_type, dim):
    g = torch.Generator().manual_seed(4)
    scores = torch.randn(2, 3, 5, 5, generator=g)
    full = torch.rand(2, 3, 5, 5, generator=g) < 0.3
    full[1, :, 3] = True  # a fully masked row (and in type 2 a fully masked column): NaN on both
    full[..., 0, 4] = False
    mask = {0: full[1, 0], 1: full[:, 0, 0], 2: full}[mask_type]
    results = []
    for device in ("cpu", FOO):
        x = scores.detach().to(device).requires_grad_()
        y = torch._masked_softmax(x, mask.to(device), dim, mask_type)
        results.append([y.detach().cpu()])
        if mask_type == 2:  # backward takes input-shaped masks only, on the CPU as on foo
            y.backward(torch.ones_like(y) * torch.arange(5.0, device=device))
            results[-1].append(x.grad.cpu())
    if dim == -1:
        assert results[0][0].isnan().any() == (mask_type != 1)
    for expected, actual in zip(*results):
        torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-6, equal_nan=True)


def test_masked_softmax_backward_wants_an_input_shaped_mask():
    x = torch.randn(2, 1, 3, 3, device=FOO, requires_grad=True)
    y = torch._masked_softmax(x, torch.zeros(2, 3, dtype=torch.bool, device=FOO), 3, 1)
    with pytest.raises(RuntimeError, match="the mask must have the gradient's shape"):
        y.sum().backward()


@pytest.mark.parametrize("use_gelu", [False, True])
def test_addmm_activation_matches_cpu(use_gelu):
    g = torch.Generator().manual_seed(5)
    bias, a, b = torch.randn(7, generator=g), torch.randn(4, 6, generator=g), torch.randn(6, 7, generator=g)
    expected = torch._addmm_activation(bias, a, b, beta=0.5, alpha=2.0, use_gelu=use_gelu)
    actual = torch._addmm_activation(bias.to(FOO), a.to(FOO), b.to(FOO), beta=0.5, alpha=2.0, use_gelu=use_gelu)
    torch.testing.assert_close(actual.cpu(), expected, rtol=1e-5, atol=1e-6)
