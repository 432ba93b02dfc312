"""torch.save/torch.load of foo tensors and state dicts, with and without map_location."""

import io

import pytest
import torch
from conftest import FOO, assert_exact, make_tensor


def save_and_load(obj, **load_kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_kwargs)


@pytest.mark.parametrize(
    "map_location, expected_device",
    [
        (None, "foo:0"),
        ("cpu", "cpu"),
        ("foo:0", "foo:0"),
        pytest.param("foo:1", "foo:1", marks=pytest.mark.two_devices),
        pytest.param({"foo:0": "foo:1"}, "foo:1", marks=pytest.mark.two_devices),
    ],
    ids=["no_map", "cpu", "foo0", "foo1", "dict_foo0_to_foo1"],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.bool], ids=str)
def test_tensor_round_trip(dtype, map_location, expected_device):
    base = make_tensor((3, 5), dtype)
    loaded = save_and_load(base.to(FOO), map_location=map_location)
    assert loaded.device == torch.device(expected_device)
    assert_exact(loaded.cpu(), base)


def test_cpu_tensor_loads_onto_foo_with_map_location():
    base = make_tensor((4,), torch.float16)
    loaded = save_and_load(base, map_location="foo")
    assert loaded.device == FOO
    assert_exact(loaded.cpu(), base)


def test_views_still_share_storage_after_loading():
    base = make_tensor((4, 6), torch.float32).to(FOO)
    a, view = save_and_load([base, base[1:, ::2]])
    assert view.device == FOO and view.stride() == (6, 2) and view.storage_offset() == 6
    assert view.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    view.fill_(-1)
    assert_exact(a.cpu()[1:, ::2], torch.full((3, 3), -1.0))


@pytest.mark.parametrize(
    "map_location",
    [None, "cpu", pytest.param("foo:1", marks=pytest.mark.two_devices)],
    ids=["no_map", "cpu", "foo1"],
)
def test_state_dict_of_a_foo_module_round_trips(map_location):
    model = torch.nn.Linear(4, 3)
    expected = {k: v.detach().clone() for k, v in model.state_dict().items()}
    model.foo()
    loaded = save_and_load(model.state_dict(), map_location=map_location)
    assert loaded.keys() == expected.keys()
    device = torch.device(map_location or "foo:0")
    for name, tensor in loaded.items():
        assert tensor.device == device
        assert_exact(tensor.cpu(), expected[name])

    fresh = torch.nn.Linear(4, 3).foo()
    fresh.load_state_dict(loaded)
    assert_exact(fresh.weight.detach().cpu(), expected["weight"])


@pytest.mark.two_devices
def test_tensor_saved_from_foo1_loads_back_onto_foo1():
    base = make_tensor((5,), torch.int32)
    loaded = save_and_load(base.to("foo:1"))
    assert loaded.device == torch.device("foo:1")
    assert_exact(loaded.cpu(), base)
