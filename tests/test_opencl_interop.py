"""pyopencl interop (foo_cl.opencl): pyopencl objects for foo's own OpenCL handles, memory shared
both ways without copies (and kept alive by the other side), and ordering between pyopencl's work
and foo's, on foo's queue and on another."""

import gc
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.tools
import pytest
import torch
from conftest import FOO, assert_exact, dtype_id, make_tensor

import foo_cl
from foo_cl import opencl


def test_context_device_and_queue_are_foos_own_handles():
    handles = foo_cl._C._cl_handles(0)
    assert opencl.context().int_ptr == handles["context"]
    assert opencl.device(FOO).int_ptr == handles["device"]
    q = opencl.queue()
    assert q.context.int_ptr == handles["context"] and q.device.int_ptr == handles["device"]
    assert q.int_ptr == opencl.queue(torch.foo.default_stream()).int_ptr
    side = torch.foo.Stream()
    with torch.foo.stream(side):
        assert opencl.queue().int_ptr == opencl.queue(side).int_ptr != q.int_ptr


@pytest.mark.two_devices
def test_each_device_has_its_own_context_and_queue():
    assert opencl.context("foo:1").int_ptr == foo_cl._C._cl_handles(1)["context"] != opencl.context(0).int_ptr
    assert opencl.queue(torch.foo.current_stream(1)).device.int_ptr == opencl.device(1).int_ptr


def test_handles_reject_what_is_not_a_foo_device_or_stream():
    with pytest.raises(RuntimeError, match="invalid device|out of range|foo:"):
        opencl.context(99)
    with pytest.raises(ValueError, match="foo stream"):
        opencl.queue(torch.Stream(device="cpu"))


@pytest.mark.parametrize(
    "dtype",
    [torch.float32, torch.float64, torch.float16, torch.int8, torch.int64, torch.bool, torch.complex64],
    ids=dtype_id,
)
def test_to_pyopencl_shares_a_views_memory(dtype):
    base = torch.randn(40, dtype=dtype) if dtype.is_complex else make_tensor((40,), dtype)
    t = base.to(FOO)[7:31].view(4, 6)
    a = opencl.to_pyopencl(t)
    assert a.shape == (4, 6) and a.dtype == np.dtype(opencl._NUMPY_DTYPES[dtype])
    assert a.offset == foo_cl._C._cl_buffer(t)[1]
    assert_exact(torch.from_numpy(a.get()), base[7:31].view(4, 6))


def test_pyopencl_and_foo_see_each_others_writes_on_foos_queue():
    t = torch.arange(20, dtype=torch.float32, device=FOO)
    a = opencl.to_pyopencl(t[5:15])
    a *= 3  # a pyopencl kernel on foo's queue
    t.add_(1)  # then foo's, on the same queue: no synchronize between them
    expected = torch.arange(20, dtype=torch.float32)
    expected[5:15] *= 3
    assert_exact(t.cpu(), expected + 1)
    assert_exact(torch.from_numpy(a.get()), expected[5:15] + 1)


def test_to_pyopencl_keeps_the_tensors_memory_allocated():
    a = opencl.to_pyopencl(torch.arange(1000, dtype=torch.int32, device=FOO))
    gc.collect()
    # Were the block freed, these would take it and overwrite it.
    others = [torch.full((1000,), -1, dtype=torch.int32, device=FOO) for _ in range(4)]
    view = a[10:20]  # a pyopencl view keeps it too
    del a
    gc.collect()
    assert view.get().tolist() == list(range(10, 20))
    assert all(bool((o == -1).all()) for o in others)


def test_to_pyopencl_rejects_what_it_cannot_share():
    with pytest.raises(ValueError, match="contiguous"):
        opencl.to_pyopencl(torch.zeros(4, 5, device=FOO).t())
    with pytest.raises(ValueError, match="foo tensor"):
        opencl.to_pyopencl(torch.zeros(3))
    with pytest.raises(TypeError, match="bfloat16"):
        opencl.to_pyopencl(torch.zeros(3, dtype=torch.bfloat16, device=FOO))


def test_to_pyopencl_of_an_empty_tensor_is_an_empty_array():
    a = opencl.to_pyopencl(torch.empty(0, 3, device=FOO))
    assert a.shape == (0, 3) and a.size == 0


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8, np.complex64])
def test_from_pyopencl_shares_an_arrays_memory(dtype):
    q = opencl.queue()
    host = np.arange(24).astype(dtype).reshape(4, 6)
    array = cla.to_device(q, host)
    t = opencl.from_pyopencl(array)
    assert t.device == FOO and t.shape == (4, 6) and t.dtype == opencl._TORCH_DTYPES[np.dtype(dtype)]
    assert_exact(t.cpu(), torch.from_numpy(host))
    t.zero_()
    assert not array.get().any()


def test_from_pyopencl_takes_views_with_offsets_and_strides():
    q = opencl.queue()
    array = cla.to_device(q, np.arange(30, dtype=np.float32))
    assert_exact(opencl.from_pyopencl(array[4:13]).cpu(), torch.arange(4, 13, dtype=torch.float32))
    strided = array[1:25:3]
    assert_exact(opencl.from_pyopencl(strided).cpu(), torch.arange(1, 25, 3, dtype=torch.float32))
    matrix = array.reshape(5, 6)[1:4]
    assert_exact(opencl.from_pyopencl(matrix).cpu(), torch.arange(30, dtype=torch.float32).view(5, 6)[1:4])


def test_from_pyopencl_keeps_the_array_alive_against_its_memory_pool():
    q = opencl.queue()
    pool = pyopencl.tools.MemoryPool(pyopencl.tools.ImmediateAllocator(q))
    array = cla.to_device(q, np.arange(256, dtype=np.float32), allocator=pool)
    t = opencl.from_pyopencl(array)
    del array
    gc.collect()
    # Were the array freed, the pool would hand its buffer to this one.
    other = cla.empty(q, 256, np.float32, allocator=pool)
    other.fill(-1)
    assert_exact(t.cpu(), torch.arange(256, dtype=torch.float32))


def test_imported_memory_is_released_and_not_counted_as_foos():
    q = opencl.queue()
    allocated = torch.foo.memory_allocated()
    for _ in range(200):
        t = opencl.from_pyopencl(cla.zeros(q, 1 << 16, np.float32))
        assert torch.foo.memory_allocated() == allocated
        del t
    gc.collect()
    assert torch.foo.memory_allocated() == allocated


def test_conversions_order_work_on_another_queue():
    other = cl.CommandQueue(opencl.context())
    n = 1 << 20
    array = cla.empty(other, n, np.float32)
    array.fill(5)  # enqueued on the other queue, not waited for
    t = opencl.from_pyopencl(array)
    assert t.sum().item() == 5 * n
    t.fill_(7)  # foo's queue
    shared = opencl.to_pyopencl(t, queue=other)
    assert shared.queue.int_ptr == other.int_ptr
    assert (shared.get() == 7).all()


def test_from_pyopencl_rejects_arrays_foo_cannot_use():
    with pytest.raises(TypeError, match="pyopencl.array.Array"):
        opencl.from_pyopencl(np.zeros(3))
    foreign = cl.Context([opencl.device()])
    with pytest.raises(ValueError, match="context"):
        opencl.from_pyopencl(cla.zeros(cl.CommandQueue(foreign), 4, np.float32))


def test_a_stream_shared_with_pyopencl_reports_its_work():
    stream = torch.foo.current_stream()
    t = torch.zeros(1 << 26, device=FOO)
    stream.synchronize()
    array = opencl.to_pyopencl(t)
    array.fill(1)  # 256 MB written by pyopencl: foo's own count of the stream's commands does not see it
    assert not stream.query()
    stream.synchronize()
    deadline = time.monotonic() + 10
    while not stream.query():  # a fresh marker each query, which an idle queue completes soon
        assert time.monotonic() < deadline, "the stream never reported done after synchronize()"
    assert t[-4:].cpu().tolist() == [1.0] * 4


def test_an_array_imported_twice_stays_valid_after_the_first_tensor_dies():
    array = cla.to_device(opencl.queue(), np.arange(64, dtype=np.float32))
    first, second = opencl.from_pyopencl(array), opencl.from_pyopencl(array[8:])
    del first
    gc.collect()
    assert_exact(second.cpu(), torch.arange(8, 64, dtype=torch.float32))


def test_a_round_trip_through_pyopencl_keeps_foos_address_and_extent():
    t = torch.arange(100, dtype=torch.float32, device=FOO)[10:40]
    back = opencl.from_pyopencl(opencl.to_pyopencl(t))
    assert back.data_ptr() == t.data_ptr()
    assert back.untyped_storage().nbytes() == 30 * 4  # the array's bytes, not the rest of foo's buffer
    back.fill_(-1)
    assert (t.cpu() == -1).all()
