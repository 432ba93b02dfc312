"""The caching allocator's statistics: exact block sizes, returning to baseline, peaks, empty_cache,
out-of-memory errors, and agreement between torch.foo and torch.accelerator."""

import gc
import random
from collections.abc import Iterator

import pytest
import torch
from conftest import FOO

MiB = 1 << 20


@pytest.fixture
def settled_memory() -> Iterator[None]:
    """Frees what earlier tests left behind and returns cached blocks, so allocations start from fresh segments."""
    gc.collect()
    torch.foo.synchronize()
    torch.foo.empty_cache()
    yield


def allocated() -> int:
    return torch.foo.memory_allocated(0)


@pytest.mark.parametrize(
    "nbytes, block",
    [
        (4, 512),  # one float: the smallest block
        (513, 1024),  # rounded up to a multiple of 512
        (4000, 4096),
        (MiB, MiB),  # the largest small-pool request
        (MiB + 1, MiB + 512),  # large pool, split from a 20 MiB segment
        (12 * MiB, 12 * MiB),  # a segment of its own
    ],
)
def test_allocation_adds_exactly_its_rounded_block(settled_memory, nbytes, block):
    before = torch.foo.memory_stats(0)
    t = torch.empty(nbytes, dtype=torch.uint8, device=FOO)
    during = torch.foo.memory_stats(0)
    assert during["allocated_bytes.all.current"] - before["allocated_bytes.all.current"] == block
    assert during["requested_bytes.all.current"] - before["requested_bytes.all.current"] == nbytes
    assert during["allocation.all.current"] - before["allocation.all.current"] == 1
    pool = "small_pool" if block <= MiB else "large_pool"
    assert during[f"allocated_bytes.{pool}.current"] - before[f"allocated_bytes.{pool}.current"] == block
    del t
    after = torch.foo.memory_stats(0)
    assert after["allocated_bytes.all.current"] == before["allocated_bytes.all.current"]
    assert after["allocation.all.current"] == before["allocation.all.current"]
    assert after["allocated_bytes.all.freed"] - before["allocated_bytes.all.freed"] == block


def test_empty_tensor_allocates_nothing():
    before = allocated()
    t = torch.empty(0, 5, device=FOO)
    assert allocated() == before and t.numel() == 0


def test_views_allocate_nothing():
    base = torch.empty(1000, device=FOO)
    before = allocated()
    views = [base[1:], base.view(10, 100).t(), base.unfold(0, 10, 5), base.view(torch.int32)]
    assert allocated() == before and len(views) == 4


def test_many_mixed_allocations_return_to_baseline():
    baseline = allocated()
    baseline_count = torch.foo.memory_stats(0)["allocation.all.current"]
    rng = random.Random(1234)
    alive: list[torch.Tensor] = []
    for _ in range(10_000):
        numel = int(2 ** rng.uniform(0, 20))  # 1 element to 4 MiB of float32, log-uniform
        alive.append(torch.empty(numel, dtype=torch.float32, device=FOO))
        if len(alive) > 40 or rng.random() < 0.5:
            alive.pop(rng.randrange(len(alive)))
    assert allocated() > baseline
    alive.clear()
    assert allocated() == baseline
    assert torch.foo.memory_stats(0)["allocation.all.current"] == baseline_count


def test_peak_tracks_the_maximum_until_reset():
    torch.foo.reset_peak_memory_stats(0)
    start = allocated()
    assert torch.foo.max_memory_allocated(0) == start
    t = torch.empty(MiB, dtype=torch.uint8, device=FOO)
    del t
    assert allocated() == start
    assert torch.foo.max_memory_allocated(0) == start + MiB
    assert torch.foo.max_memory_reserved(0) >= torch.foo.memory_reserved(0)
    torch.foo.reset_peak_memory_stats(0)
    assert torch.foo.max_memory_allocated(0) == start
    assert torch.foo.max_memory_reserved(0) == torch.foo.memory_reserved(0)


def test_reset_accumulated_stats_zeroes_counters_but_not_current():
    t = torch.empty(100, device=FOO)
    torch.foo.reset_accumulated_memory_stats(0)
    stats = torch.foo.memory_stats(0)
    assert stats["allocation.all.allocated"] == 0 and stats["allocated_bytes.all.freed"] == 0
    assert stats["allocated_bytes.all.current"] == allocated() > 0
    del t
    assert torch.foo.memory_stats(0)["allocation.all.freed"] == 1


def test_empty_cache_keeps_only_segments_in_use(settled_memory):
    base_reserved = torch.foo.memory_reserved(0)
    base_segments = torch.foo.memory_stats(0)["segment.all.current"]
    big = torch.empty(25 * MiB, dtype=torch.uint8, device=FOO)  # a 26 MiB segment
    kept = torch.empty(12 * MiB, dtype=torch.uint8, device=FOO)  # a 12 MiB segment
    assert torch.foo.memory_reserved(0) == base_reserved + 38 * MiB
    del big
    assert torch.foo.memory_reserved(0) == base_reserved + 38 * MiB  # cached, not released
    torch.foo.empty_cache()
    assert torch.foo.memory_reserved(0) == base_reserved + 12 * MiB
    assert torch.foo.memory_stats(0)["segment.all.current"] == base_segments + 1
    del kept
    torch.foo.empty_cache()
    assert torch.foo.memory_reserved(0) == base_reserved
    assert torch.foo.memory_stats(0)["segment.all.current"] == base_segments


def test_freed_block_is_reused():
    a = torch.empty(300, device=FOO)
    ptr = a.data_ptr()
    del a
    b = torch.empty(300, device=FOO)
    assert b.data_ptr() == ptr


def test_mem_get_info_is_total_minus_reserved():
    free, total = torch.foo.mem_get_info(0)
    assert total == torch.foo.get_device_properties(0).total_memory
    assert free == total - torch.foo.memory_reserved(0)


def test_out_of_memory_raises_and_the_device_keeps_working():
    ooms = torch.foo.memory_stats(0)["num_ooms"]
    before = allocated()
    with pytest.raises(torch.OutOfMemoryError, match=r"(?s)foo:0.*1024\.00 GiB"):
        torch.empty(2**40, dtype=torch.uint8, device=FOO)
    assert torch.foo.memory_stats(0)["num_ooms"] == ooms + 1
    assert allocated() == before
    x = torch.full((1000,), 3, dtype=torch.int32, device=FOO)
    assert x.sum().item() == 3000


def test_out_of_memory_is_a_runtime_error_like_cuda():
    with pytest.raises(RuntimeError, match="out of memory"):
        torch.empty(2**40, dtype=torch.uint8, device=FOO)


def test_accelerator_api_agrees_with_torch_foo():
    t = torch.empty(1000, device=FOO)
    assert torch.accelerator.memory_allocated(0) == torch.foo.memory_allocated(0) == torch.foo.memory_allocated()
    assert torch.accelerator.memory_reserved(0) == torch.foo.memory_reserved(0)
    assert torch.accelerator.max_memory_allocated(0) == torch.foo.max_memory_allocated(0)
    assert torch.accelerator.memory_stats(0) == torch.foo.memory_stats(0)
    assert torch.foo.memory_allocated("foo:0") == torch.foo.memory_allocated(torch.device("foo", 0))
    del t


def test_a_tensor_over_the_per_allocation_limit_names_the_limit():
    with pytest.raises(torch.OutOfMemoryError, match="in one piece.*CL_DEVICE_MAX_MEM_ALLOC_SIZE"):
        torch.empty(2**40, dtype=torch.uint8, device=FOO)


def test_memory_summary_reports_the_allocator_statistics():
    x = torch.empty(3 << 20, dtype=torch.uint8, device=FOO)
    summary = torch.foo.memory_summary()
    stats = torch.foo.memory_stats()
    assert "foo:0" in summary and "Allocated memory" in summary and "from small pool" in summary
    allocated_row = next(line for line in summary.splitlines() if line.startswith("Allocated memory"))
    assert f"{stats['allocated_bytes.all.current'] / 2**20:.2f} MiB" in allocated_row
    assert "from small pool" not in torch.foo.memory_summary(abbreviated=True)
    del x


def test_memory_snapshot_lists_segments_and_blocks_like_cuda():
    torch.foo.empty_cache()
    big = torch.empty(12 << 20, dtype=torch.uint8, device=FOO)
    small = torch.empty(1000, dtype=torch.uint8, device=FOO)
    segments = [s for s in torch.foo.memory_snapshot() if s["device"] == 0]
    blocks = {b["address"]: (s, b) for s in segments for b in s["blocks"]}
    for tensor, kind in ((big, "large"), (small, "small")):
        segment, block = blocks[tensor.data_ptr()]
        assert block["state"] == "active_allocated" and block["requested_size"] == tensor.numel()
        assert block["size"] >= tensor.numel() and segment["segment_type"] == kind
    for segment in segments:
        addresses = [b["address"] for b in segment["blocks"]]
        assert addresses == sorted(addresses) and addresses[0] == segment["address"]
        assert sum(b["size"] for b in segment["blocks"]) == segment["total_size"]
        assert segment["allocated_size"] == sum(
            b["size"] for b in segment["blocks"] if b["state"] == "active_allocated"
        )
    assert sum(s["total_size"] for s in segments) == torch.foo.memory_reserved(0)
    address = small.data_ptr()
    del small, tensor
    freed = {b["address"]: b for s in torch.foo.memory_snapshot() for b in s["blocks"]}
    assert freed[address]["state"] == "inactive"
    del big
