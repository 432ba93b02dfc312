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


def eval_on_both(make, *args, **kwargs):
    """(cpu outputs, foo outputs moved to the CPU) of one model in eval mode without autograd."""
    torch.manual_seed(0)
    cpu = make().eval()
    foo = copy.deepcopy(cpu).to(FOO)
    with torch.no_grad():
        expected = cpu(*args, **kwargs)
        actual = foo(*map(to_foo, args), **{k: to_foo(v) for k, v in kwargs.items()})
    as_tuple = lambda out: out if isinstance(out, tuple) else (out,)
    return as_tuple(expected), tuple(None if t is None else t.cpu() for t in as_tuple(actual))


def attention():
    return nn.MultiheadAttention(16, 4, batch_first=True)


X = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(3))

ATTENTION_CASES = {
    "weights_averaged": ((X, X, X), {}),
    "weights_per_head": ((X, X, X), {"average_attn_weights": False}),
    "key_padding_mask": ((X, X, X), {"key_padding_mask": PAD}),
    "float_attn_mask_no_weights": ((X, X, X), {"attn_mask": CAUSAL, "need_weights": False}),
    "bool_attn_mask": ((X, X, X), {"attn_mask": CAUSAL.isinf()}),
    "no_mask_no_weights": ((X, X, X), {"need_weights": False}),
    "cross_attention": ((X, X.flip(1), X.flip(0)), {}),
    "shared_key_value": ((X, 2 * X, 2 * X), {}),
}


@pytest.mark.parametrize("case", ATTENTION_CASES.values(), ids=ATTENTION_CASES.keys())
def test_multi_head_attention_fast_path_matches_cpu(case):
    args, kwargs = case
    expected, actual = eval_on_both(attention, *args, **kwargs)
    for e, a in zip(expected, actual):
        assert (e is None) == (a is None)
        if e is not None:
            torch.testing.assert_close(a, e, rtol=1e-4, atol=1e-5)


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
        lambda: nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, **options), X, **kwargs
    )
    torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5)


def test_encoder_with_a_padding_mask_declines_nested_tensors():
    # On CPU the encoder packs the real tokens into a nested tensor and pads the result with zeros;
    # foo has no nested tensors and runs the padded batch with the mask: the real tokens agree.
    def encoder():
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2)

    (expected,), (actual,) = eval_on_both(encoder, X, src_key_padding_mask=PAD)
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
    full[..., 0] = False  # no row or column left empty: those are NaN on both
    full[..., 0, :] = False
    mask = {0: full[0, 0], 1: full[:, 0, 0], 2: full}[mask_type]
    if dim != -1 and mask_type != 2:
        pytest.skip("the CPU takes mask types 0 and 1 along the last dim only")
    results = []
    for device in ("cpu", FOO):
        x = scores.detach().to(device).requires_grad_()
        y = torch._masked_softmax(x, mask.to(device), dim, mask_type)
        results.append([y.detach().cpu()])
        if mask_type == 2:  # the CPU's backward takes input-shaped masks only
            y.backward(torch.ones_like(y) * torch.arange(5.0, device=device))
            results[-1].append(x.grad.cpu())
    for expected, actual in zip(*results):
        torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("use_gelu", [False, True])
def test_addmm_activation_matches_cpu(use_gelu):
    g = torch.Generator().manual_seed(5)
    bias, a, b = torch.randn(7, generator=g), torch.randn(4, 6, generator=g), torch.randn(6, 7, generator=g)
    expected = torch._addmm_activation(bias, a, b, beta=0.5, alpha=2.0, use_gelu=use_gelu)
    actual = torch._addmm_activation(bias.to(FOO), a.to(FOO), b.to(FOO), beta=0.5, alpha=2.0, use_gelu=use_gelu)
    torch.testing.assert_close(actual.cpu(), expected, rtol=1e-5, atol=1e-6)
