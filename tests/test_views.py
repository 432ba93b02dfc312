"""Views share storage with their base; resize_, set_, clone and contiguous behave as on the CPU."""

import pytest
import torch
from conftest import DTYPES, FOO, LAYOUTS, assert_exact, dtype_id, make_tensor

VIEWS = {
    "row": lambda t: t[1],
    "column": lambda t: t[:, 2],
    "transposed_row": lambda t: t.t()[0],
    "strided_slice": lambda t: t[1::2, ::3],
    "unfold_window": lambda t: t.view(-1).unfold(0, 4, 5)[2],
    "as_strided": lambda t: t.as_strided((2, 3), (7, 2), 3),
    "permuted_unsqueezed": lambda t: t.view(2, 3, 6).permute(2, 0, 1).unsqueeze(1)[1:3],
    "view_reshape": lambda t: t.view(3, 12)[1].reshape(3, 4)[:, 1],
}


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_writes_through_a_view_reach_the_base(view):
    base = make_tensor((6, 6), torch.float32)
    expected = base.clone()
    view(expected).fill_(7)

    on_foo = base.to(FOO)
    v = view(on_foo)
    v.fill_(7)
    assert v.untyped_storage().data_ptr() == on_foo.untyped_storage().data_ptr()
    assert_exact(on_foo.cpu(), expected)


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_views_read_like_cpu_views(view):
    base = make_tensor((6, 6), torch.int32)
    v = view(base.to(FOO))
    assert v.shape == view(base).shape and v.stride() == view(base).stride()
    assert v.storage_offset() == view(base).storage_offset()
    assert_exact(v.cpu(), view(base))


def test_data_ptr_arithmetic_matches_strides():
    a = torch.empty(5, 7, dtype=torch.float64, device=FOO)
    assert a[1].data_ptr() == a.data_ptr() + a.stride(0) * a.element_size()
    assert a[2, 3:].data_ptr() == a.data_ptr() + (2 * 7 + 3) * a.element_size()
    assert a.t()[4].data_ptr() == a.data_ptr() + 4 * a.element_size()


def test_view_shares_writes_in_both_directions():
    a = torch.zeros(4, 4, device=FOO)
    v = a.t()
    a[1].fill_(3)
    v[0].fill_(5)
    expected = torch.zeros(4, 4)
    expected[1] = 3
    expected[:, 0] = 5
    assert_exact(a.cpu(), expected)
    assert_exact(v.cpu(), expected.t())


@pytest.mark.parametrize(
    "dtypes",
    [
        (torch.float32, torch.int32),
        (torch.float32, torch.uint8),
        (torch.int16, torch.bfloat16),
        (torch.uint8, torch.int64),
    ],
    ids=lambda p: f"{dtype_id(p[0])}_as_{dtype_id(p[1])}",
)
def test_view_as_other_dtype_reinterprets_bits_like_cpu(dtypes):
    src_dtype, view_dtype = dtypes
    base = make_tensor((3, 16), src_dtype)
    v = base.to(FOO).view(view_dtype)
    assert v.shape == base.view(view_dtype).shape
    assert_exact(v.cpu(), base.view(view_dtype))


def test_write_through_dtype_view_changes_the_bits_of_the_base():
    a = torch.zeros(4, device=FOO)
    a.view(torch.int32)[2].fill_(0x3F800000)  # the bits of 1.0f
    assert_exact(a.cpu(), torch.tensor([0.0, 0.0, 1.0, 0.0]))


def test_unfold_matches_cpu_and_shares_storage():
    base = make_tensor((20,), torch.float32)
    on_foo = base.to(FOO)
    windows = on_foo.unfold(0, 5, 3)
    assert windows.stride() == base.unfold(0, 5, 3).stride()
    assert_exact(windows.cpu(), base.unfold(0, 5, 3))
    windows[1].zero_()
    expected = base.clone()
    expected[3:8] = 0
    assert_exact(on_foo.cpu(), expected)


def test_as_strided_with_offset_matches_cpu():
    base = make_tensor((30,), torch.int64)
    v = base.to(FOO).as_strided((3, 4), (1, 5), storage_offset=4)
    assert_exact(v.cpu(), base.as_strided((3, 4), (1, 5), storage_offset=4))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int8, torch.float64], ids=dtype_id)
def test_resize_growing_keeps_old_content(dtype):
    base = make_tensor((6,), dtype)
    a = base.to(FOO)
    a.resize_(3, 500)  # past the first block's size, so the storage is reallocated
    assert a.shape == (3, 500)
    assert a.untyped_storage().nbytes() >= 1500 * a.element_size()
    assert_exact(a.view(-1)[:6].cpu(), base)


def test_resize_shrinking_keeps_storage_and_prefix():
    base = make_tensor((12,), torch.int32)
    a = base.to(FOO)
    ptr = a.data_ptr()
    a.resize_(2, 3)
    assert a.data_ptr() == ptr
    assert_exact(a.cpu(), base[:6].view(2, 3))


def test_resize_of_a_view_with_offset_grows_storage_like_cpu():
    cpu = torch.arange(8, dtype=torch.int32)[4:].resize_(10)
    v = torch.arange(8, dtype=torch.int32, device=FOO)[4:]
    v.resize_(10)
    assert v.storage_offset() == 4
    assert v.untyped_storage().nbytes() == cpu.untyped_storage().nbytes()
    assert_exact(v[:4].cpu(), cpu[:4])


def test_set_storage_shares_memory():
    a = make_tensor((3, 4), torch.float32).to(FOO)
    t = torch.empty(0, device=FOO)
    t.set_(a.untyped_storage())
    assert t.data_ptr() == a.data_ptr() and t.shape == (12,)
    t[5].fill_(-1)
    assert a[1, 1].item() == -1


def test_set_storage_with_offset_size_and_stride_matches_cpu():
    base = make_tensor((20,), torch.int16)
    cpu = torch.empty(0, dtype=torch.int16).set_(base.untyped_storage(), 2, (3, 4), (1, 3))
    on_foo = base.to(FOO)
    t = torch.empty(0, dtype=torch.int16, device=FOO).set_(on_foo.untyped_storage(), 2, (3, 4), (1, 3))
    assert t.data_ptr() == on_foo.data_ptr() + 2 * 2
    assert_exact(t.cpu(), cpu)


def test_set_tensor_shares_memory_and_layout():
    a = make_tensor((4, 6), torch.float32).to(FOO)[:, 1::2]
    t = torch.empty(0, device=FOO).set_(a)
    assert t.data_ptr() == a.data_ptr() and t.stride() == a.stride() and t.shape == a.shape
    t.fill_(2)
    assert_exact(a.cpu(), torch.full((4, 3), 2.0))


def test_set_with_no_source_gives_an_empty_tensor():
    t = torch.ones(5, device=FOO).set_()
    assert t.shape == (0,) and t.device == FOO


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_clone_is_a_separate_copy_with_the_same_values(dtype):
    base = make_tensor((5, 4), dtype)
    a = base.to(FOO)
    c = a.clone()
    assert c.data_ptr() != a.data_ptr()
    assert_exact(c.cpu(), base)
    a.zero_()
    assert_exact(c.cpu(), base)


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded", "rank10", "zero_dim", "empty"])
def test_clone_preserves_layout_like_cpu(layout):
    base_shape, view = LAYOUTS[layout]
    base = make_tensor(base_shape, torch.float32)
    expected = view(base).clone()
    c = view(base.to(FOO)).clone()
    assert c.stride() == expected.stride()
    assert_exact(c.cpu(), expected)


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded", "rank10"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.bool, torch.int64], ids=dtype_id)
def test_contiguous_matches_cpu(layout, dtype):
    base_shape, view = LAYOUTS[layout]
    base = make_tensor(base_shape, dtype)
    c = view(base.to(FOO)).contiguous()
    assert c.is_contiguous()
    assert_exact(c.cpu(), view(base).contiguous())


def test_contiguous_of_contiguous_is_the_same_tensor():
    a = torch.ones(3, 4, device=FOO)
    assert a.contiguous() is a
