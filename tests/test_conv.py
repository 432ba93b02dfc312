"""Convolutions against the CPU, forward values and every input's gradient: conv1d, conv2d, conv3d and their
transposes over strides, padding (numbers, "same", "valid"), dilation and groups; strided, channels-last and unbatched
inputs (contiguous results, as torch.compile assumes, where the CPU's are channels_last); every float dtype (16-bit ones
forward only); and three SGD steps of a small convolutional model. Nothing may fall back to the CPU.
"""

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from conftest import (
    FLOAT_DTYPES,
    FOO,
    LOW_PRECISION,
    assert_close_to_cpu,
    check_forward,
    check_gradients,
    dtype_id,
    randn,
)
from torch import nn

pytestmark = [
    pytest.mark.usefixtures("no_fallback"),
    pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths"),
]

Tensor = torch.Tensor

IN_CHANNELS, OUT_CHANNELS = 4, 8

# name: (kernel size, keyword arguments)
CONV2D_CASES = {
    "plain": (3, {}),
    "stride_2": (3, {"stride": 2}),
    "stride_2x1": (3, {"stride": (2, 1)}),
    "padding_1": (3, {"padding": 1}),
    "padding_2x0": ((3, 2), {"padding": (2, 0)}),
    "padding_same": (3, {"padding": "same"}),
    "padding_same_even_kernel": ((2, 4), {"padding": "same"}),  # asymmetric: PyTorch pads the input first
    "padding_same_dilated": (3, {"padding": "same", "dilation": (2, 1)}),
    "padding_valid": ((3, 2), {"padding": "valid"}),
    "dilation_2": (3, {"dilation": 2, "padding": 1}),
    "groups_2": (3, {"groups": 2, "padding": 1}),
    "depthwise": (3, {"groups": IN_CHANNELS, "padding": 1}),
    "everything": ((3, 2), {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2), "groups": 2}),
}

CONV1D_CASES = {
    "plain": (3, {}),
    "stride_2": (3, {"stride": 2}),
    "padding_2": (3, {"padding": 2}),
    "padding_tuple": (2, {"padding": (1,)}),
    "padding_same": (3, {"padding": "same"}),
    "padding_same_even_kernel": (4, {"padding": "same", "dilation": 1}),
    "padding_valid": (4, {"padding": "valid"}),
    "dilation_3": (3, {"dilation": 3, "padding": 1}),
    "groups_2": (3, {"groups": 2}),
    "depthwise": (3, {"groups": IN_CHANNELS, "padding": 1}),
    "everything": (2, {"stride": 3, "padding": 2, "dilation": 2, "groups": 2}),
}

CONV_TRANSPOSE2D_CASES = {
    "plain": (3, {}),
    "stride_2": (3, {"stride": 2}),
    "stride_2_output_padding_1": (3, {"stride": 2, "output_padding": 1}),
    "padding_1": (3, {"padding": 1}),
    "tuples": ((3, 2), {"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2)}),
    "dilation_2": (3, {"dilation": 2, "padding": 1, "stride": 2, "output_padding": 1}),
    "groups_2": (3, {"groups": 2, "stride": 2}),
    "depthwise": (3, {"groups": IN_CHANNELS}),
    "everything": ((2, 3), {"stride": 2, "padding": (0, 1), "output_padding": (1, 0), "dilation": (1, 2), "groups": 2}),
}

CONV_TRANSPOSE1D_CASES = {
    "plain": (3, {}),
    "stride_3": (3, {"stride": 3}),
    "stride_3_output_padding_2": (3, {"stride": 3, "output_padding": 2}),
    "padding_1": (3, {"padding": 1}),
    "dilation_2": (3, {"dilation": 2, "stride": 2, "output_padding": 1}),
    "groups_2": (3, {"groups": 2}),
    "depthwise": (2, {"groups": IN_CHANNELS, "stride": 2}),
}


CONV3D_CASES = {
    "plain": (2, {}),
    "stride_2": (3, {"stride": 2, "padding": 1}),
    "padding_same": ((2, 3, 1), {"padding": "same"}),
    "dilation": (2, {"dilation": (2, 1, 2), "padding": (0, 1, 1)}),
    "depthwise": (3, {"groups": IN_CHANNELS, "padding": 1}),
    "everything": ((2, 3, 2), {"stride": (1, 2, 2), "padding": (1, 0, 1), "dilation": (1, 1, 2), "groups": 2}),
}

CONV_TRANSPOSE3D_CASES = {
    "plain": (2, {}),
    "stride_2_output_padding_1": (3, {"stride": 2, "padding": 1, "output_padding": 1}),
    "dilation": (2, {"dilation": (1, 2, 1), "stride": (2, 1, 1), "output_padding": (1, 0, 0)}),
    "groups_2": (2, {"groups": 2, "stride": 2}),
    "everything": ((2, 3, 2), {"stride": (2, 1, 2), "padding": (0, 1, 1), "output_padding": (1, 0, 0), "groups": 2}),
}

DIMS = {
    F.conv1d: 1,
    F.conv_transpose1d: 1,
    F.conv2d: 2,
    F.conv_transpose2d: 2,
    F.conv3d: 3,
    F.conv_transpose3d: 3,
}
TRANSPOSED = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)
# Positions of the inputs by number of spatial dims.
POSITIONS = {1: (9,), 2: (7, 6), 3: (5, 4, 6)}


def conv_weight(kernel: int | tuple[int, ...], dims: int, groups: int, transposed: bool, dtype: torch.dtype) -> Tensor:
    size = (kernel,) * dims if isinstance(kernel, int) else kernel
    channels = (IN_CHANNELS, OUT_CHANNELS // groups) if transposed else (OUT_CHANNELS, IN_CHANNELS // groups)
    return randn(*channels, *size, dtype=dtype, seed=1)


def conv_inputs(
    functional: Callable[..., Tensor],
    cases: dict,
    name: str,
    bias: bool,
    dtype: torch.dtype = torch.float32,
) -> tuple[Callable[..., Tensor], list[Tensor]]:
    """fn(x, weight[, bias]) of one case and its inputs: a batch of 2 with POSITIONS positions."""
    kernel, kwargs = cases[name]
    dims = DIMS[functional]
    transposed = functional in TRANSPOSED
    x = randn(2, IN_CHANNELS, *POSITIONS[dims], dtype=dtype)
    inputs = [x, conv_weight(kernel, dims, kwargs.get("groups", 1), transposed, dtype)]
    if bias:
        inputs.append(randn(OUT_CHANNELS, dtype=dtype, seed=2))
    return lambda *xs: functional(*xs, **kwargs), inputs


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize(
    ("functional", "cases", "name"),
    [
        *[pytest.param(F.conv2d, CONV2D_CASES, name, id=f"conv2d-{name}") for name in CONV2D_CASES],
        *[pytest.param(F.conv1d, CONV1D_CASES, name, id=f"conv1d-{name}") for name in CONV1D_CASES],
        *[
            pytest.param(F.conv_transpose2d, CONV_TRANSPOSE2D_CASES, name, id=f"conv_transpose2d-{name}")
            for name in CONV_TRANSPOSE2D_CASES
        ],
        *[
            pytest.param(F.conv_transpose1d, CONV_TRANSPOSE1D_CASES, name, id=f"conv_transpose1d-{name}")
            for name in CONV_TRANSPOSE1D_CASES
        ],
        *[pytest.param(F.conv3d, CONV3D_CASES, name, id=f"conv3d-{name}") for name in CONV3D_CASES],
        *[
            pytest.param(F.conv_transpose3d, CONV_TRANSPOSE3D_CASES, name, id=f"conv_transpose3d-{name}")
            for name in CONV_TRANSPOSE3D_CASES
        ],
    ],
)
def test_convolution_matches_cpu(functional, cases, name, bias):
    fn, inputs = conv_inputs(functional, cases, name, bias)
    check_gradients(fn, inputs)


# Views of a [N, C, H, W] (or [N, C, L], [N, C, D, H, W]) input: (base shape from the target shape, view).
CONV_LAYOUTS = {
    "contiguous": (lambda s: s, lambda t: t),
    "transposed": (lambda s: (*s[:-2], s[-1], s[-2]), lambda t: t.transpose(-1, -2)),
    "sliced": (lambda s: (s[0], 2 * s[1], *s[2:-1], 2 * s[-1] + 1), lambda t: t[:, ::2, ..., 1::2]),
    "channels_last": (lambda s: (s[0], *s[2:], s[1]), lambda t: t.movedim(-1, 1)),
}


@pytest.mark.parametrize("batch", [1, 3, None], ids=["batch_1", "batch_3", "unbatched"])
@pytest.mark.parametrize("layout", CONV_LAYOUTS)
@pytest.mark.parametrize(
    ("functional", "cases", "name"),
    [
        pytest.param(F.conv2d, CONV2D_CASES, "everything", id="conv2d"),
        pytest.param(F.conv1d, CONV1D_CASES, "everything", id="conv1d"),
        pytest.param(F.conv_transpose2d, CONV_TRANSPOSE2D_CASES, "everything", id="conv_transpose2d"),
        pytest.param(F.conv_transpose1d, CONV_TRANSPOSE1D_CASES, "groups_2", id="conv_transpose1d"),
        pytest.param(F.conv3d, CONV3D_CASES, "everything", id="conv3d"),
        pytest.param(F.conv_transpose3d, CONV_TRANSPOSE3D_CASES, "everything", id="conv_transpose3d"),
    ],
)
def test_convolution_of_strided_and_unbatched_inputs_matches_cpu(functional, cases, name, layout, batch):
    fn, (x, *params) = conv_inputs(functional, cases, name, bias=True)
    base_shape, view = CONV_LAYOUTS[layout]
    shape = (batch or 1, *x.shape[1:])
    x = view(randn(*base_shape(shape), seed=3))
    if batch is None:
        x = x[0]
    assert x.shape == shape[batch is None :]
    assert layout == "contiguous" or not x.is_contiguous()
    # 3-d bias gradients sum over a thousand positions per channel, in another order than CPU's.
    tolerances = {torch.float32: {"rtol": 1e-5, "atol": 1e-4}} if DIMS[functional] == 3 else None
    check_gradients(fn, [x, *params], tolerances=tolerances)


@pytest.mark.parametrize("functional", [F.conv2d, F.conv_transpose2d], ids=["conv2d", "conv_transpose2d"])
def test_convolution_with_channels_last_weight_matches_cpu(functional):
    cases = CONV2D_CASES if functional is F.conv2d else CONV_TRANSPOSE2D_CASES
    fn, (x, weight, bias) = conv_inputs(functional, cases, "everything", bias=True)
    weight = weight.contiguous(memory_format=torch.channels_last)
    check_gradients(fn, [x.contiguous(memory_format=torch.channels_last), weight, bias])


def assert_contiguous_as_compile_assumes(
    output: Tensor, x: Tensor, weight: Tensor, transposed: bool, case_options: dict
) -> None:
    """foo's convolution output and convolution_backward's input and weight gradients (for the same convolution) are
    contiguous, the memory format PyTorch gives a PrivateUse1 convolution (convolution_overrideable), which
    torch.compile's fake tensors assume and compiled code asserts; CPU's are channels_last here. (Autograd gives a
    leaf's .grad the leaf's strides.)"""
    foo_x, foo_weight = x.detach().to(FOO), weight.detach().to(FOO)
    n = x.dim() - 2

    def per_dim(key: str, default: int) -> list[int]:
        value = case_options.get(key, default)
        return list(value) if isinstance(value, tuple) else [value] * n

    options = {
        "stride": per_dim("stride", 1),
        "padding": per_dim("padding", 0),
        "dilation": per_dim("dilation", 1),
        "transposed": transposed,
        "output_padding": per_dim("output_padding", 0),
        "groups": case_options.get("groups", 1),
    }
    backend = torch._C._select_conv_backend(foo_x, foo_weight, **options, bias=None)
    assert torch._C._conv_determine_backend_memory_format(foo_x, foo_weight, backend) == torch.contiguous_format
    grad_output = torch.ones_like(torch.ops.aten.convolution(foo_x, foo_weight, None, **options))
    grads = torch.ops.aten.convolution_backward(grad_output, foo_x, foo_weight, None, **options, output_mask=[1, 1, 0])
    for result in (output, *grads[:2]):
        assert result.is_contiguous(), f"a {list(result.shape)} result has strides {result.stride()}"


@pytest.mark.parametrize("channels_last", ["input", "weight", "both"])
@pytest.mark.parametrize("name", ["padding_1", "everything"])
def test_conv2d_with_channels_last_operands_gives_contiguous_results(name, channels_last):
    fn, (x, weight, bias) = conv_inputs(F.conv2d, CONV2D_CASES, name, bias=True)
    if channels_last in ("input", "both"):
        x = x.contiguous(memory_format=torch.channels_last)
    if channels_last in ("weight", "both"):
        weight = weight.contiguous(memory_format=torch.channels_last)
    actual, expected = check_gradients(fn, [x, weight, bias])
    assert expected[0].is_contiguous(memory_format=torch.channels_last)
    assert_contiguous_as_compile_assumes(actual[0], x, weight, False, CONV2D_CASES[name][1])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize(
    ("functional", "cases"),
    [
        pytest.param(F.conv2d, CONV2D_CASES, id="conv2d"),
        pytest.param(F.conv1d, CONV1D_CASES, id="conv1d"),
        pytest.param(F.conv_transpose2d, CONV_TRANSPOSE2D_CASES, id="conv_transpose2d"),
        pytest.param(F.conv_transpose1d, CONV_TRANSPOSE1D_CASES, id="conv_transpose1d"),
        pytest.param(F.conv3d, CONV3D_CASES, id="conv3d"),
        pytest.param(F.conv_transpose3d, CONV_TRANSPOSE3D_CASES, id="conv_transpose3d"),
    ],
)
def test_convolution_dtypes_match_cpu(functional, cases, dtype):
    name = "everything" if "everything" in cases else "groups_2"
    fn, inputs = conv_inputs(functional, cases, name, bias=True, dtype=dtype)
    if dtype in LOW_PRECISION:  # forward only: CPU's 16-bit convolution backward rounds differently
        check_forward(fn, inputs, LOW_PRECISION)
    else:
        check_gradients(fn, inputs)


# Depthwise convolutions run directly (kernels_cl/conv/depthwise.cl): rows longer than its segments of 64
# positions, strides and dilations along rows (the input gradient's gather), one or two output channels per input
# channel, and a 3-d window.
DEPTHWISE_CASES = {
    "wide_rows": ((2, 3, 4, 150), (3, 1, 3, 5), {"padding": (1, 2), "groups": 3}),
    "strided_dilated": (
        (2, 3, 6, 140),
        (6, 1, 2, 3),
        {"stride": (1, 2), "padding": (0, 3), "dilation": (2, 3), "groups": 3},
    ),
    "stride_3_no_padding": ((1, 2, 5, 70), (4, 1, 3, 3), {"stride": 3, "groups": 2}),
    "3d": ((2, 2, 4, 5, 66), (2, 1, 2, 3, 3), {"padding": 1, "groups": 2}),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=dtype_id)
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("case", DEPTHWISE_CASES)
def test_depthwise_convolution_matches_cpu(case, bias, dtype):
    x_shape, w_shape, kwargs = DEPTHWISE_CASES[case]
    conv = F.conv3d if len(x_shape) == 5 else F.conv2d
    inputs = [randn(*x_shape, dtype=dtype), randn(*w_shape, dtype=dtype, seed=1)]
    if bias:
        inputs.append(randn(w_shape[0], dtype=dtype, seed=2))
    if dtype in LOW_PRECISION:  # forward only: CPU's 16-bit convolution backward rounds differently
        check_forward(lambda *xs: conv(*xs, **kwargs), inputs, LOW_PRECISION)
    else:
        check_gradients(
            lambda *xs: conv(*xs, **kwargs), inputs, tolerances={torch.float32: {"rtol": 1e-4, "atol": 1e-4}}
        )


def test_conv2d_module_training_steps_match_cpu():
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3, stride=2, groups=2), nn.Flatten(), nn.Linear(36, 5)
    )
    x, target = randn(4, 3, 8, 8, seed=1), randn(4, 5, seed=2)
    runs = {}
    for device in ("cpu", FOO):
        m = copy.deepcopy(model).to(device)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = (m(x.to(device)) - target.to(device)).square().mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs[torch.device(device).type] = (losses, [p.detach() for p in m.parameters()])
    tolerances = {"rtol": 1e-4, "atol": 1e-5}
    torch.testing.assert_close(runs["foo"][0], runs["cpu"][0], **tolerances)
    assert_close_to_cpu(runs["foo"][1], runs["cpu"][1], {torch.float32: tolerances})
    assert not torch.equal(runs["foo"][1][0].cpu(), model[0].weight), "the training steps changed nothing"


@pytest.mark.parametrize("channels_last", ["input", "weight"])
@pytest.mark.parametrize("functional", [F.conv3d, F.conv_transpose3d], ids=["conv3d", "conv_transpose3d"])
def test_conv3d_with_channels_last_3d_operands_gives_contiguous_results(functional, channels_last):
    cases = CONV3D_CASES if functional is F.conv3d else CONV_TRANSPOSE3D_CASES
    fn, (x, weight, bias) = conv_inputs(functional, cases, "everything", bias=True)
    if channels_last == "input":
        x = x.contiguous(memory_format=torch.channels_last_3d)
    else:
        weight = weight.contiguous(memory_format=torch.channels_last_3d)
    actual, expected = check_gradients(fn, [x, weight, bias])
    assert expected[0].is_contiguous(memory_format=torch.channels_last_3d)
    assert_contiguous_as_compile_assumes(actual[0], x, weight, functional is F.conv_transpose3d, cases["everything"][1])


# ---- nn.Unfold and nn.Fold (im2col and col2im, each the other's gradient) ----------------------------

WINDOWS = {
    "2x2": {"kernel_size": 2},
    "strided_dilated_padded": {"kernel_size": (3, 2), "dilation": (2, 1), "padding": 1, "stride": (2, 1)},
}


@pytest.mark.parametrize("window", WINDOWS.values(), ids=WINDOWS.keys())
@pytest.mark.parametrize("batched", [True, False])
def test_unfold_and_fold_match_cpu(window, batched):
    shape = (2, 3, 7, 6) if batched else (3, 7, 6)
    (cols, _), _ = check_gradients(lambda x: F.unfold(x, **window), [randn(*shape).transpose(-1, -2).requires_grad_()])
    check_gradients(lambda c: F.fold(c, (6, 7), **window), [randn(*cols.shape, seed=1).requires_grad_()])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64], ids=dtype_id)
def test_unfold_and_fold_dtypes_match_cpu(dtype):
    window = WINDOWS["strided_dilated_padded"]
    (cols,), _ = check_forward(lambda x: (F.unfold(x, **window),), [randn(2, 3, 7, 6, dtype=dtype)])
    check_forward(lambda c: F.fold(c, (7, 6), **window), [cols.cpu()], LOW_PRECISION.get(dtype))
