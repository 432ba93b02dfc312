"""Streams and events on foo: the current stream and its context manager, work queued on other
streams, cross-stream waits, and event record/query/synchronize/elapsed_time."""

import pytest
import torch
from conftest import FOO, assert_exact, make_tensor


def test_default_stream_is_current_and_new_streams_differ():
    default = torch.foo.default_stream()
    assert torch.foo.current_stream() == default
    assert torch.accelerator.current_stream() == default
    s = torch.foo.Stream()
    assert s.device == FOO and s != default


def test_stream_context_sets_and_restores_the_current_stream():
    s = torch.foo.Stream()
    previous = torch.foo.current_stream()
    with torch.foo.stream(s):
        assert torch.foo.current_stream() == s
        assert torch.accelerator.current_stream(FOO) == s
    assert torch.foo.current_stream() == previous


def test_stream_context_restores_the_stream_after_an_exception():
    s = torch.foo.Stream()
    previous = torch.foo.current_stream()
    with pytest.raises(KeyError), torch.foo.stream(s):
        raise KeyError
    assert torch.foo.current_stream() == previous


def test_stream_context_with_none_changes_nothing():
    previous = torch.foo.current_stream()
    with torch.foo.stream(None):
        assert torch.foo.current_stream() == previous


def test_set_stream_makes_it_current():
    s = torch.foo.Stream()
    previous = torch.foo.current_stream()
    try:
        torch.foo.set_stream(s)
        assert torch.foo.current_stream() == s
    finally:
        torch.foo.set_stream(previous)
    assert torch.foo.current_stream() == previous


def test_work_on_a_side_stream_is_right_after_synchronize():
    base = make_tensor((300, 200), torch.float32)
    s = torch.foo.Stream()
    with torch.foo.stream(s):
        on_foo = base.to(FOO)
        converted = on_foo.t().to(torch.float16)
        converted[::3].fill_(-1)
    s.synchronize()
    assert s.query()
    expected = base.t().to(torch.float16)
    expected[::3] = -1
    assert_exact(converted.cpu(), expected)


def test_wait_stream_orders_work_across_streams():
    base = make_tensor((256, 256), torch.int32)
    producer = torch.foo.Stream()
    with torch.foo.stream(producer):
        on_foo = base.to(FOO)
        result = on_foo.t().contiguous()
    torch.foo.current_stream().wait_stream(producer)
    doubled = result.to(torch.int64)  # queued on the default stream, after the producer's work
    assert_exact(doubled.cpu(), base.t().to(torch.int64))


def test_event_record_synchronize_query_and_elapsed_time():
    start = torch.foo.Event(enable_timing=True)
    end = torch.foo.Event(enable_timing=True)
    x = make_tensor((1000, 1000), torch.float32).to(FOO)
    start.record()
    y = x.t().to(torch.float64)
    end.record()
    end.synchronize()
    assert end.query() and start.query()
    assert start.elapsed_time(end) > 0
    assert_exact(y.cpu(), x.cpu().t().to(torch.float64))


def test_elapsed_time_is_measured_or_refused_clearly():
    start, end = torch.foo.Event(enable_timing=True), torch.foo.Event(enable_timing=True)
    start.record()
    torch.empty(4_000_000, device=FOO).fill_(3)
    end.record()
    end.synchronize()
    if torch.foo.get_device_properties(FOO).times_commands:
        assert start.elapsed_time(end) > 0
    else:
        with pytest.raises(RuntimeError, match="does not time its commands"):
            start.elapsed_time(end)


def test_event_recorded_on_a_side_stream_can_be_waited_for():
    s = torch.foo.Stream()
    done = torch.foo.Event()
    base = make_tensor((128, 64), torch.float32)
    with torch.foo.stream(s):
        on_foo = base.to(FOO).t().contiguous()
        done.record(s)
    torch.foo.current_stream().wait_event(done)
    out = on_foo.to(torch.bfloat16)
    done.synchronize()
    assert done.query()
    assert_exact(out.cpu(), base.t().to(torch.bfloat16))


def test_a_stream_without_work_reports_done():
    s = torch.foo.Stream()
    assert s.query()
    torch.foo.synchronize()
    assert torch.foo.default_stream().query()


def test_synchronize_finishes_every_stream():
    streams = [torch.foo.Stream() for _ in range(3)]
    for s in streams:
        with torch.foo.stream(s):
            torch.empty(500_000, device=FOO).fill_(1)
    torch.foo.synchronize()
    assert all(s.query() for s in streams)


def test_a_block_freed_on_one_stream_is_not_reused_by_another():
    a = torch.empty(300, device=FOO)
    ptr = a.data_ptr()
    del a
    with torch.foo.stream(torch.foo.Stream()):
        b = torch.empty(300, device=FOO)
    assert b.data_ptr() != ptr
