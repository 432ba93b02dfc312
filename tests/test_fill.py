"""fill_ and zero_ on every dtype and layout, fill_ from 0-dim tensors, item(), tolist() and printing."""

import math

import pytest
import torch
from conftest import DTYPES, FOO, LAYOUTS, WRITABLE_LAYOUTS, assert_exact, dtype_id, make_tensor

FILL_VALUES = {
    torch.float32: [2.5, -0.0, float("inf"), float("nan"), 1e-40],
    torch.float64: [-1.25, 1e300, float("-inf")],
    torch.float16: [65504.0, -3.0, float("nan")],
    torch.bfloat16: [3.0e38, 0.1],
    torch.int8: [-128, 127],
    torch.int16: [-30000],
    torch.int32: [2**31 - 1, -7],
    torch.int64: [2**62 + 3, -(2**63)],
    torch.uint8: [200],
    torch.bool: [True, False],
}
FILL_CASES = [(dtype, value) for dtype, values in FILL_VALUES.items() for value in values]


def fill_case_id(case) -> str:
    return f"{dtype_id(case[0])}={case[1]}"


@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
@pytest.mark.parametrize("case", FILL_CASES, ids=fill_case_id)
def test_fill_matches_cpu(case, layout):
    dtype, value = case
    base_shape, view = LAYOUTS[layout]
    base = make_tensor(base_shape, dtype)
    expected = base.clone()
    view(expected).fill_(value)

    on_foo = base.to(FOO)
    assert view(on_foo).fill_(value).device == FOO
    # The whole base is compared: elements outside the view must be left alone.
    assert_exact(on_foo.cpu(), expected)


@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_zero_matches_cpu(dtype, layout):
    base_shape, view = LAYOUTS[layout]
    base = make_tensor(base_shape, dtype)
    expected = base.clone()
    view(expected).zero_()

    on_foo = base.to(FOO)
    view(on_foo).zero_()
    assert_exact(on_foo.cpu(), expected)


def test_fill_out_of_range_value_raises_like_cpu():
    with pytest.raises(RuntimeError, match="out of bounds|overflow"):
        torch.zeros(3, dtype=torch.int8, device=FOO).fill_(300)


@pytest.mark.parametrize("value_device", ["cpu", "foo"])
@pytest.mark.parametrize(
    "dtypes",
    [(torch.float32, torch.float32), (torch.float64, torch.int16), (torch.int64, torch.bfloat16)],
    ids=lambda p: f"{dtype_id(p[0])}_into_{dtype_id(p[1])}",
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_fill_with_zero_dim_tensor_matches_cpu(layout, dtypes, value_device):
    value_dtype, dtype = dtypes
    base_shape, view = LAYOUTS[layout]
    base = make_tensor(base_shape, dtype)
    value = torch.tensor(-37.75, dtype=torch.float64).to(value_dtype)
    expected = base.clone()
    view(expected).fill_(value)

    on_foo = base.to(FOO)
    view(on_foo).fill_(value.to(value_device))
    assert_exact(on_foo.cpu(), expected)


def test_fill_with_a_zero_dim_foo_tensor_keeps_the_value_tensor():
    value = torch.tensor(4.0, device=FOO)
    a = torch.zeros(5, device=FOO).fill_(value)
    value.fill_(9)
    assert_exact(a.cpu(), torch.full((5,), 4.0))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_item_matches_cpu(dtype):
    base = make_tensor((7,), dtype)
    on_foo = base.to(FOO)
    for index in (0, 3, 6):
        got, expected = on_foo[index].item(), base[index].item()
        assert type(got) is type(expected) and got == expected
    assert on_foo[2:3].item() == base[2].item()  # one element, not 0-dim, at an offset


def test_item_of_nan_and_negative_zero():
    on_foo = torch.tensor([float("nan"), -0.0], device=FOO)
    assert math.isnan(on_foo[0].item())
    assert math.copysign(1.0, on_foo[1].item()) == -1.0


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "expanded", "zero_dim", "empty"])
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_tolist_matches_cpu(dtype, layout):
    base_shape, view = LAYOUTS[layout]
    base = make_tensor(base_shape, dtype)
    assert view(base.to(FOO)).tolist() == view(base).tolist()


def without_device(text: str) -> str:
    """`text` with whitespace normalised (the device may move the dtype to a new line) and the device removed."""
    return " ".join(text.split()).replace(", device='foo:0'", "")


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_repr_shows_device_and_values(dtype):
    base = make_tensor((2, 3), dtype)
    text = repr(base.to(FOO))
    assert "device='foo:0'" in text
    assert without_device(text) == without_device(repr(base))


def test_print_of_a_large_tensor_summarises_like_cpu(capsys):
    base = make_tensor((50, 100), torch.float32)
    print(base.to(FOO))
    printed = capsys.readouterr().out
    assert "..." in printed and "device='foo:0'" in printed
    assert without_device(printed) == without_device(str(base))
