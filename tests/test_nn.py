"""Neural-network operators against the CPU, forward values and every input's gradient: convolutions, batch/layer/
group norm, max pooling, cross-entropy, index_select/embedding/tril/triu, autocast and the GradScaler's kernels, and
the two examples training on foo and on the CPU from the same weights. Nothing may fall back to the CPU.
"""

import copy
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from conftest import (
    FLOAT_DTYPES,
    FOO,
    assert_close_to_cpu,
    assert_exact,
    dtype_id,
    forward_backward,
    run_like_cpu,
    to_foo_keeping_layout,
)
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for examples/

from examples import train_cnn, train_transformer

pytestmark = [
    pytest.mark.usefixtures("no_fallback"),
    pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths"),
]

Tensor = torch.Tensor

# Loose forward tolerances for 16-bit inputs: both devices accumulate in float32 but may round differently.
LOW_PRECISION = {torch.float16: {"rtol": 1e-2, "atol": 1e-2}, torch.bfloat16: {"rtol": 2e-2, "atol": 5e-2}}
INT_DTYPES = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]


def randn(*shape: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def on(device: torch.device | str, t: Tensor) -> Tensor:
    """t on `device`, with its sizes and strides kept on foo."""
    return to_foo_keeping_layout(t) if torch.device(device).type == "foo" else t.clone()


def check_gradients(
    fn: Callable[..., Tensor],
    inputs: list[Tensor],
    constants: tuple[Tensor | None, ...] = (),
    tolerances: dict | None = None,
) -> None:
    """fn(*inputs, *constants) and the gradient of each of `inputs` (after backward with one random incoming
    gradient) on foo against the CPU. Inputs keep their layout on foo; constants (targets, indices) are copied."""
    with torch.no_grad():
        shape = fn(*inputs, *constants).shape
    grad = randn(*shape, dtype=inputs[0].dtype, seed=99)
    expected = forward_backward(lambda *xs: fn(*xs, *constants), inputs, grad)
    foo_constants = tuple(None if c is None else on(FOO, c) for c in constants)
    actual = forward_backward(lambda *xs: fn(*xs, *foo_constants), [on(FOO, t) for t in inputs], grad)
    assert_close_to_cpu(actual, expected, tolerances)


def check_forward(fn: Callable[..., object], inputs: list[Tensor], tolerances: dict | None = None) -> None:
    """fn's results on foo against the CPU, without gradients; each device gets its own copy of the inputs (which
    keep their layout on foo)."""
    outcome = run_like_cpu(lambda: fn(*[on("cpu", t) for t in inputs]), lambda: fn(*[on(FOO, t) for t in inputs]))
    assert outcome is not None, "both devices raised"
    assert_close_to_cpu(*outcome, tolerances)


# ---- convolution ---------------------------------------------------------------------------------------------

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
    """fn(x, weight[, bias]) of one case and its inputs: a batch of 2 with 7 x 6 (or 9) positions."""
    kernel, kwargs = cases[name]
    dims = 2 if functional in (F.conv2d, F.conv_transpose2d) else 1
    transposed = functional in (F.conv_transpose1d, F.conv_transpose2d)
    x = randn(2, IN_CHANNELS, *((7, 6) if dims == 2 else (9,)), dtype=dtype)
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
    ],
)
def test_convolution_matches_cpu(functional, cases, name, bias):
    fn, inputs = conv_inputs(functional, cases, name, bias)
    check_gradients(fn, inputs)


# Views of a [N, C, H, W] (or [N, C, L]) input: (base shape from the target shape, view).
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
    check_gradients(fn, [x, *params])


@pytest.mark.parametrize("functional", [F.conv2d, F.conv_transpose2d], ids=["conv2d", "conv_transpose2d"])
def test_convolution_with_channels_last_weight_matches_cpu(functional):
    cases = CONV2D_CASES if functional is F.conv2d else CONV_TRANSPOSE2D_CASES
    fn, (x, weight, bias) = conv_inputs(functional, cases, "everything", bias=True)
    weight = weight.contiguous(memory_format=torch.channels_last)
    check_gradients(fn, [x.contiguous(memory_format=torch.channels_last), weight, bias])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize(
    ("functional", "cases"),
    [
        pytest.param(F.conv2d, CONV2D_CASES, id="conv2d"),
        pytest.param(F.conv1d, CONV1D_CASES, id="conv1d"),
        pytest.param(F.conv_transpose2d, CONV_TRANSPOSE2D_CASES, id="conv_transpose2d"),
        pytest.param(F.conv_transpose1d, CONV_TRANSPOSE1D_CASES, id="conv_transpose1d"),
    ],
)
def test_convolution_dtypes_match_cpu(functional, cases, dtype):
    name = "everything" if "everything" in cases else "groups_2"
    fn, inputs = conv_inputs(functional, cases, name, bias=True, dtype=dtype)
    if dtype in LOW_PRECISION:  # forward only: CPU's 16-bit convolution backward rounds differently
        check_forward(fn, inputs, LOW_PRECISION)
    else:
        check_gradients(fn, inputs)


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


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda x, w: F.conv3d(x, w), id="conv3d"),
        pytest.param(lambda x, w: F.conv_transpose3d(x, w.transpose(0, 1)), id="conv_transpose3d"),
    ],
)
def test_3d_convolution_goes_through_the_cpu_fallback(call):
    """3-d convolutions have no foo kernel: they run on the CPU like any such operator (here forbidden)."""
    x, w = randn(1, 2, 4, 4, 4).to(FOO), randn(3, 2, 2, 2, 2).to(FOO)
    with pytest.raises(NotImplementedError, match="aten::convolution"):
        call(x, w)
    assert (x + 1).cpu().shape == x.shape, "foo still works"


# ---- normalization ----------------------------------------------------------------------------------------------

BATCH_NORM_SHAPES = {"2d": (6, 3), "3d": (4, 3, 5), "4d": (2, 3, 4, 5)}


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_batch_norm_matches_cpu(dtype, shape, training, affine):
    x = randn(*BATCH_NORM_SHAPES[shape], dtype=dtype) * 2 + 1
    params = [randn(3, dtype=dtype, seed=1), randn(3, dtype=dtype, seed=2)] if affine else []
    running = {}
    for device in ("cpu", FOO):
        mean, var = randn(3, dtype=dtype, seed=3).to(device), (randn(3, dtype=dtype, seed=4).abs() + 0.5).to(device)
        running[torch.device(device).type] = (mean, var)

        def fn(x: Tensor, *params: Tensor, mean: Tensor = mean, var: Tensor = var) -> Tensor:
            return F.batch_norm(x, mean, var, *params, training=training, momentum=0.3, eps=1e-4)

        inputs = [on(device, t) for t in [x, *params]]
        output, grads = forward_backward(fn, inputs, randn(*x.shape, dtype=dtype, seed=5))
        running[torch.device(device).type] += (output, grads)
    # running_mean and running_var updated in place like the CPU's (unchanged in eval), output and gradients
    assert_close_to_cpu(running["foo"], running["cpu"])
    if not training:
        assert torch.equal(running["cpu"][0], randn(3, dtype=dtype, seed=3))


@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
def test_batch_norm_without_running_stats_matches_cpu(shape):
    x = randn(*BATCH_NORM_SHAPES[shape])
    check_gradients(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [x, randn(3), randn(3, seed=2)])


@pytest.mark.parametrize("momentum", [0.1, 0.5, None], ids=["momentum_0.1", "momentum_0.5", "cumulative"])
@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
def test_batch_norm_module_running_stats_match_cpu(shape, momentum):
    """Four training batches update running_mean/var (momentum None: their cumulative average), then eval."""
    module = (nn.BatchNorm1d if len(BATCH_NORM_SHAPES[shape]) < 4 else nn.BatchNorm2d)(3, momentum=momentum)
    batches = [randn(*BATCH_NORM_SHAPES[shape], seed=s) * (s + 1) + s for s in range(4)]
    results = {}
    for device in ("cpu", FOO):
        m = copy.deepcopy(module).to(device)
        outputs = [m(x.to(device)) for x in batches]
        outputs.append(m.eval()(batches[0].to(device)))
        results[torch.device(device).type] = (outputs, m.running_mean, m.running_var, m.num_batches_tracked)
    assert_close_to_cpu(results["foo"], results["cpu"])


@pytest.mark.parametrize("params_dtype", ["same", "float32"])
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_batch_norm_of_16_bit_input_matches_cpu(dtype, training, params_dtype):
    """16-bit input with 16-bit parameters and running statistics, or float32 ones (the mix autocast produces)."""
    x = randn(2, 3, 4, 5, dtype=dtype) * 3 + 2
    pdt = dtype if params_dtype == "same" else torch.float32
    stats = [randn(3, seed=1, dtype=pdt), randn(3, seed=2, dtype=pdt).abs() + 0.5]

    def fn(x: Tensor, mean: Tensor, var: Tensor, w: Tensor, b: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return F.batch_norm(x, mean, var, w, b, training=training), mean, var

    check_forward(fn, [x, *stats, randn(3, seed=3, dtype=pdt), randn(3, seed=4, dtype=pdt)], LOW_PRECISION)


LAYER_NORM_SHAPES = {"last_dim": (5,), "last_two_dims": (4, 5)}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("affine", ["affine", "weight_only", "no_affine"])
@pytest.mark.parametrize("normalized", LAYER_NORM_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_layer_norm_matches_cpu(dtype, normalized, affine, layout):
    shape = LAYER_NORM_SHAPES[normalized]
    x = randn(2, 3, 5, 4, dtype=dtype).transpose(-1, -2) if layout == "transposed" else randn(2, 3, 4, 5, dtype=dtype)
    params = {"affine": 2, "weight_only": 1, "no_affine": 0}[affine]
    inputs = [x, randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)][: 1 + params]
    check_gradients(lambda x, *p: F.layer_norm(x, shape, *p, eps=1e-4), inputs)


@pytest.mark.parametrize("params_dtype", ["same", "float32"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_layer_norm_of_16_bit_input_matches_cpu(dtype, params_dtype):
    params = [randn(4, 5, seed=s, dtype=dtype if params_dtype == "same" else torch.float32) for s in (1, 2)]
    check_forward(
        lambda x, w, b: F.layer_norm(x, (4, 5), w, b), [randn(2, 3, 4, 5, dtype=dtype) * 4, *params], LOW_PRECISION
    )


LONG_BLOCKS = {
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (150000,), w, b), [(2, 150000), (150000,), (150000,)]),
    "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [(2, 2, 300, 300), (2,), (2,)]),
    "batch_norm_eval": (
        lambda x, w, b: F.batch_norm(x, torch.zeros_like(w), torch.ones_like(w), w, b),
        [(2, 2, 300, 300), (2,), (2,)],
    ),
}


@pytest.mark.parametrize("case", LONG_BLOCKS)
def test_normalization_of_few_long_rows_matches_cpu(case):
    """Two rows of 150000 elements, or two channels of 180000: every work-item shares the elements, so no
    work-item loops over a whole row (a driver that ends loops early gave wrong values), and the statistics
    sum in blocks, so they stay as accurate as the CPU's. The weight and bias gradients are sums of 360000 terms,
    which the CPU rounds differently (each device is within 2e-6 of a float64 reference)."""
    fn, shapes = LONG_BLOCKS[case]
    inputs = [randn(*shape, seed=i) * (i + 1) + i for i, shape in enumerate(shapes)]
    check_gradients(fn, inputs, tolerances={torch.float32: {"rtol": 1e-4, "atol": 1e-4}})


GROUP_NORM_SHAPES = {"2d": (4, 6), "3d": (3, 6, 7), "4d": (2, 6, 4, 5)}


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
@pytest.mark.parametrize(
    ("shape", "groups"),
    # not 2-d with 6 groups: groups of one element, whose gradient CPU computes as rounding noise instead of 0
    [(shape, groups) for shape in GROUP_NORM_SHAPES for groups in (1, 2, 6) if (shape, groups) != ("2d", 6)],
    ids=lambda v: f"{v}_groups" if isinstance(v, int) else v,
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_group_norm_matches_cpu(dtype, shape, groups, affine):
    x = randn(*GROUP_NORM_SHAPES[shape], dtype=dtype) * 2 - 1
    params = [randn(6, dtype=dtype, seed=1), randn(6, dtype=dtype, seed=2)] if affine else []
    check_gradients(lambda x, *p: F.group_norm(x, groups, *p, eps=1e-4), [x, *params])


def test_group_norm_of_channels_last_input_matches_cpu():
    x = randn(2, 6, 4, 5).contiguous(memory_format=torch.channels_last)
    check_gradients(lambda x, w, b: F.group_norm(x, 3, w, b), [x, randn(6, seed=1), randn(6, seed=2)])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_group_norm_of_16_bit_input_matches_cpu(dtype):
    inputs = [randn(2, 6, 4, 5, dtype=dtype) * 4, randn(6, seed=1, dtype=dtype), randn(6, seed=2, dtype=dtype)]
    check_forward(lambda x, w, b: F.group_norm(x, 3, w, b), inputs, LOW_PRECISION)


# ---- pooling --------------------------------------------------------------------------------------------------

# name: keyword arguments of max_pool2d; inputs are 7 x 8
POOL_CASES = {
    "kernel_2": {"kernel_size": 2},
    "kernel_3_stride_1": {"kernel_size": 3, "stride": 1},  # overlapping windows
    "kernel_3_stride_2_padding_1": {"kernel_size": 3, "stride": 2, "padding": 1},
    "rectangular": {"kernel_size": (2, 3), "stride": (1, 2), "padding": (1, 1)},
    "dilation_2": {"kernel_size": 2, "stride": 1, "dilation": 2},
    "dilation_padding": {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": (2, 1)},
    "ceil_mode": {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    "ceil_mode_padding": {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True},
}


def pool(x: Tensor, case: str) -> tuple[Tensor, Tensor]:
    return F.max_pool2d(x, **POOL_CASES[case], return_indices=True)


def assert_pool_matches_cpu(x: Tensor, case: str) -> None:
    """Values bit for bit (NaN included) and indices equal to the CPU's."""
    values, indices = pool(on(FOO, x), case)
    expected_values, expected_indices = pool(x, case)
    assert_exact(values.cpu(), expected_values)
    assert indices.dtype == torch.int64
    assert torch.equal(indices.cpu(), expected_indices)


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d_values_indices_and_gradient_match_cpu(case):
    x = randn(2, 3, 7, 8)
    assert_pool_matches_cpu(x, case)
    check_gradients(lambda x: pool(x, case)[0], [x])


@pytest.mark.parametrize("case", ["kernel_3_stride_1", "rectangular", "ceil_mode_padding"])
def test_max_pool2d_ties_pick_the_first_like_cpu(case):
    """Few distinct values: ties in every window, and several windows sharing a maximum sum its gradients."""
    x = torch.randint(0, 3, (2, 3, 7, 8), generator=torch.Generator().manual_seed(0)).float()
    assert_pool_matches_cpu(x, case)
    check_gradients(lambda x: pool(x, case)[0], [x])


@pytest.mark.parametrize("case", ["kernel_2", "kernel_3_stride_2_padding_1", "dilation_padding"])
def test_max_pool2d_nan_and_infinities_match_cpu(case):
    x = randn(2, 3, 7, 8)
    x[0, 0, :3, :3] = math.nan
    x[0, 1, 2, ::3] = math.nan
    x[1, 0] = -math.inf  # whole windows of -inf: the value is -inf, the index the first in the window
    x[1, 1, 3, 4] = math.inf
    assert_pool_matches_cpu(x, case)


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, *INT_DTYPES], ids=dtype_id)
def test_max_pool2d_dtypes_match_cpu(dtype):
    """Integers with ties and their extreme values."""
    if dtype.is_floating_point:
        x = randn(2, 3, 7, 8, dtype=dtype)
    else:
        info = torch.iinfo(dtype)
        x = torch.randint(-3, 4, (2, 3, 7, 8), generator=torch.Generator().manual_seed(0)).clamp(min=info.min)
        x = x.to(dtype)
        x[0, 0] = info.min
        x[0, 1, 1::2] = info.max
    for case in ("kernel_3_stride_2_padding_1", "ceil_mode"):
        assert_pool_matches_cpu(x, case)


def test_max_pool2d_of_unbatched_input_matches_cpu():
    x = randn(3, 7, 8)
    assert_pool_matches_cpu(x, "kernel_3_stride_2_padding_1")
    check_gradients(lambda x: pool(x, "kernel_3_stride_1")[0], [x])


@pytest.mark.parametrize("layout", ["channels_last", "transposed"])
def test_max_pool2d_of_strided_input_matches_cpu(layout):
    x = randn(2, 3, 7, 8).contiguous(memory_format=torch.channels_last)
    if layout == "transposed":
        x = randn(2, 3, 8, 7).transpose(2, 3)
    assert_pool_matches_cpu(x, "kernel_3_stride_2_padding_1")
    check_gradients(lambda x: pool(x, "kernel_3_stride_1")[0], [x])


def test_max_pool2d_without_indices_matches_cpu():
    check_gradients(lambda x: F.max_pool2d(x, 3, 2, 1), [randn(2, 3, 7, 8)])


# ---- losses ------------------------------------------------------------------------------------------------------

CLASSES = 5
TARGETS = torch.tensor([0, 4, 2, 2, 1, 3, 4])  # 7 samples, class 2 twice


@pytest.mark.parametrize("label_smoothing", [0.0, 0.2], ids=["no_smoothing", "smoothing_0.2"])
@pytest.mark.parametrize("ignore_index", [-100, 2], ids=["no_ignored", "ignore_2"])
@pytest.mark.parametrize("weight", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_cross_entropy_matches_cpu(dtype, reduction, weight, ignore_index, label_smoothing):
    weights = (torch.rand(CLASSES, generator=torch.Generator().manual_seed(1), dtype=dtype) + 0.5,) if weight else ()

    def fn(x: Tensor, targets: Tensor, *weights: Tensor) -> Tensor:
        return F.cross_entropy(
            x,
            targets,
            *weights,
            ignore_index=ignore_index,
            reduction=reduction,
            label_smoothing=label_smoothing,
        )

    check_gradients(fn, [randn(len(TARGETS), CLASSES, dtype=dtype) * 2], (TARGETS, *weights))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_of_1d_input_matches_cpu(reduction):
    x = F.log_softmax(randn(CLASSES), 0)
    check_gradients(lambda x, t: F.nll_loss(x, t, reduction=reduction), [x], (torch.tensor(3),))


@pytest.mark.parametrize("weight", [False, True], ids=["unweighted", "weighted"])
def test_nll_loss_of_strided_input_matches_cpu(weight):
    x = randn(CLASSES, len(TARGETS)).t()
    weights = (torch.linspace(0.5, 2, CLASSES),) if weight else ()
    check_gradients(lambda x, t, *w: F.nll_loss(x, t, *w), [x], (TARGETS, *weights))


@pytest.mark.parametrize(
    "targets",
    [[0, CLASSES, 1], [0, -1, 1], [-100, 7, 0], [CLASSES + 100]],
    ids=["classes", "minus_1", "beyond_an_ignored_one", "single"],
)
@pytest.mark.parametrize("loss", [F.cross_entropy, F.nll_loss], ids=["cross_entropy", "nll_loss"])
def test_out_of_range_targets_raise_index_error_like_cpu(loss, targets):
    x, t = randn(len(targets), CLASSES), torch.tensor(targets)
    outcome = run_like_cpu(lambda: loss(x, t), lambda: loss(x.to(FOO), t.to(FOO)), same_message=True)
    assert outcome is None
    with pytest.raises(IndexError, match="out of bounds"):
        loss(x.to(FOO), t.to(FOO))


@pytest.mark.parametrize(
    ("loss", "label_smoothing"),
    [("cross_entropy", 0.0), ("cross_entropy", 0.1), ("nll_loss", 0.0)],
    ids=["cross_entropy", "cross_entropy_smoothing_0.1", "nll_loss"],
)
def test_mean_loss_of_only_ignored_targets_is_nan_like_cpu(loss, label_smoothing):
    kwargs = {"label_smoothing": label_smoothing} if label_smoothing else {}
    fn = getattr(F, loss)
    targets = torch.full((4,), -100)
    check_gradients(lambda x, t: fn(x, t, **kwargs), [randn(4, CLASSES)], (targets,))
    assert fn(randn(4, CLASSES).to(FOO), targets.to(FOO), **kwargs).isnan().item()


# ---- indexing ----------------------------------------------------------------------------------------------------

INDEX_SELECT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int64, torch.bool]


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", INDEX_SELECT_DTYPES, ids=dtype_id)
def test_index_select_matches_cpu(dtype, dim, index_dtype):
    x = (randn(3, 4, 5) * 50).to(dtype)
    index = torch.tensor([2, 0, 2, 1, 2], dtype=index_dtype)[: x.shape[dim]]
    assert_exact(x.to(FOO).index_select(dim, index.to(FOO)).cpu(), x.index_select(dim, index))
    # a strided self, a strided index, and a strided out=
    y = x.transpose(0, 2)
    strided_index = index.repeat_interleave(2)[::2]
    out = torch.empty(y.index_select(dim, index).shape[::-1], dtype=dtype, device=FOO).permute(2, 1, 0)
    torch.index_select(on(FOO, y), dim, on(FOO, strided_index), out=out)
    assert_exact(out.cpu(), y.index_select(dim, strided_index))


def test_index_select_of_0d_and_empty_tensors_matches_cpu():
    x = randn(3, 4)
    for self_, dim, index in [
        (torch.tensor(2.5), 0, torch.tensor([0])),
        (torch.tensor(2.5), 0, torch.tensor(0)),
        (x, 1, torch.tensor(3)),
        (x, 1, torch.tensor([], dtype=torch.int64)),
        (randn(0, 4), 1, torch.tensor([1, 1])),
    ]:
        assert_exact(self_.to(FOO).index_select(dim, index.to(FOO)).cpu(), self_.index_select(dim, index))


def test_index_select_of_0d_self_with_two_indices_raises_like_cpu():
    outcome = run_like_cpu(
        lambda: torch.tensor(2.5).index_select(0, torch.tensor([0, 0])),
        lambda: torch.tensor(2.5, device=FOO).index_select(0, torch.tensor([0, 0], device=FOO)),
    )
    assert outcome is None


@pytest.mark.parametrize("index", [[0, 4], [-1], [1, 9, 0]], ids=["size", "negative", "far"])
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_select_out_of_range_raises_index_error(dim, index):
    """As CPU's along dim 0 (along other dims CPU's float kernel raises a RuntimeError instead)."""
    x, positions = randn(4, 4, 4), torch.tensor(index)
    with pytest.raises(IndexError, match="index out of range in self"):
        x.to(FOO).index_select(dim, positions.to(FOO))
    if dim == 0:
        with pytest.raises(IndexError, match="index out of range in self"):
            x.index_select(dim, positions)


def test_index_select_gradient_matches_cpu():
    check_gradients(lambda x, i: x.index_select(1, i), [randn(3, 4, 5)], (torch.tensor([0, 2, 2, 3]),))


# ---- gather, scatter, scatter_add, index_add ------------------------------------------------------

SCATTER_DTYPES = [*FLOAT_DTYPES, *INT_DTYPES, torch.bool]


def small_values(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> Tensor:
    """Values in {0, 1, 2} (so integer and 16-bit sums are exact in any order)."""
    return torch.randint(0, 3, shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", SCATTER_DTYPES, ids=dtype_id)
def test_gather_scatter_and_scatter_add_match_cpu(dtype, dim):
    self_ = small_values((4, 5, 6), dtype)
    index_shape = [3, 4, 5]
    index_shape[dim] = 7  # repeated positions along dim
    index = torch.randint(0, self_.size(dim), index_shape, generator=torch.Generator().manual_seed(1))
    src = small_values(tuple(index_shape), dtype, seed=2)
    for op in (
        lambda s, i, x: s.gather(dim, i),
        lambda s, i, x: s.scatter_add(dim, i, x),
        lambda s, i, x: s.clone().scatter_add_(dim, i, x),
        lambda s, i, x: s.scatter(dim, i[:1] if dim == 0 else i.narrow(dim, 0, 1), 1),
    ):
        assert_exact(op(self_.to(FOO), index.to(FOO), src.to(FOO)).cpu(), op(self_, index, src))


def test_scatter_with_distinct_positions_matches_cpu():
    self_, src = randn(5, 4), randn(2, 4, seed=1)
    index = torch.tensor([[4, 0, 1, 3], [2, 3, 0, 1]])
    assert_exact(self_.to(FOO).scatter(0, index.to(FOO), src.to(FOO)).cpu(), self_.scatter(0, index, src))


def test_gather_and_scatter_add_gradients_match_cpu():
    index = torch.tensor([[0, 2, 2], [1, 0, 1]])
    check_gradients(lambda x, i: x.gather(1, i), [randn(2, 4)], (index,))
    check_gradients(lambda x, s, i: x.scatter_add(1, i, s), [randn(2, 4), randn(2, 3, seed=1)], (index,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64], ids=dtype_id)
def test_index_add_matches_cpu(dtype):
    self_, source = small_values((3, 5), dtype), small_values((3, 4), dtype, seed=1)
    index = torch.tensor([4, 0, 4, 2])
    assert_exact(
        self_.to(FOO).index_add(1, index.to(FOO), source.to(FOO), alpha=2).cpu(),
        self_.index_add(1, index, source, alpha=2),
    )


def test_out_of_range_gather_and_scatter_positions_raise_runtime_error_as_cpu():
    for device in ("cpu", FOO):
        x = torch.zeros(3, 4, device=device)
        with pytest.raises(RuntimeError, match="out of bounds"):
            x.gather(1, torch.tensor([[4]], device=device))
        with pytest.raises(RuntimeError, match="out of bounds"):
            x.scatter_add(0, torch.tensor([[-1]], device=device), torch.ones(1, 1, device=device))


def test_one_hot_matches_cpu():
    labels = torch.tensor([3, 0, 4, 4])
    assert_exact(F.one_hot(labels.to(FOO), 6).cpu(), F.one_hot(labels, 6))


# Indices into 7 rows with repeats; row 3 is never used.
EMBEDDING_INDICES = torch.tensor([[1, 4, 1, 0], [6, 1, 2, 4], [5, 5, 5, 5]])


@pytest.mark.parametrize("scale_grad_by_freq", [False, True], ids=["unscaled", "scaled_by_frequency"])
@pytest.mark.parametrize("padding_idx", [None, 1, -2], ids=["no_padding", "padding_1", "padding_minus_2"])
@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_embedding_matches_cpu(dtype, index_dtype, padding_idx, scale_grad_by_freq):
    def fn(weight: Tensor, indices: Tensor) -> Tensor:
        return F.embedding(indices, weight, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)

    # 16-bit: CPU sums the repeated rows' gradients in the 16-bit dtype, foo in float32
    check_gradients(fn, [randn(7, 6, dtype=dtype)], (EMBEDDING_INDICES.to(index_dtype),), LOW_PRECISION)


@pytest.mark.parametrize("scale_grad_by_freq", [False, True], ids=["unscaled", "scaled_by_frequency"])
def test_embedding_gradient_of_many_repeats_is_deterministic(scale_grad_by_freq):
    """300 lookups of 5 rows: the sums of the gradient rows, in the indices' order, equal the CPU's (to the bit
    when unscaled; CPU scales each row before summing) and are the same on every run."""
    indices = torch.randint(0, 5, (300,), generator=torch.Generator().manual_seed(0))
    grad = randn(300, 8, seed=1)

    def weight_grad(device: torch.device | str) -> Tensor:
        weight = randn(5, 8).to(device).requires_grad_()
        F.embedding(indices.to(device), weight, scale_grad_by_freq=scale_grad_by_freq).backward(grad.to(device))
        return weight.grad.cpu()

    first, expected = weight_grad(FOO), weight_grad("cpu")
    assert_exact(weight_grad(FOO), first)
    if scale_grad_by_freq:
        torch.testing.assert_close(first, expected)
    else:
        assert_exact(first, expected)


def test_embedding_out_of_range_index_raises_index_error_like_cpu():
    weight, indices = randn(5, 3), torch.tensor([1, 5])
    assert (
        run_like_cpu(lambda: F.embedding(indices, weight), lambda: F.embedding(indices.to(FOO), weight.to(FOO))) is None
    )


@pytest.mark.parametrize("in_place", [False, True], ids=["out_of_place", "in_place"])
@pytest.mark.parametrize("diagonal", [-5, -2, -1, 0, 1, 3, 6])
@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bool, torch.int16], ids=dtype_id)
def test_tril_triu_match_cpu(dtype, op, diagonal, in_place):
    x = randn(2, 3, 4, 5) if dtype.is_floating_point else torch.randint(-5, 5, (2, 3, 4, 5)).to(dtype)
    for view in (lambda t: t, lambda t: t.transpose(-1, -2), lambda t: t[1, :, 1:]):
        if in_place:
            expected, actual = view(x.clone()), view(on(FOO, x))
            getattr(expected, f"{op}_")(diagonal)
            result = getattr(actual, f"{op}_")(diagonal)
            assert result is actual
        else:
            expected, actual = getattr(view(x), op)(diagonal), getattr(view(on(FOO, x)), op)(diagonal)
        assert_exact(actual.cpu(), expected)


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_tril_triu_gradient_and_out_match_cpu(op):
    check_gradients(lambda x: getattr(torch, op)(x, -1), [randn(2, 4, 3)])
    out = torch.empty(0, device=FOO)
    getattr(torch, op)(randn(3, 3).to(FOO), 1, out=out)
    assert_exact(out.cpu(), getattr(torch, op)(randn(3, 3), 1))


# ---- automatic mixed precision -----------------------------------------------------------------------------------

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


# (dtype, inv_scale) pairs where foo rounds inv_scale to the gradients' dtype before multiplying, while CPU and
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


# ---- end to end ---------------------------------------------------------------------------------------------------

EXAMPLES = {
    "train_cnn": (train_cnn, lambda: train_cnn.SmallCNN()),
    "train_transformer": (train_transformer, lambda: train_transformer.TinyLM()),
}


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_trains_like_cpu(example):
    """Three training steps on foo and on the CPU from the same weights, in eval() as the examples' main() (dropout
    off): the losses agree; with amp=True (float16 autocast and a GradScaler) foo's losses are finite."""
    module, make_model = EXAMPLES[example]
    torch.manual_seed(0)
    model = make_model().eval()
    batches = module.synthetic_batches(3)
    cpu = module.train(copy.deepcopy(model), "cpu", batches)
    foo = module.train(copy.deepcopy(model), "foo", batches)
    torch.testing.assert_close(torch.tensor(foo), torch.tensor(cpu), rtol=1e-3, atol=0)
    amp = module.train(copy.deepcopy(model), "foo", batches, amp=True)
    assert all(math.isfinite(loss) for loss in amp), amp
    torch.testing.assert_close(amp[0], cpu[0], rtol=2e-2, atol=0)


# ---- advanced indexing ----------------------------------------------------------------------------


def index_cases(device: torch.device | str, t: Tensor) -> list[tuple]:
    """Index expressions of numpy's kinds: one index tensor, several (adjacent or not), masks, negatives."""
    i = torch.tensor([0, 2, -1], device=device)
    return [
        (i,),
        (slice(None), torch.tensor([[1, 4], [0, 0]], device=device)),
        (torch.tensor([0, 1], device=device), slice(None), torch.tensor([5, 2], device=device)),
        (slice(None), torch.tensor([0, 1], device=device), torch.tensor([5, 2], device=device)),
        (t > 0.5,),
        ((t > 0)[:, :, 0],),
        (1, torch.tensor([3], device=device)),
        (Ellipsis, torch.tensor([1, 1], device=device)),
    ]


@pytest.mark.parametrize("case", range(8))
def test_advanced_indexing_matches_cpu(case):
    x = randn(4, 5, 6)
    expected = x[index_cases("cpu", x)[case]]
    actual = x.to(FOO)[index_cases(FOO, x.to(FOO))[case]]
    assert_exact(actual.cpu(), expected)


@pytest.mark.parametrize("accumulate", [False, True], ids=["assign", "accumulate"])
def test_index_put_matches_cpu(accumulate):
    x = randn(4, 5, 6)
    for make_index, values in [
        (lambda d: (torch.tensor([0, 2, 3], device=d),), randn(3, 5, 6, seed=1)),
        (lambda d: (torch.tensor([0, 1], device=d), torch.tensor([4, 2], device=d)), randn(2, 6, seed=2)),
        (lambda d: (x.to(d) > 0,), torch.tensor(1.5)),
    ]:
        expected = x.clone().index_put_(make_index("cpu"), values, accumulate=accumulate)
        actual = x.to(FOO).index_put_(make_index(FOO), values.to(FOO), accumulate=accumulate)
        torch.testing.assert_close(actual.cpu(), expected)


def test_indexing_gradient_matches_cpu():
    check_gradients(lambda w, i: w[i], [randn(6, 3)], (torch.tensor([1, 1, 4, 0]),))


def test_out_of_range_advanced_index_raises_index_error():
    with pytest.raises(IndexError, match="out of bounds"):
        torch.zeros(4, 2, device=FOO)[torch.tensor([4], device=FOO)]


AVG_POOL_CASES = {
    "k2": {"kernel_size": 2},
    "k3_s2_p1": {"kernel_size": 3, "stride": 2, "padding": 1},
    "exclude_pad": {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False},
    "rect_ceil": {"kernel_size": (3, 2), "stride": (1, 2), "padding": (1, 0), "ceil_mode": True},
    "ceil_exclude_pad": {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    "divisor_override": {"kernel_size": 3, "divisor_override": 5},
}


@pytest.mark.parametrize("kwargs", AVG_POOL_CASES.values(), ids=AVG_POOL_CASES.keys())
def test_avg_pool2d_and_gradient_match_cpu(kwargs):
    check_gradients(lambda x: F.avg_pool2d(x, **kwargs), [randn(2, 3, 9, 8)])


@pytest.mark.parametrize("output_size", [(3, 2), (1, 1), (4, 5), (9, 8)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_adaptive_pooling_and_gradients_match_cpu(output_size):
    check_gradients(lambda x: F.adaptive_avg_pool2d(x, output_size), [randn(2, 3, 9, 8)])
    check_gradients(lambda x: F.adaptive_max_pool2d(x, output_size), [randn(2, 3, 9, 8)])
    x = randn(3, 9, 8)
    assert_exact(
        F.adaptive_max_pool2d(x.to(FOO), output_size, return_indices=True)[1].cpu(),
        F.adaptive_max_pool2d(x, output_size, return_indices=True)[1],
    )


INTERPOLATE_CASES = {
    "nearest_x2": {"scale_factor": 2, "mode": "nearest"},
    "nearest_size": {"size": (8, 3), "mode": "nearest"},
    "nearest_x1.7": {"scale_factor": 1.7, "mode": "nearest"},
    "bilinear_x2": {"scale_factor": 2, "mode": "bilinear"},
    "bilinear_align_corners": {"size": (9, 4), "mode": "bilinear", "align_corners": True},
    "bilinear_down": {"scale_factor": 0.6, "mode": "bilinear"},
}


@pytest.mark.parametrize("kwargs", INTERPOLATE_CASES.values(), ids=INTERPOLATE_CASES.keys())
def test_interpolate_and_gradient_match_cpu(kwargs):
    check_gradients(lambda x: F.interpolate(x, **kwargs), [randn(2, 3, 5, 7)])


@pytest.mark.parametrize(
    "values",
    [
        torch.tensor([3.0, math.nan, 1.0, 3.0, math.nan]),
        torch.randint(0, 5, (4, 6), generator=torch.Generator().manual_seed(0)),
        torch.tensor([True, False, True]),
        torch.tensor([], dtype=torch.int64),
    ],
    ids=["float_nan", "int64_2d", "bool", "empty"],
)
def test_unique_matches_cpu(values):
    for kwargs in [
        {},
        {"return_inverse": True},
        {"return_counts": True},
        {"return_inverse": True, "return_counts": True},
    ]:
        expected, actual = torch.unique(values, **kwargs), torch.unique(values.to(FOO), **kwargs)
        for e, a in zip(
            expected if isinstance(expected, tuple) else (expected,), actual if isinstance(actual, tuple) else (actual,)
        ):
            torch.testing.assert_close(a.cpu(), e, equal_nan=True, rtol=0, atol=0)


def test_bincount_matches_cpu():
    x, w = torch.tensor([0, 1, 1, 4, 4, 4]), torch.tensor([0.5, 1.0, 2.0, 1.0, 1.0, 3.0])
    assert_exact(torch.bincount(x.to(FOO)).cpu(), torch.bincount(x))
    assert_exact(torch.bincount(x.to(FOO), w.to(FOO), minlength=9).cpu(), torch.bincount(x, w, minlength=9))
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.bincount(torch.tensor([-1], device=FOO))
