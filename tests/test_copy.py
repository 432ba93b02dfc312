"""copy_ between the CPU and foo and within foo: every dtype pair, every layout, non-contiguous
destinations, special float values, and non_blocking transfers, all checked against the CPU."""

import pytest
import torch
from conftest import (
    CONVERTING_PAIRS,
    DTYPES,
    FLOAT_DTYPES,
    FOO,
    LAYOUTS,
    assert_exact,
    dtype_id,
    make_convertible,
    make_tensor,
    pair_id,
)

DIRECTIONS = ["cpu_to_foo", "foo_to_cpu", "foo_to_foo"]
# One dtype per element size: same-dtype copies only move bits.
DTYPES_BY_SIZE = [torch.uint8, torch.float16, torch.float32, torch.int64]
LAYOUT_PAIRS = [(d, d) for d in DTYPES_BY_SIZE] + CONVERTING_PAIRS


def copy_in_direction(src_cpu: torch.Tensor, dst_dtype: torch.dtype, direction: str, view=lambda t: t) -> torch.Tensor:
    """Copies view(src) into a new dense tensor of dst_dtype the way `direction` says; returns it on the CPU."""
    src = view(src_cpu if direction == "cpu_to_foo" else src_cpu.to(FOO))
    dst_device = "cpu" if direction == "foo_to_cpu" else FOO
    dst = torch.empty(src.shape, dtype=dst_dtype, device=dst_device)
    assert dst.copy_(src) is dst
    return dst.cpu()


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("dst_dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("src_dtype", DTYPES, ids=dtype_id)
def test_conversion_matches_cpu(src_dtype, dst_dtype, direction):
    src = make_convertible((5, 7), src_dtype)
    assert_exact(copy_in_direction(src, dst_dtype, direction), src.to(dst_dtype))


SPECIAL_FLOATS = [
    0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -2.5,
    65504.0, 65520.0, 1e5,  # largest half, first value rounding to inf in half, overflow in half
    3.0e38, 3.4e38, 1e300,  # near float32's max, past it (float64 source only)
    6e-5, 1e-8, 1e-40, 1e-310,  # subnormal half, underflow in half, subnormal float32, subnormal float64
    1.00390625, 1.01171875, 1.0009765625,  # ties for bfloat16 rounding (to even down, to even up), for half
]  # fmt: skip


@pytest.mark.parametrize("dst_dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("src_dtype", FLOAT_DTYPES, ids=dtype_id)
def test_float_special_values_convert_like_cpu(src_dtype, dst_dtype):
    src = torch.tensor(SPECIAL_FLOATS, dtype=torch.float64).to(src_dtype)
    assert_exact(src.to(FOO).to(dst_dtype).cpu(), src.to(dst_dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_round_trips_keep_every_bit(dtype):
    # Random bytes reinterpreted: NaN payloads and subnormals must survive the same-dtype paths.
    g = torch.Generator().manual_seed(1)
    if dtype == torch.bool:
        src = torch.randint(0, 2, (64, 8), generator=g).bool()
    else:
        nbytes = 64 * 8 * torch.empty((), dtype=dtype).element_size()
        src = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, generator=g).view(dtype).view(64, 8)
    on_foo = src.to(FOO)
    for copy in (on_foo.cpu(), on_foo.clone().cpu(), on_foo.t().contiguous().t().cpu()):
        assert torch.equal(copy.contiguous().view(torch.uint8), src.view(torch.uint8))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("pair", LAYOUT_PAIRS, ids=pair_id)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_copy_from_every_layout(layout, pair, direction):
    src_dtype, dst_dtype = pair
    base_shape, view = LAYOUTS[layout]
    base = make_convertible(base_shape, src_dtype)
    out = copy_in_direction(base, dst_dtype, direction, view)
    assert_exact(out, view(base).to(dst_dtype))


@pytest.mark.parametrize("src_device", ["cpu", "foo"])
@pytest.mark.parametrize("pair", [(torch.float32, torch.float32), *CONVERTING_PAIRS[:3]], ids=pair_id)
@pytest.mark.parametrize("layout", ["transposed", "sliced", "rank10", "zero_dim"])
def test_copy_into_noncontiguous_destination(layout, pair, src_device):
    src_dtype, dst_dtype = pair
    base_shape, view = LAYOUTS[layout]
    dst_base = make_tensor(base_shape, dst_dtype, seed=2)
    src = make_convertible(view(dst_base).shape, src_dtype, seed=3)
    expected = dst_base.clone()
    view(expected).copy_(src)

    dst_base_foo = dst_base.to(FOO)
    view(dst_base_foo).copy_(src.to(src_device))
    # The whole base is compared: elements outside the view must be left alone.
    assert_exact(dst_base_foo.cpu(), expected)


@pytest.mark.parametrize("pair", [(torch.int32, torch.int32), (torch.int32, torch.float16)], ids=pair_id)
def test_copy_between_noncontiguous_foo_tensors(pair):
    src_dtype, dst_dtype = pair
    src_base = make_convertible((9, 12), src_dtype)
    dst_base = make_tensor((12, 10), dst_dtype)
    expected = dst_base.clone()
    expected[::2, 1::2].t().copy_(src_base[::2, ::2])

    dst_base_foo = dst_base.to(FOO)
    dst_base_foo[::2, 1::2].t().copy_(src_base.to(FOO)[::2, ::2])
    assert_exact(dst_base_foo.cpu(), expected)


@pytest.mark.parametrize("src_device", ["cpu", "foo"])
def test_copy_broadcasts_source_to_destination(src_device):
    src = make_convertible((1, 5), torch.int16)
    dst = torch.zeros(4, 3, 5, dtype=torch.float32, device=FOO)
    dst.copy_(src.to(src_device))
    assert_exact(dst.cpu(), src.to(torch.float32).expand(4, 3, 5).contiguous())


@pytest.mark.parametrize("view", [lambda t: t, lambda t: t[:, ::3]], ids=["contiguous", "strided"])
def test_large_conversion_uses_every_work_item(view):
    # More elements than one launch has work-items, so each work-item handles several.
    src = make_convertible((700, 900), torch.float32)
    out = view(src.to(FOO)).to(torch.float16)
    assert_exact(out.cpu(), view(src).to(torch.float16))


# Transposes (copy_transposed's tiles of 16 x 16): whole and partial tiles, a batch of them, NCHW <-> NHWC.
TRANSPOSES = {
    "2d": ((37, 53), (1, 0)),
    "batched": ((3, 40, 17), (0, 2, 1)),
    "nchw_to_nhwc": ((2, 6, 20, 18), (0, 2, 3, 1)),
    "nhwc_to_nchw": ((2, 20, 18, 19), (0, 3, 1, 2)),
    "reversed": ((5, 33, 3, 19), (3, 2, 1, 0)),
}


@pytest.mark.parametrize(
    "pair", LAYOUT_PAIRS + [(torch.complex64, torch.complex64), (torch.bool, torch.bool)], ids=pair_id
)
@pytest.mark.parametrize("case", TRANSPOSES)
def test_transposing_copies_match_cpu(case, pair):
    shape, order = TRANSPOSES[case]
    src = make_convertible(shape, pair[0])
    assert_exact(
        copy_in_direction(src, pair[1], "foo_to_foo", lambda t: t.permute(order)), src.permute(order).to(pair[1])
    )


# flip: one copy walking the destination backwards along the flipped dims (the innermost too), of
# contiguous and transposed inputs; the result is laid out like the input, as on the CPU.
FLIPS = {
    "last": ((5, 33), (-1,)),
    "first": ((40, 7), (0,)),
    "both": ((17, 19), (0, 1)),
    "middle_of_4d": ((2, 3, 20, 5), (2,)),
    "every_dim_of_4d": ((2, 3, 20, 5), (0, 1, 2, 3)),
    "dims_of_size_1": ((1, 9, 1), (0, 2)),
}


@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
@pytest.mark.parametrize("dtype", [*DTYPES_BY_SIZE, torch.complex64, torch.bool], ids=dtype_id)
@pytest.mark.parametrize("case", FLIPS)
def test_flip_matches_cpu(case, dtype, transposed):
    shape, dims = FLIPS[case]
    src = make_convertible(shape, dtype)
    view = (lambda t: t.mT) if transposed else (lambda t: t)
    expected = view(src).flip(dims)
    actual = view(src.to(FOO)).flip(dims)
    assert actual.stride() == expected.stride()
    assert_exact(actual.cpu(), expected)


def test_copy_to_itself_keeps_values():
    src = make_tensor((6, 7), torch.float32)
    on_foo = src.to(FOO)
    on_foo.copy_(on_foo)
    assert_exact(on_foo.cpu(), src)


def test_copy_between_partially_overlapping_views_is_rejected_like_cpu():
    on_foo = torch.arange(10.0, device=FOO)
    with pytest.raises(RuntimeError, match="single memory location"):
        on_foo[1:].copy_(on_foo[:-1])
    assert_exact(on_foo.cpu(), torch.arange(10.0))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64], ids=dtype_id)
def test_non_blocking_transfers_arrive_after_synchronize(dtype):
    src = make_tensor((64, 33), dtype)
    on_foo = src.to(FOO, non_blocking=True)
    converted = on_foo.t().to(torch.float64, non_blocking=True)
    back = torch.empty(33, 64, dtype=torch.float64)
    back.copy_(converted, non_blocking=True)
    torch.foo.synchronize()
    assert_exact(on_foo.cpu(), src)
    assert_exact(back, src.t().to(torch.float64))


# ---- dtypes foo stores but computes nothing in ----------------------------------------------------------

STORAGE_ONLY_DTYPES = [
    torch.uint16,
    torch.uint32,
    torch.uint64,
    torch.float8_e4m3fn,
    torch.float8_e5m2,
    torch.float8_e4m3fnuz,
    torch.float8_e5m2fnuz,
]


def assert_same_bits(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """The CPU has no comparison for float8: compare the bytes."""
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert torch.equal(actual.contiguous().view(torch.uint8), expected.contiguous().view(torch.uint8))


def storage_only_values(dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_floating_point:
        return (torch.randn(6, 5, generator=torch.Generator().manual_seed(0)) * 4).to(dtype)
    return torch.randint(0, 2**15, (6, 5), generator=torch.Generator().manual_seed(0)).to(dtype)


@pytest.mark.parametrize("dtype", STORAGE_ONLY_DTYPES, ids=dtype_id)
def test_storage_only_dtypes_are_stored_copied_and_viewed(dtype):
    x = storage_only_values(dtype)
    on_foo = x.to(FOO)
    assert on_foo.dtype == dtype
    assert_same_bits(on_foo.cpu(), x)
    assert_same_bits(on_foo.t().contiguous().cpu(), x.t().contiguous())  # a strided copy on the device
    assert_same_bits(on_foo[::2, 1:].clone().cpu(), x[::2, 1:])
    bits = torch.uint8 if x.element_size() == 1 else torch.int16 if x.element_size() == 2 else torch.int32
    bits = torch.int64 if x.element_size() == 8 else bits
    assert_exact(on_foo.view(bits).cpu(), x.view(bits))
    assert_same_bits(on_foo.view(bits).view(dtype).cpu(), x)
    assert_same_bits(torch.zeros(3, dtype=dtype, device=FOO).cpu(), torch.zeros(3, dtype=dtype))


@pytest.mark.parametrize("dtype", STORAGE_ONLY_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("other", [torch.float32, torch.int64, torch.bfloat16], ids=dtype_id)
def test_storage_only_dtypes_convert_like_cpu(dtype, other):
    x = storage_only_values(dtype)
    assert_exact(x.to(FOO).to(other).cpu(), x.to(other))
    y = x.to(other)
    assert_same_bits(y.to(FOO).to(dtype).cpu(), y.to(dtype))
