"""PyTorch's own OpInfo samples for the reductions, scans, softmax and matrix products on foo against the CPU:
the first samples of float32, float64 and int64 (where the CPU supports it), moved to foo with their strides,
must give the CPU's results, or raise the CPU's exception type, without any fallback to the CPU.
"""

import pytest
import torch
from conftest import failures_in_fresh_process, opinfo_failures
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.opinfo.core import SampleInput
from torch.utils._pytree import tree_leaves

pytestmark = pytest.mark.usefixtures("no_fallback")

# OpInfo names (name, or name.variant) of the reductions, scans, softmax and matrix products; names this torch does
# not have are left out.
LINALG_OPINFO_NAMES = set(
    """
    sum mean prod nansum nanmean amax amin max.reduction_with_dim max.reduction_no_dim
    min.reduction_with_dim min.reduction_no_dim argmax argmin aminmax all any var std var_mean std_mean
    norm linalg.vector_norm logsumexp count_nonzero cumsum cumprod cummax cummin softmax log_softmax
    mm addmm bmm baddbmm addbmm mv addmv dot vdot outer matmul einsum tensordot nn.functional.linear
    """.split()  # noqa: SIM905
)


def full_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


# The listed OpInfos and their variants (var.unbiased, softmax.with_dtype, norm.fro, ...), except norm.nuc:
# the nuclear norm needs an SVD, which is not a foo kernel.
OPINFOS = {
    full_name(op): op
    for op in op_db
    if (full_name(op) in LINALG_OPINFO_NAMES or op.name in LINALG_OPINFO_NAMES) and full_name(op) != "norm.nuc"
}
DTYPES = [torch.float32, torch.float64, torch.int64]
SAMPLES_PER_DTYPE = 6
TOLERANCES = {torch.float32: {"rtol": 1e-4, "atol": 1e-5}}


def has_zero_dim_tensor(sample: SampleInput) -> bool:
    values = tree_leaves((sample.input, sample.args, sample.kwargs))
    return any(isinstance(v, torch.Tensor) and v.dim() == 0 for v in values)


def sample_failures(name: str, zero_dim: bool, announce: bool = False) -> list[str]:
    """Runs OpInfo `name`'s first samples of each dtype that have (`zero_dim`) or have not a 0-dim tensor
    operand on both devices; describes each that differs. With `announce`, names each sample on stderr first."""
    return opinfo_failures(
        OPINFOS[name],
        DTYPES,
        SAMPLES_PER_DTYPE,
        TOLERANCES,
        keep=lambda sample: has_zero_dim_tensor(sample) == zero_dim,
        announce=announce,
    )


@pytest.mark.parametrize("name", OPINFOS)
def test_opinfo_samples_match_cpu(name):
    failures = sample_failures(name, zero_dim=False)
    assert not failures, "\n\n".join(failures)


def zero_dim_failures() -> list[str]:
    return [failure for name in OPINFOS for failure in sample_failures(name, zero_dim=True, announce=True)]


def test_opinfo_samples_with_zero_dim_tensors_match_cpu():
    """The samples with a 0-dim tensor, of every OpInfo, in a fresh process: reductions of a 0-dim tensor
    along a dim have crashed the interpreter, which must fail this test, not end the whole run."""
    failures = failures_in_fresh_process("test_opinfo_linalg", "zero_dim_failures")
    assert not failures, "\n\n".join(failures)
