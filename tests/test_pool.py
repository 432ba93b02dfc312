"""Pooling and resizing against the CPU: max_pool2d's values bit for bit and its indices (ties, NaN and infinities, every
dtype, strided and unbatched inputs), avg_pool2d, adaptive average and max pooling, their 3-d forms, interpolate and
grid_sample, each with its input's gradient; channels_last outputs exactly where the CPU's are. Nothing may fall back
to the CPU.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from conftest import (
    CAPABILITIES,
    FLOAT_DTYPES,
    FOO,
    INT_DTYPES,
    LOW_PRECISION,
    assert_channels_last_like_cpu,
    assert_exact,
    check_forward,
    check_gradients,
    dtype_id,
    on,
    randn,
)

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

# ---- max_pool2d ------------------------------------------------------------------------------------------------------

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


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_max_pool2d_of_2x2_windows_eight_at_a_time_matches_cpu(dtype):
    """CPU devices take 2x2 windows of stride 2 eight outputs at a time: rows of 18 outputs (two blocks and a
    tail, an odd input width) with ties, NaN and infinities."""
    if dtype == torch.float64 and not CAPABILITIES["fp64"]:
        pytest.skip("the device has no float64")
    x = torch.randint(0, 3, (2, 3, 9, 37), generator=torch.Generator().manual_seed(0)).to(dtype)
    x[0, 0, :4, :20] = math.nan
    x[0, 1, 2, ::3] = math.nan
    x[1, 0] = -math.inf
    x[1, 1, 3, 4] = math.inf
    assert_pool_matches_cpu(x, "kernel_2")
    check_gradients(lambda x: pool(x, "kernel_2")[0], [randn(2, 3, 9, 37, dtype=dtype)])
    # ceil_mode's last windows hang off odd sizes: they take the general path.
    for size in [(2, 3, 15, 17), (1, 2, 9, 33)]:
        x = randn(*size, dtype=dtype)
        values, indices = F.max_pool2d(on(FOO, x), 2, ceil_mode=True, return_indices=True)
        expected_values, expected_indices = F.max_pool2d(x, 2, ceil_mode=True, return_indices=True)
        assert_exact(values.cpu(), expected_values)
        assert torch.equal(indices.cpu(), expected_indices)


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


# ---- avg_pool2d and adaptive pooling ---------------------------------------------------------------------------------

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


# ---- 3-d pooling -----------------------------------------------------------------------------------------------------

# name: (pooling of a [N, C, 5, 7, 6] input, keyword arguments)
POOL3D_CASES = {
    "max_k2": (F.max_pool3d, {"kernel_size": 2}),
    "max_overlapping": (F.max_pool3d, {"kernel_size": 3, "stride": 1, "padding": 1}),
    "max_everything": (
        F.max_pool3d,
        {"kernel_size": (2, 3, 2), "stride": (1, 2, 2), "padding": (1, 1, 0), "dilation": (2, 1, 2), "ceil_mode": True},
    ),
    "avg_k3_s2_p1": (F.avg_pool3d, {"kernel_size": 3, "stride": 2, "padding": 1}),
    "avg_exclude_pad_ceil": (
        F.avg_pool3d,
        {"kernel_size": (3, 2, 3), "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    ),
    "avg_divisor_override": (F.avg_pool3d, {"kernel_size": 2, "divisor_override": 3}),
    "adaptive_avg": (F.adaptive_avg_pool3d, {"output_size": (3, 4, 4)}),
    "adaptive_avg_1": (F.adaptive_avg_pool3d, {"output_size": 1}),
    "adaptive_max": (F.adaptive_max_pool3d, {"output_size": (2, 5, 4)}),
}


@pytest.mark.parametrize("batch", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("case", POOL3D_CASES)
def test_3d_pooling_and_gradient_match_cpu(case, batch):
    """Values, indices (exactly) and the input's gradient of 3-d pooling."""
    functional, kwargs = POOL3D_CASES[case]
    x = randn(2, 3, 5, 7, 6) if batch else randn(3, 5, 7, 6)
    check_gradients(lambda t: functional(t, **kwargs), [x])
    if functional in (F.max_pool3d, F.adaptive_max_pool3d):
        indices = functional(on(FOO, x), **kwargs, return_indices=True)[1]
        assert torch.equal(indices.cpu(), functional(x, **kwargs, return_indices=True)[1])


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, torch.int64], ids=dtype_id)
def test_max_pool3d_dtypes_and_nan_match_cpu(dtype):
    x = (randn(2, 2, 4, 5, 6) * 10).to(dtype)
    if dtype.is_floating_point:
        x[0, 0, 1, 2, 3] = math.nan
    values, indices = F.max_pool3d(on(FOO, x), 2, 1, return_indices=True)
    expected_values, expected_indices = F.max_pool3d(x, 2, 1, return_indices=True)
    assert_exact(values.cpu(), expected_values)
    assert torch.equal(indices.cpu(), expected_indices)


# ---- channels_last inputs --------------------------------------------------------------------------------------------

# Output sizes other than 1 x 1, whose outputs are both contiguous and channels_last.
CHANNELS_LAST_POOLS = {
    "max_pool2d": lambda x: F.max_pool2d(x, 3, 2, 1),
    "max_pool2d_with_indices": lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 3, 2, 1),
    "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
    "adaptive_max_pool2d_with_indices": lambda x: F.adaptive_max_pool2d(x, (3, 2), return_indices=True),
    "max_pool3d_with_indices": lambda x: F.max_pool3d(x.unflatten(2, (3, 3)), 2, 1, return_indices=True),
    "avg_pool3d": lambda x: F.avg_pool3d(x.unflatten(2, (3, 3)), 2),
    "adaptive_avg_pool3d": lambda x: F.adaptive_avg_pool3d(x.unflatten(2, (3, 3)), (2, 2, 3)),
    "adaptive_max_pool3d": lambda x: F.adaptive_max_pool3d(x.unflatten(2, (3, 3)), (2, 2, 3)),
}


@pytest.mark.parametrize("name", CHANNELS_LAST_POOLS)
def test_pooling_of_channels_last_input_is_channels_last_like_cpu(name):
    """The output (and indices) of a channels_last input: channels_last exactly when the CPU's is, values equal."""
    x = randn(2, 3, 9, 8).contiguous(memory_format=torch.channels_last)
    actual, expected = check_forward(CHANNELS_LAST_POOLS[name], [x])
    assert_channels_last_like_cpu(actual, expected)


# ---- interpolate -----------------------------------------------------------------------------------------------------

# name: (number of resized dims, keyword arguments of F.interpolate); inputs are [2, 3, ...] with 9, 5 x 7 or 4 x 5 x 6
# positions.
INTERPOLATE_CASES = {
    "nearest_x2": (2, {"scale_factor": 2, "mode": "nearest"}),
    "nearest_size": (2, {"size": (8, 3), "mode": "nearest"}),
    "nearest_x1.7": (2, {"scale_factor": 1.7, "mode": "nearest"}),
    "nearest_1d": (1, {"scale_factor": 1.7, "mode": "nearest"}),
    "nearest_3d": (3, {"scale_factor": (2, 0.6, 1.5), "mode": "nearest"}),
    "nearest_exact_1d": (1, {"scale_factor": 0.6, "mode": "nearest-exact"}),
    "nearest_exact_2d": (2, {"size": (8, 3), "mode": "nearest-exact"}),
    "nearest_exact_3d": (3, {"scale_factor": 1.7, "mode": "nearest-exact"}),
    "linear_x2": (1, {"scale_factor": 2, "mode": "linear"}),
    "linear_align_corners": (1, {"size": 13, "mode": "linear", "align_corners": True}),
    "bilinear_x2": (2, {"scale_factor": 2, "mode": "bilinear"}),
    "bilinear_align_corners": (2, {"size": (9, 4), "mode": "bilinear", "align_corners": True}),
    "bilinear_down": (2, {"scale_factor": 0.6, "mode": "bilinear"}),
    "bilinear_same_size_scale": (2, {"scale_factor": 1.1, "mode": "bilinear"}),  # 5 x 7 again, scale 1 / 1.1
    "trilinear": (3, {"scale_factor": (1.5, 2, 0.7), "mode": "trilinear"}),
    "trilinear_align_corners": (3, {"size": (7, 3, 8), "mode": "trilinear", "align_corners": True}),
    "bicubic_x2": (2, {"scale_factor": 2, "mode": "bicubic"}),
    "bicubic_down": (2, {"scale_factor": 0.6, "mode": "bicubic"}),
    "bicubic_align_corners": (2, {"size": (9, 4), "mode": "bicubic", "align_corners": True}),
    "bilinear_antialias_down": (2, {"scale_factor": 0.3, "mode": "bilinear", "antialias": True}),
    "bilinear_antialias_up": (2, {"size": (9, 4), "mode": "bilinear", "antialias": True}),
    "bicubic_antialias_down": (2, {"scale_factor": (0.4, 0.5), "mode": "bicubic", "antialias": True}),
    "bicubic_antialias_align_corners": (
        2,
        {"size": (3, 9), "mode": "bicubic", "antialias": True, "align_corners": True},
    ),
    "area_3d": (3, {"size": (3, 2, 4), "mode": "area"}),
}
INTERPOLATE_POSITIONS = {1: (9,), 2: (5, 7), 3: (4, 5, 6)}


@pytest.mark.parametrize("case", INTERPOLATE_CASES)
def test_interpolate_and_gradient_match_cpu(case):
    dims, kwargs = INTERPOLATE_CASES[case]
    check_gradients(lambda x: F.interpolate(x, **kwargs), [randn(2, 3, *INTERPOLATE_POSITIONS[dims])])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "trilinear", "bilinear_antialias"])
def test_interpolate_dtypes_and_channels_last_match_cpu(mode, dtype):
    """Every float dtype (the antialiased modes: float32 and float64, as CPU), from a channels_last input: the
    output is channels_last exactly when the CPU's is."""
    antialias = mode.endswith("_antialias")
    if antialias and dtype not in (torch.float32, torch.float64):
        pytest.skip("CPU's antialiased interpolation takes float32 and float64")
    dims = 3 if mode == "trilinear" else 2
    x = randn(2, 3, *INTERPOLATE_POSITIONS[dims], dtype=dtype)
    x = x.contiguous(memory_format=torch.channels_last if dims == 2 else torch.channels_last_3d)
    kwargs = {"scale_factor": 1.6, "mode": mode.removesuffix("_antialias"), "antialias": antialias}
    # CPU rounds 16-bit interpolation weights to the dtype; foo keeps them in float32.
    actual, expected = check_forward(lambda t: F.interpolate(t, **kwargs), [x], LOW_PRECISION)
    assert_channels_last_like_cpu(actual, expected)


# ---- grid_sample -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("align_corners", [False, True], ids=["edges", "align_corners"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_and_gradients_match_cpu(mode, padding_mode, align_corners):
    """Output, input gradient and grid gradient, with grid points inside and outside [-1, 1]."""
    grid = randn(2, 5, 4, 2, seed=1) * 0.8
    check_gradients(
        lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
        [randn(2, 3, 6, 7), grid],
    )


@pytest.mark.parametrize("align_corners", [False, True], ids=["edges", "align_corners"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_3d_grid_sample_and_gradients_match_cpu(mode, padding_mode, align_corners):
    grid = randn(2, 3, 5, 4, 3, seed=1) * 0.8
    check_gradients(
        lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
        [randn(2, 3, 4, 6, 5), grid],
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_grid_sample_of_strided_inputs_and_dtypes_matches_cpu(dtype):
    """A channels_last input and a transposed grid; 16-bit dtypes (which CPU lacks) against float32 on the CPU."""
    x = randn(2, 3, 6, 7).contiguous(memory_format=torch.channels_last)
    grid = randn(2, 4, 5, 2, seed=1).transpose(1, 2) * 0.8
    expected = F.grid_sample(x, grid, align_corners=False)
    actual = F.grid_sample(on(FOO, x).to(dtype), on(FOO, grid).to(dtype), align_corners=False)
    assert actual.dtype == dtype
    torch.testing.assert_close(actual.cpu().float(), expected, **LOW_PRECISION.get(dtype, {"rtol": 1e-5, "atol": 1e-5}))


def test_affine_grid_and_grid_sample_train_a_spatial_transformer_like_cpu():
    """F.affine_grid + F.grid_sample (a spatial transformer's sampler), gradients to the image and the affine
    parameters."""
    theta = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]], [[1.0, 0.1, 0.0], [0.0, 0.8, 0.3]]])

    def sample(x, t):
        return F.grid_sample(x, F.affine_grid(t, [2, 3, 5, 6], align_corners=False), align_corners=False)

    check_gradients(sample, [randn(2, 3, 6, 7), theta])
