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
    """Two processes (rank r on foo:r when there are two devices, else both on foo:0); torchrun is
    stopped (and stops its workers) if they take more than 5 minutes."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", *args]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        try:
            out, err = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.terminate()  # torchrun's agent tears its workers down on SIGTERM
            try:
                out, err = p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
            pytest.fail(f"torchrun {' '.join(args)} took more than 5 minutes:\n{err[-4000:]}")
    return subprocess.CompletedProcess(command, p.returncode, out, err)


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
