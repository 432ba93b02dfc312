"""Two foo devices: tensors and kernels on foo:1, copies between foo:0 and foo:1, per-device memory
statistics, device selection, and streams and events on foo:1."""

import pytest
import torch
from conftest import CONVERTING_PAIRS, FOO, LAYOUTS, assert_exact, make_convertible, make_tensor, pair_id

pytestmark = pytest.mark.two_devices

FOO1 = torch.device("foo", 1)


def test_tensors_live_on_foo1():
    base = make_tensor((4, 5), torch.int16)
    t = base.to(FOO1)
    assert t.device == FOO1 and t.get_device() == 1
    assert_exact(t.cpu(), base)
    assert torch.arange(3, device="foo:1").device == FOO1


@pytest.mark.parametrize("direction", ["foo0_to_foo1", "foo1_to_foo0"])
@pytest.mark.parametrize("pair", [(torch.float32, torch.float32), *CONVERTING_PAIRS[:3]], ids=pair_id)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "expanded", "zero_dim", "empty", "rank10"])
def test_copy_across_devices_matches_cpu(layout, pair, direction):
    src_dtype, dst_dtype = pair
    src_device, dst_device = (FOO, FOO1) if direction == "foo0_to_foo1" else (FOO1, FOO)
    base_shape, view = LAYOUTS[layout]
    base = make_convertible(base_shape, src_dtype)
    src = view(base.to(src_device))
    dst = torch.empty(src.shape, dtype=dst_dtype, device=dst_device)
    dst.copy_(src)
    assert dst.device == dst_device
    assert_exact(dst.cpu(), view(base).to(dst_dtype))


@pytest.mark.parametrize("pair", [(torch.int64, torch.int64), (torch.float64, torch.bfloat16)], ids=pair_id)
def test_copy_across_devices_into_a_noncontiguous_destination(pair):
    src_dtype, dst_dtype = pair
    src_base = make_convertible((10, 12), src_dtype)
    dst_base = make_tensor((12, 10), dst_dtype)
    expected = dst_base.clone()
    expected[::2, 1::2].t().copy_(src_base[::2, ::2])

    dst_on_1 = dst_base.to(FOO1)
    dst_on_1[::2, 1::2].t().copy_(src_base.to(FOO)[::2, ::2])
    assert_exact(dst_on_1.cpu(), expected)


def test_to_another_device_with_dtype():
    base = make_convertible((6, 7), torch.float32)
    moved = base.to(FOO).t().to(FOO1, torch.int8)
    assert moved.device == FOO1 and moved.dtype == torch.int8
    assert_exact(moved.cpu(), base.t().to(torch.int8))


def test_kernels_run_on_foo1_whatever_the_current_device():
    base = make_tensor((5, 8), torch.float32)
    for current in (0, 1):
        with torch.foo.device(current):
            t = base.to(FOO1)
            t[:, ::2].fill_(2)
            converted = t.t().to(torch.float16)
            cloned = t.clone()
        expected = base.clone()
        expected[:, ::2] = 2
        assert converted.device == FOO1 and cloned.device == FOO1
        assert_exact(converted.cpu(), expected.t().to(torch.float16))
        assert_exact(cloned.cpu(), expected)


def test_fallback_op_keeps_the_device():
    a, b = make_tensor((3, 4), torch.float32, seed=1), make_tensor((4, 2), torch.float32, seed=2)
    got = torch.mm(a.to(FOO1), b.to(FOO1))
    assert got.device == FOO1
    torch.testing.assert_close(got.cpu(), a @ b)


def test_mixing_foo0_and_foo1_is_rejected():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.ones(3, device=FOO) + torch.ones(3, device=FOO1)


def test_memory_statistics_are_per_device():
    before = [torch.foo.memory_allocated(0), torch.foo.memory_allocated(1)]
    t = torch.empty(1000, dtype=torch.uint8, device=FOO1)
    assert torch.foo.memory_allocated(1) == before[1] + 1024
    assert torch.foo.memory_allocated(0) == before[0]
    assert torch.foo.memory_stats(1)["allocated_bytes.all.current"] == before[1] + 1024
    assert torch.accelerator.memory_allocated(1) == before[1] + 1024
    del t
    assert torch.foo.memory_allocated(1) == before[1]


def test_device_context_manager_switches_and_restores():
    assert torch.foo.current_device() == 0
    with torch.foo.device(1):
        assert torch.foo.current_device() == 1
        assert torch.empty(1, device="foo").device == FOO1
        with torch.foo.device("foo:0"):
            assert torch.foo.current_device() == 0
        assert torch.foo.current_device() == 1
    assert torch.foo.current_device() == 0


def test_device_context_manager_restores_after_an_exception():
    with pytest.raises(KeyError), torch.foo.device(1):
        raise KeyError
    assert torch.foo.current_device() == 0


def test_device_of_a_tensor_selects_its_device():
    with torch.foo.device_of(torch.ones(1, device=FOO1)):
        assert torch.foo.current_device() == 1
    assert torch.foo.current_device() == 0


def test_set_device_changes_the_default_index():
    torch.foo.set_device(1)  # the autouse fixture of conftest.py sets foo:0 back
    assert torch.foo.current_device() == 1
    assert torch.accelerator.current_device_index() == 1
    assert torch.ones(1, device="foo").device == FOO1
    assert torch.ones(1).foo().device == FOO1
    assert torch.nn.Linear(2, 2).foo().weight.device == FOO1


def test_module_foo_with_an_index():
    model = torch.nn.Linear(3, 2).foo(1)
    assert all(p.device == FOO1 for p in model.parameters())


def test_streams_on_foo1_are_current_only_inside_their_context():
    s1 = torch.foo.Stream(1)
    assert s1.device == FOO1
    stream0 = torch.foo.current_stream(0)
    previous1 = torch.foo.current_stream(1)
    with torch.foo.stream(s1):
        assert torch.foo.current_stream(1) == s1
        assert torch.foo.current_stream(0) == stream0
    assert torch.foo.current_stream(1) == previous1
    assert torch.foo.current_stream(0) == stream0


def test_stream_context_on_foo1_restores_the_current_device():
    assert torch.foo.current_device() == 0
    with torch.foo.stream(torch.foo.Stream(1)):
        pass
    assert torch.foo.current_device() == 0


def test_work_on_a_foo1_stream_finishes_with_synchronize_of_foo1():
    base = make_tensor((400, 300), torch.float32)
    s1 = torch.foo.Stream(1)
    with torch.foo.stream(s1):
        out = base.to(FOO1).t().to(torch.float16)
    torch.foo.synchronize(1)
    assert s1.query()
    assert_exact(out.cpu(), base.t().to(torch.float16))


def test_events_on_foo1():
    s1 = torch.foo.Stream(1)
    with torch.foo.device(1):
        start, end = torch.foo.Event(enable_timing=True), torch.foo.Event(enable_timing=True)
    start.record(s1)
    with torch.foo.stream(s1):
        torch.empty(100_000, device=FOO1).fill_(3)
    end.record(s1)
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) >= 0


def test_event_recorded_on_foo1_cannot_be_recorded_on_foo0():
    # As on CUDA, an event belongs to the device of its first record.
    event = torch.foo.Event()
    event.record(torch.foo.Stream(1))
    with pytest.raises(RuntimeError, match="does not match"):
        event.record(torch.foo.Stream(0))


@pytest.mark.two_devices
def test_an_out_tensor_on_the_other_device_raises_the_same_device_error():
    x = torch.ones(3, device="foo:0")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.nonzero(x, out=torch.empty(0, dtype=torch.long, device="foo:1"))
