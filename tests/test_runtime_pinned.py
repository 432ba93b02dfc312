"""Pinned host memory: pin_memory() and is_pinned() through foo's caching host allocator,
non_blocking copies in both directions, blocks kept from reuse until their copies finish, and
DataLoader(pin_memory=True) with foo as the accelerator."""

import pytest
import torch
from conftest import FOO, assert_exact, make_tensor
from torch.utils.data import DataLoader, TensorDataset


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64], ids=str)
def test_pin_memory_gives_pinned_tensors_with_the_same_values(dtype):
    src = make_tensor((37, 5), dtype)
    pinned = src.pin_memory()
    assert pinned.is_pinned() and not src.is_pinned()
    assert pinned.data_ptr() != src.data_ptr()
    assert_exact(pinned, src)
    assert pinned[3:].is_pinned()  # a view into a pinned block is pinned too
    assert torch.empty(4, pin_memory=True).is_pinned()


def test_non_blocking_copies_through_pinned_memory_round_trip():
    src = make_tensor((256, 129), torch.float32).pin_memory()
    on_foo = src.to(FOO, non_blocking=True)
    back = torch.empty(src.shape, pin_memory=True)
    back.copy_(on_foo * 2, non_blocking=True)
    torch.foo.synchronize()
    assert_exact(back, src * 2)


def test_a_pinned_block_is_not_reused_while_its_copy_may_be_pending():
    # Free a pinned source right after a non-blocking upload, then refill the next pinned block of that
    # size at once: the upload must still see the old values.
    expected = []
    uploads = []
    for i in range(20):
        src = torch.full((1 << 18,), float(i)).pin_memory()
        uploads.append(src.to(FOO, non_blocking=True))
        expected.append(float(i))
        del src
        torch.empty(1 << 18, pin_memory=True).fill_(-1.0)
    torch.foo.synchronize()
    assert [u[0].item() for u in uploads] == expected
    assert all((u == e).all().item() for u, e in zip(uploads, expected))


def test_pageable_non_blocking_copies_wait_and_are_safe():
    src = make_tensor((1000,), torch.float32)
    on_foo = src.to(FOO, non_blocking=True)
    src.fill_(0.0)  # pageable memory: the copy must have finished before to() returned
    assert not (on_foo.cpu() == 0).all()


def test_data_loader_pins_batches_for_foo():
    data = TensorDataset(torch.arange(40.0).reshape(20, 2), torch.arange(20))
    batches = list(DataLoader(data, batch_size=8, pin_memory=True))
    assert all(x.is_pinned() and y.is_pinned() for x, y in batches)
    total = sum(x.to(FOO, non_blocking=True).sum() for x, _ in batches)
    assert total.item() == sum(range(40))
