"""torch.distributed on foo through the foogloo backend, in real processes started by torchrun: every
collective on foo tensors against its expected value (tests/distributed_worker.py), and data-parallel
training (examples/train_ddp.py: DDP with SyncBatchNorm) against one process on the whole batch."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def torchrun(*args: str) -> subprocess.CompletedProcess:
    """Two processes (rank r on foo:r when there are two devices, else both on foo:0)."""
    return subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", *args],
        cwd=ROOT,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_collectives_on_foo_tensors(tmp_path):
    proc = torchrun(str(ROOT / "tests" / "distributed_worker.py"), str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-4000:]
    for rank in range(2):
        assert json.loads((tmp_path / f"rank{rank}.json").read_text()) == [], f"rank {rank}"


def test_ddp_trains_like_one_process_on_the_whole_batch():
    proc = torchrun("-m", "examples.train_ddp", "--steps", "10")
    assert proc.returncode == 0, proc.stderr[-4000:]
    steps = re.findall(r"step +\d+ +ddp ([\d.]+) +single ([\d.]+)", proc.stdout)
    assert len(steps) == 10, proc.stdout
    for ddp, single in steps:
        assert float(ddp) == pytest.approx(float(single), rel=1e-5)
