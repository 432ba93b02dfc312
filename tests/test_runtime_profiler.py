"""foo in PyTorch's profilers: torch.profiler with ProfilerActivity.PrivateUse1 shows foo's kernels and
copies with their device times, attributed to the operators that launched them, in key_averages()
and in exported Chrome traces; the legacy torch.autograd.profiler with use_device="foo" gives each
operator its device time.
"""

import json

import torch
from conftest import FOO
from torch.autograd.profiler_util import DeviceType
from torch.profiler import ProfilerActivity, profile


def workload() -> torch.Tensor:
    x = torch.randn(256, 256).to(FOO)
    y = (x + 1).relu() @ x
    return y.sum().cpu()


def test_profiler_shows_foo_kernels_and_copies_with_device_times(tmp_path):
    workload()  # kernels built outside the profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
        workload()
    events = prof.key_averages()
    device_events = {e.key: e for e in events if e.device_type == DeviceType.PrivateUse1}
    assert any(name.startswith("binary/add:") for name in device_events), sorted(device_events)
    assert any(name.startswith("blas/") or "gemm" in name for name in device_events), sorted(device_events)
    assert {"Memcpy HtoD", "Memcpy DtoH"} <= set(device_events)
    assert all(e.device_time_total > 0 for e in device_events.values())
    # The operators that launched them carry their device time.
    cpu_ops = {e.key: e for e in events if e.device_type == DeviceType.CPU}
    assert cpu_ops["aten::mm"].device_time_total > 0
    assert cpu_ops["aten::add"].device_time_total > 0
    assert "foo" in events.table(sort_by="device_time_total").lower()

    trace = tmp_path / "trace.json"
    prof.export_chrome_trace(str(trace))
    kernels = [e for e in json.loads(trace.read_text())["traceEvents"] if e.get("cat") == "kernel"]
    assert any(e["name"].startswith("binary/add:") for e in kernels)
    assert all(e["dur"] >= 0 and e["args"]["device"] == "foo:0" for e in kernels)


def test_a_cpu_only_profile_records_no_device_work():
    workload()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        workload()
    assert not [e for e in prof.key_averages() if e.device_type == DeviceType.PrivateUse1]


def test_profiles_in_a_row_each_see_their_own_kernels():
    counts = []
    for repeats in (1, 3):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]) as prof:
            for _ in range(repeats):
                workload()
        adds = [e for e in prof.key_averages() if e.key.startswith("binary/add:")]
        counts.append(sum(e.count for e in adds))
    assert counts[1] == 3 * counts[0] > 0


def test_legacy_profiler_gives_operators_their_device_time():
    workload()
    with torch.autograd.profiler.profile(use_device="foo") as prof:
        workload()
    events = {e.key: e for e in prof.key_averages()}
    assert events["aten::mm"].device_time_total > 0
    assert all(e.cpu_time_total >= 0 for e in events.values())
    assert "nan" not in prof.key_averages().table().lower()
