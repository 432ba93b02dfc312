"""One rank of tests/test_distributed.py, started by torchrun: runs collectives on foo tensors through the
foogloo backend (the default group from init_process_group() with no backend, a group named
"cpu:gloo,foo:foogloo", and CPU tensors in a "foogloo" group) and writes the checks that failed, as JSON, to <out>/rank<r>.json.

    torchrun --nproc-per-node 2 tests/distributed_worker.py OUT_DIR
"""

import json
import os
import sys
import traceback
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist

import foo_cl  # noqa: F401

failures: list[str] = []


def check(name: str, actual: torch.Tensor, expected: torch.Tensor) -> None:
    try:
        torch.testing.assert_close(actual.cpu(), expected, rtol=0, atol=0)
    except AssertionError as e:
        failures.append(f"{name}: {e}")


def run(group: dist.ProcessGroup, device: torch.device, label: str) -> None:
    rank, world = dist.get_rank(group), dist.get_world_size(group)

    def on(t: torch.Tensor) -> torch.Tensor:
        return t.to(device, copy=True)  # a copy on the CPU too: collectives write their tensors

    values = [torch.arange(6, dtype=torch.float32).view(2, 3) + r + 1 for r in range(world)]
    every = torch.stack(values)
    ops = {
        "sum": (dist.ReduceOp.SUM, every.sum(0)),
        "product": (dist.ReduceOp.PRODUCT, every.prod(0)),
        "min": (dist.ReduceOp.MIN, every.amin(0)),
        "max": (dist.ReduceOp.MAX, every.amax(0)),
        "avg": (dist.ReduceOp.AVG, every.sum(0) / world),
        "premul_sum": (dist._make_nccl_premul_sum(2.0), 2 * every.sum(0)),
    }
    for name, (op, expected) in ops.items():
        t = on(values[rank])
        dist.all_reduce(t, op=op, group=group)
        check(f"{label} all_reduce {name}", t, expected)
        strided = on(values[rank].t().contiguous()).t()  # a transposed view
        dist.all_reduce(strided, op=op, group=group)
        check(f"{label} all_reduce {name} transposed", strided, expected)

    ints = [torch.tensor([12, 10, 7, -3]) + 5 * r for r in range(world)]
    for name, op, fold in [
        ("band", dist.ReduceOp.BAND, torch.bitwise_and),
        ("bor", dist.ReduceOp.BOR, torch.bitwise_or),
        ("bxor", dist.ReduceOp.BXOR, torch.bitwise_xor),
    ]:
        expected = ints[0]
        for other in ints[1:]:
            expected = fold(expected, other)
        t = on(ints[rank])
        dist.all_reduce(t, op=op, group=group)
        check(f"{label} all_reduce {name}", t, expected)
    t = on(ints[rank])
    dist.all_reduce(t, op=dist.ReduceOp.AVG, group=group)
    check(f"{label} all_reduce avg int64 (truncated)", t, torch.stack(ints).sum(0).div(world, rounding_mode="trunc"))

    t = torch.full((3,), float(rank), device=device, dtype=torch.float64 if label == "cpu" else torch.float32)
    dist.broadcast(t, src=world - 1, group=group)
    check(f"{label} broadcast", t, torch.full((3,), float(world - 1), dtype=t.dtype))

    t = on(values[rank])
    dist.reduce(t, dst=0, op=dist.ReduceOp.AVG, group=group)
    check(f"{label} reduce avg", t, every.sum(0) / world if rank == 0 else values[rank])

    outs = [torch.empty(2, 3, device=device) for _ in range(world)]
    dist.all_gather(outs, on(values[rank]), group=group)
    check(f"{label} all_gather", torch.stack([o.cpu() for o in outs]), every)
    flat = torch.empty(1, world * 6, device=device)  # rank-major whatever the shape, as with NCCL
    dist.all_gather_into_tensor(flat, on(values[rank]), group=group)
    check(f"{label} all_gather_into_tensor", flat, every.view(1, -1))

    chunks = torch.arange(world * 4, dtype=torch.float32).view(world, 4) * (rank + 1)
    out = torch.empty(4, device=device)
    dist.reduce_scatter_tensor(out, on(chunks), group=group)
    expected = sum(torch.arange(world * 4, dtype=torch.float32).view(world, 4)[rank] * (r + 1) for r in range(world))
    check(f"{label} reduce_scatter_tensor", out, expected)
    dist.reduce_scatter_tensor(out, on(chunks), op=dist.ReduceOp.AVG, group=group)
    check(f"{label} reduce_scatter_tensor avg", out, expected / world)

    split = torch.arange(world * 2, dtype=torch.float32) + 100 * rank
    received = torch.empty(world * 2, device=device)
    dist.all_to_all_single(received, on(split), group=group)
    check(
        f"{label} all_to_all_single",
        received,
        torch.cat([torch.arange(2.0) + 2 * rank + 100 * r for r in range(world)]),
    )

    if rank == 0:
        dist.send(torch.arange(5, dtype=torch.float32, device=device) * 3, dst=world - 1, group=group)
    elif rank == world - 1:
        got = torch.zeros(5, device=device)
        dist.recv(got, src=0, group=group)
        check(f"{label} send/recv", got, torch.arange(5, dtype=torch.float32) * 3)

    # A posted irecv must not hold up other completions (gloo's send/recv works have no future).
    if rank in (0, world - 1) and world > 1:
        peer = world - 1 - rank
        if rank == 0:
            reply = torch.zeros(3, device=device)
            pending = dist.irecv(reply, src=peer, group=group)
            dist.send(torch.ones(3, device=device), dst=peer, group=group)
            pending.wait()
            check(f"{label} irecv posted before a send", reply, torch.full((3,), 2.0))
            anyone = torch.zeros(2, device=device)
            source = dist.recv(anyone, group=group)  # from any rank
            if source != peer:
                failures.append(f"{label} recv from any rank: source {source}, expected {peer}")
            check(f"{label} recv from any rank", anyone, torch.full((2,), 5.0))
        else:
            incoming = torch.zeros(3, device=device)
            dist.recv(incoming, src=peer, group=group)
            dist.send(incoming + 1, dst=peer, group=group)
            dist.send(torch.full((2,), 5.0, device=device), dst=peer, group=group)

    big = torch.full((1 << 18,), float(rank + 1), device=device)
    work = dist.all_reduce(big, async_op=True, group=group)
    future_value = work.get_future().wait()[0]
    work.wait()
    if not work.is_completed() or not work.is_success():
        failures.append(f"{label} async all_reduce: work not completed after wait()")
    check(f"{label} async all_reduce", big[:4], torch.full((4,), float(sum(range(1, world + 1)))))
    check(f"{label} async all_reduce future value", future_value[:4], big[:4].cpu())
    dist.barrier(group=group)


def main() -> None:
    out_dir = Path(sys.argv[1])
    # foo is the accelerator: foogloo, with no backend named. A rank that fails leaves the others
    # waiting in a collective: a minute, not gloo's default half hour.
    dist.init_process_group(timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    device = torch.device("foo", rank % torch.foo.device_count())
    torch.foo.set_device(device)
    try:
        if dist.get_default_backend_for_device("foo") != "foogloo":
            failures.append(f"default backend for foo: {dist.get_default_backend_for_device('foo')}")
        run(dist.group.WORLD, device, "default group")
        run(dist.new_group(backend="cpu:gloo,foo:foogloo"), device, "cpu:gloo,foo:foogloo")
        run(dist.new_group(backend="foogloo"), torch.device("cpu"), "cpu")  # foogloo passes CPU tensors to gloo
    except Exception:  # noqa: BLE001  (whatever fails is reported to the test)
        failures.append(traceback.format_exc())
        (out_dir / f"rank{rank}.json").write_text(json.dumps(failures))
        os._exit(1)  # the other rank may be waiting in a collective: leave at once
    (out_dir / f"rank{rank}.json").write_text(json.dumps(failures))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
