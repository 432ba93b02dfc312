"""Kernel programs: build errors that name the kernel, options and log (FOO_CL_KERNEL_DIR), and the
on-disk binary cache (FOO_CL_CACHE_DIR): written, reused, rebuilt when corrupt, off when disabled."""

import shutil
from pathlib import Path

import pytest
import torch
from conftest import ON_POCL, run_python, run_python_json

KERNELS = Path(__file__).resolve().parent.parent / "kernels_cl"

# Builds a few programs (converting, strided and bit copies, fills), checks the results against the
# CPU and prints the builds of this process.
WORKLOAD = """
    import json, torch, foo_cl
    x = torch.arange(24, dtype=torch.float32).view(4, 6)
    on_foo = x.foo()
    results = [
        (on_foo.to(torch.int32).cpu(), x.to(torch.int32)),
        (on_foo.t().to(torch.float16).cpu(), x.t().to(torch.float16)),
        (on_foo.t().contiguous().cpu(), x.t().contiguous()),
        (on_foo[:, ::2].fill_(5).cpu(), x[:, ::2].fill_(5)),
        (torch.zeros(7, dtype=torch.int8, device="foo").fill_(3).cpu(), torch.full((7,), 3, dtype=torch.int8)),
    ]
    print(json.dumps({
        "correct": all(torch.equal(got, expected) for got, expected in results),
        "builds": [[key, options, from_disk] for key, options, _ms, from_disk in foo_cl._C._program_builds()],
        "cache_dir": torch.foo.kernel_cache_dir(),
    }))
"""


def run_workload(cache_dir: Path, **env: str) -> dict:
    result = run_python_json(WORKLOAD, FOO_CL_CACHE_DIR=str(cache_dir), **env)
    assert result["correct"]
    assert len(result["builds"]) >= 4
    return result


# PoCL keeps built programs in its own cache, so foo-cl writes no binaries there (ProgramCache.cpp).
keeps_binaries = pytest.mark.skipif(ON_POCL, reason="foo-cl keeps no binaries on PoCL, which caches its own")


def binaries(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("*.bin"))


@pytest.fixture(scope="module")
def first_run(tmp_path_factory) -> tuple[Path, dict]:
    """A cache folder filled by one run of WORKLOAD, and that run's result; tests work on copies of it."""
    cache_dir = tmp_path_factory.mktemp("kernel_cache")
    return cache_dir, run_workload(cache_dir)


@pytest.fixture
def filled_cache(first_run, tmp_path) -> Path:
    cache_dir = tmp_path / "cache"
    shutil.copytree(first_run[0], cache_dir)
    return cache_dir


@keeps_binaries
def test_first_run_builds_from_source_and_writes_binaries(first_run):
    cache_dir, result = first_run
    assert result["cache_dir"] == str(cache_dir)
    assert [from_disk for _, _, from_disk in result["builds"]] == [False] * len(result["builds"])
    assert len(binaries(cache_dir)) == len(result["builds"])


@keeps_binaries
def test_second_run_loads_every_program_from_disk(first_run, filled_cache):
    second = run_workload(filled_cache)
    assert [b[:2] for b in second["builds"]] == [b[:2] for b in first_run[1]["builds"]]
    assert [from_disk for _, _, from_disk in second["builds"]] == [True] * len(second["builds"])


@keeps_binaries
@pytest.mark.parametrize("damage", ["truncate", "garble"])
def test_corrupt_binaries_are_rebuilt(filled_cache, damage):
    damaged = {}
    for path in binaries(filled_cache):
        data = bytearray(path.read_bytes())
        if damage == "truncate":
            data = data[: len(data) // 2]
        else:
            middle = len(data) // 2
            data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
        path.write_bytes(bytes(data))
        damaged[path] = bytes(data)

    rebuilt = run_workload(filled_cache)  # run_workload checks the results against the CPU
    assert [from_disk for _, _, from_disk in rebuilt["builds"]] == [False] * len(rebuilt["builds"])
    assert binaries(filled_cache) == sorted(damaged)
    assert all(path.read_bytes() != data for path, data in damaged.items()), "damaged binaries were not replaced"


@pytest.mark.skipif(not ON_POCL, reason="PoCL only")
def test_pocl_programs_are_left_to_pocls_cache(first_run):
    cache_dir, result = first_run
    assert [from_disk for _, _, from_disk in result["builds"]] == [False] * len(result["builds"])
    assert binaries(cache_dir) == []


def test_disabled_cache_writes_nothing(tmp_path):
    result = run_workload(tmp_path, FOO_CL_CACHE_DISABLE="1")
    assert [from_disk for _, _, from_disk in result["builds"]] == [False] * len(result["builds"])
    assert list(tmp_path.iterdir()) == []


def test_kernel_cache_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FOO_CL_CACHE_DIR", str(tmp_path))
    assert torch.foo.kernel_cache_dir() == str(tmp_path)


def test_clear_kernel_cache_deletes_only_binaries(tmp_path, monkeypatch):
    monkeypatch.setenv("FOO_CL_CACHE_DIR", str(tmp_path))
    (tmp_path / "0123456789abcdef0123456789abcdef.bin").write_bytes(b"FOOCLBIN")
    (tmp_path / "notes.txt").write_text("not a kernel binary")
    torch.foo.clear_kernel_cache()
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_build_error_names_the_kernel_options_and_log(tmp_path):
    kernels = tmp_path / "kernels_cl"
    shutil.copytree(KERNELS, kernels)
    copy_cl = kernels / "copy" / "copy.cl"
    copy_cl.write_text(copy_cl.read_text() + "\nthis is not OpenCL C;\n")

    proc = run_python(
        """
        import torch
        torch.arange(4.0, device="foo").to(torch.int32)
        """,
        FOO_CL_KERNEL_DIR=str(kernels),
        FOO_CL_CACHE_DISABLE="1",
    )
    assert proc.returncode != 0
    message = proc.stderr[proc.stderr.rindex("RuntimeError") :]
    assert "copy/copy" in message
    assert "-DSRC=" in message
    assert "Build log" in message


def test_kernel_dir_without_the_kernel_file_names_it(tmp_path):
    proc = run_python(
        """
        import torch
        torch.arange(4.0, device="foo").to(torch.int16)
        """,
        FOO_CL_KERNEL_DIR=str(tmp_path),
        FOO_CL_CACHE_DISABLE="1",
    )
    assert proc.returncode != 0
    # The first program this needs (factory/range.cl for arange) is the one named.
    assert f"FOO_CL_KERNEL_DIR={tmp_path} has no file factory/range.cl" in proc.stderr
