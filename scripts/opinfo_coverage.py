"""Measures foo-cl's native OpInfo coverage: of the OpInfos in PyTorch's op_db whose float32 samples run on the
CPU, how many run on foo with the CPU fallback forbidden and give the CPU's results, forward and, where the
OpInfo supports float32 autograd, backward (the gradient of the sum of its floating outputs).

An OpInfo counts when one of its first --samples float32 samples runs on the CPU; it is native when every such
sample runs on foo (inputs copied with their strides) without a fallback and matches the CPU (rtol=atol=1e-3).
Random ops and those whose CPU comparison PyTorch skips have only their result shapes and dtypes compared.
Samples run in worker processes, so an operator that crashes or hangs (--timeout) fails alone. Where a sample
needs an operator without a foo kernel, it is run again with the fallback allowed to list every such operator.

    .venv/bin/python scripts/opinfo_coverage.py [-k SUBSTRING] [--samples N] [--list] [--json FILE]

FOO_CL_FALLBACK is set to error; FOO_CL_PLATFORM defaults to PoCL ("Portable Computing Language").
"""

import argparse
import itertools
import json
import os
import queue
import re
import select
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

os.environ.setdefault("FOO_CL_PLATFORM", "Portable Computing Language")
os.environ["FOO_CL_FALLBACK"] = "error"

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import torch
from conftest import assert_close_to_cpu, to_foo_keeping_layout
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._pytree import tree_flatten, tree_map

TOLERANCES = {torch.float32: {"rtol": 1e-3, "atol": 1e-3}}
MISSING_KERNEL = re.compile(r"operator '([^']+)' has no foo kernel")


def opinfo_key(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def float32_opinfos() -> dict:
    return {opinfo_key(op): op for op in op_db if torch.float32 in op.supported_dtypes("cpu")}


# ---- worker: checks one OpInfo at a time, named on stdin, and answers with a JSON line -------------------


def compares_values(op) -> bool:
    """False for random ops (seeded by the OpInfo: foo's generator differs from the CPU's) and where PyTorch skips
    its own CPU comparison (test_compare_cpu) on every device (uninitialised or undefined outputs); only the
    shapes and dtypes of their results are compared."""
    if "wrapper_set_seed" in getattr(getattr(op.op, "__code__", None), "co_names", ()):
        return False
    return not any(
        getattr(info, "test_name", None) == "test_compare_cpu"
        and info.device_type is None
        and any(getattr(d(lambda: None), "__unittest_skip__", False) for d in info.decorators)
        for info in op.decorators
    )


def inputs_on(sample, device: str) -> tuple:
    """(input, args, kwargs) of the sample, a fresh copy on `device`: tensors keep their strides and become leaves
    (requiring grad as in the sample), and a "cpu" device argument names foo on foo."""

    def copy(value: object) -> object:
        if isinstance(value, (str, torch.device)) and str(value) == "cpu":
            return device
        if not isinstance(value, torch.Tensor):
            return value
        t = value.detach()
        if t.layout != torch.strided:
            t = t.to(device)
        elif device == "foo":
            t = to_foo_keeping_layout(t)
        else:
            t = (
                torch.empty(0, dtype=t.dtype)
                .set_(t.untyped_storage())
                .clone()
                .as_strided(t.shape, t.stride(), t.storage_offset())
            )
        return t.requires_grad_(value.requires_grad)

    return tree_map(copy, (sample.input, sample.args, sample.kwargs))


def forward_backward(op, sample, inputs: tuple, backward: bool) -> tuple:
    """(the op's outputs, and with `backward` the gradients of the sum of its floating outputs w.r.t. each input
    that requires grad, or None when nothing requires grad); an error in the backward pass gets a note saying so."""
    outputs = op(inputs[0], *inputs[1], **inputs[2])
    leaves = [t for t in tree_flatten(inputs)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
    floating = [
        t
        for t in tree_flatten(sample.output_process_fn_grad(outputs))[0]
        if isinstance(t, torch.Tensor) and t.is_floating_point() and t.requires_grad
    ]
    grads = None
    if backward and leaves and floating:
        try:
            grads = list(torch.autograd.grad(sum(t.sum() for t in floating), leaves, allow_unused=True))
        except Exception as e:
            e.add_note("backward")
            raise
    return tree_map(lambda t: t.detach() if isinstance(t, torch.Tensor) else t, outputs), grads


def zeroed(tree: object) -> object:
    """The tree with each tensor replaced by zeros of its shape, dtype and device, to compare only those."""
    return tree_map(lambda t: torch.zeros_like(t) if isinstance(t, torch.Tensor) else t, tree)


def check_opinfo(op, samples: int) -> dict:
    backward = op.supports_autograd and torch.float32 in op.supported_backward_dtypes("cpu")
    values = compares_values(op)
    result = {"status": "native", "cpu_samples": 0, "backward_samples": 0, "values_compared": values}
    result.update(reason=None, missing=set())
    try:
        sample_list = list(itertools.islice(op.sample_inputs("cpu", torch.float32, requires_grad=backward), samples))
    except Exception as e:  # noqa: BLE001 (an OpInfo that cannot make samples does not run on the CPU)
        return {**result, "status": "no_cpu", "reason": f"sample_inputs raised {type(e).__name__}: {e}"}
    for i, sample in enumerate(sample_list):
        try:
            expected = forward_backward(op, sample, inputs_on(sample, "cpu"), backward)
        except Exception:  # noqa: BLE001, S112 (a sample the CPU rejects is not counted)
            continue
        result["cpu_samples"] += 1
        result["backward_samples"] += expected[1] is not None
        stage = "forward"
        try:
            outputs, grads = forward_backward(op, sample, inputs_on(sample, "foo"), expected[1] is not None)
            if not values:
                outputs, grads, expected = zeroed((outputs, grads, expected))
            assert_close_to_cpu(outputs, expected[0], TOLERANCES)
            stage = "gradients"
            if grads is not None:
                assert_close_to_cpu(grads, expected[1], TOLERANCES)
        except Exception as e:  # noqa: BLE001 (every failure is a finding)
            missing = MISSING_KERNEL.search(str(e))
            if result["reason"] is None:
                stage = "backward" if "backward" in getattr(e, "__notes__", ()) else stage
                message = f"has no foo kernel: {missing[1]}" if missing else f"{type(e).__name__}: {e}"
                result.update(status="not_native", reason=" ".join(f"sample {i} {stage}: {message}".split()))
            if missing:
                result["missing"] |= missing_kernels(op, sample)
    if result["cpu_samples"] == 0:
        result.update(status="no_cpu", reason=result["reason"] or "no sample runs on the CPU")
    return {**result, "missing": sorted(result["missing"])}


def missing_kernels(op, sample) -> set[str]:
    """The operators that fall back to the CPU when the sample runs on foo with the fallback allowed."""
    before = torch.foo.fallback_counts()
    torch.foo.set_fallback_mode("silent")
    try:
        forward_backward(op, sample, inputs_on(sample, "foo"), backward=True)
    except Exception:  # noqa: BLE001, S110 (the operators that ran before the error are what is wanted)
        pass
    finally:
        torch.foo.set_fallback_mode("error")
    return {name for name, count in torch.foo.fallback_counts().items() if count > before.get(name, 0)}


def worker(samples: int) -> None:
    import warnings

    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    # NOTE: answers go through a private copy of stdout; ops and libraries that print go to stderr.
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    opinfos = float32_opinfos()
    print("ready", file=answers, flush=True)
    for line in sys.stdin:
        key = line.strip()
        print(f"checking {key}", file=sys.stderr, flush=True)
        print(json.dumps({"op": key, **check_opinfo(opinfos[key], samples)}), file=answers, flush=True)


# ---- parent: hands OpInfos to worker processes, restarting one that crashes, hangs or has run many -------


class Worker:
    def __init__(self, samples: int) -> None:
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--samples", str(samples)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        self.checked = 0
        if self.answer(timeout=300) != "ready":
            raise RuntimeError(f"a worker failed to start: {self.last_error()}")

    def answer(self, timeout: float) -> str | None:
        """The worker's next line; "" when it ended, None when it said nothing for `timeout` seconds."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline().strip() if ready else None

    def last_error(self) -> str:
        self.stderr.seek(0)
        lines = [line for line in self.stderr.read().decode(errors="replace").splitlines() if line.strip()]
        return lines[-1] if lines and not lines[-1].startswith("checking ") else "no message"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.stderr.close()


def drive(todo: queue.Queue, results: dict, args: argparse.Namespace) -> None:
    current = None
    while True:
        try:
            key = todo.get_nowait()
        except queue.Empty:
            break
        current = current or Worker(args.samples)
        current.proc.stdin.write(key + "\n")
        current.proc.stdin.flush()
        line = current.answer(args.timeout)
        if line:
            results[key] = json.loads(line)
            current.checked += 1
        else:
            failure = f"timed out after {args.timeout:g} s" if line is None else f"crashed (exit {current.proc.wait()})"
            results[key] = {"op": key, "status": "not_native", "reason": f"{failure}: {current.last_error()}"}
        if not line or current.checked >= 100:
            current.stop()
            current = None
        if len(results) % 50 == 0:
            print(f"{len(results)} OpInfos checked", file=sys.stderr, flush=True)
    if current:
        current.stop()


def report(results: list[dict], show_list: bool) -> None:
    ran = [r for r in results if r["status"] != "no_cpu"]
    native = [r for r in ran if r["status"] == "native"]
    failed = [r for r in ran if r["status"] == "not_native"]
    if show_list:
        print("not native (first failure):")
        for r in failed:
            print(f"  {r['op']}: {r['reason'][:160]}")
        blocked = Counter(name for r in failed for name in r.get("missing", []))
        alone = Counter(r["missing"][0] for r in failed if len(r.get("missing", [])) == 1)
        print("operators without a foo kernel, by OpInfos they block (and block alone):")
        for name, count in blocked.most_common():
            print(f"  {count:4d} ({alone[name]:3d})  {name}")
    print(f"native: {len(native)} of {len(ran)} ops CPU runs ({100 * len(native) / max(len(ran), 1):.1f}%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="substring", default="", help="only OpInfos whose name contains SUBSTRING")
    parser.add_argument("--samples", type=int, default=4, help="float32 samples per OpInfo (default 4)")
    parser.add_argument("--list", action="store_true", help="list the OpInfos that are not native, and why")
    parser.add_argument("--json", type=Path, help="write per-OpInfo results to this file")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds an OpInfo may take (default 60)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.samples)
        return
    keys = [key for key in float32_opinfos() if args.substring in key]
    todo: queue.Queue = queue.Queue()
    for key in keys:
        todo.put(key)
    results: dict = {}
    threads = [threading.Thread(target=drive, args=(todo, results, args)) for _ in range(args.jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ordered = [results.get(key, {"op": key, "status": "not_native", "reason": "not checked"}) for key in keys]
    if args.json:
        args.json.write_text(json.dumps(ordered, indent=1) + "\n")
    report(ordered, args.list)


if __name__ == "__main__":
    main()
