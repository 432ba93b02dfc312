"""Kernel code PoCL loads as shared objects is mapped in after launch (runtime/KernelCode.h), so
masked loads of its constants do not take the slow path of an unmapped page."""

import pytest
from conftest import ON_POCL, run_python_json


def test_pocl_kernel_objects_are_mapped_in_after_launch():
    # PoCL runs kernels from shared objects it loads at first launch; an all-false comparison reads
    # its constant with a masked load that is slow while the page is unmapped (runtime/KernelCode.h).
    if not ON_POCL:
        pytest.skip("PoCL loads kernels as shared objects; this device's runtime does not")
    unmapped = run_python_json("""
        import json, struct, torch, foo_cl
        x = torch.rand(4096, device="foo")
        for _ in range(3):
            assert not (x < -1).any().item()
        page = 4096
        unmapped = []
        with open("/proc/self/maps") as maps, open("/proc/self/pagemap", "rb") as pagemap:
            for line in maps:
                if "/kcache/" not in line:
                    continue
                begin, end = (int(a, 16) for a in line.split()[0].split("-"))
                for address in range(begin, end, page):
                    pagemap.seek(address // page * 8)
                    if not struct.unpack("<Q", pagemap.read(8))[0] >> 63:
                        unmapped.append(line.split()[-1])
        print(json.dumps(unmapped))
    """)
    assert unmapped == []
