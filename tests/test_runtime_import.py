"""foo-cl loads in a fresh process whatever the order of imports: foo_cl before torch, after it, or
not at all (torch's backend autoloading), with autoloading on and off; `python -m foo_cl` reports
the devices and what foo chose for them."""

import os
import subprocess
import sys

import pytest
import torch
from conftest import run_python

import foo_cl

# Each script ends by using foo, so a half-registered backend fails here rather than later.
USE_FOO = """
x = torch.arange(6.0, device="foo").reshape(2, 3)
assert torch.foo.is_available() and x.device.type == "foo" and x.sum().item() == 15.0
print("ok", torch.foo.device_count())
"""

IMPORT_ORDERS = {
    "foo_cl_first": "import foo_cl\nimport torch\n",
    "foo_cl_only": "import foo_cl\ntorch = __import__('torch')\n",
    "torch_first": "import torch\nimport foo_cl\n",
    "torch_alone": "import torch\n",
    "from_import": "from foo_cl import device_module\nimport torch\n",
    "torch_nn_first": "import torch.nn\nimport foo_cl\nimport torch\n",
}


@pytest.mark.parametrize("autoload", ["1", "0"])
@pytest.mark.parametrize("order", IMPORT_ORDERS.values(), ids=IMPORT_ORDERS.keys())
def test_foo_works_in_a_fresh_process_whatever_the_import_order(order, autoload):
    if autoload == "0" and order == IMPORT_ORDERS["torch_alone"]:
        proc = run_python(
            "import torch\nassert not hasattr(torch, 'foo')\nprint('ok')", TORCH_DEVICE_BACKEND_AUTOLOAD="0"
        )
    else:
        proc = run_python(order + USE_FOO, TORCH_DEVICE_BACKEND_AUTOLOAD=autoload)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok"), proc.stdout


def run_report(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "foo_cl"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_python_m_foo_cl_reports_devices_choices_and_a_passing_self_test():
    proc = run_report()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert f"foo-cl {foo_cl.__version__}, torch {torch.__version__}" in out
    assert "OpenCL devices (all platforms):" in out and "foo:0" in out
    assert "kernel arguments" in out and "64-bit atomics" in out and "GEMM:" in out
    assert "self-test against the CPU:" in out and "FAILED" not in out
    assert "Kernel cache:" in out


def test_python_m_foo_cl_reports_a_forced_device_class():
    proc = run_report(FOO_CL_DEVICE_CLASS="gpu")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "variants: gpu (forced by FOO_CL_DEVICE_CLASS)" in proc.stdout


def test_a_lower_kernel_argument_limit_is_reported_and_kept():
    """FOO_CL_MAX_PARAMETER_SIZE=256 gives a device an embedded profile's argument limit (make test runs the
    GPU-class pass so): strided launches of many dims take fewer dims each and still agree with the CPU."""
    proc = run_python(
        """
        import torch, foo_cl
        assert torch.foo.get_device_properties(0).max_parameter_size == 256
        x = torch.randn((2, 3) * 5)
        y = x.to("foo").permute(*range(9, -1, -1))
        assert torch.equal((y * 2 + y).cpu(), (x.permute(*range(9, -1, -1)) * 3))
        assert torch.allclose(y.sum((0, 2, 4, 6, 8)).cpu(), x.permute(*range(9, -1, -1)).sum((0, 2, 4, 6, 8)), atol=1e-5)
        print("ok")
        """,
        FOO_CL_MAX_PARAMETER_SIZE="256",
    )
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stderr
    proc = run_report(FOO_CL_MAX_PARAMETER_SIZE="100")
    assert "ignoring FOO_CL_MAX_PARAMETER_SIZE=100" in proc.stderr


def test_python_m_foo_cl_fails_without_a_foo_device():
    proc = run_report(FOO_CL_PLATFORM="no such platform")
    assert proc.returncode == 1
    assert "foo devices: 0" in proc.stdout and "not used" in proc.stdout
