"""PyTorch's own OpInfo samples for the training operators (convolution, normalisation,
pooling, losses, indexing and rearranging) and the random-free sort/topk on foo against the CPU: the
first samples of float32 and float64 (and int64 where the CPU supports it and the op is not a float
op), moved to foo with their strides, must give the CPU's results or raise the CPU's exception type,
without any fallback to the CPU.
"""

import pytest
import torch
from conftest import opinfo_failures
from torch.testing._internal.common_methods_invocations import op_db

pytestmark = pytest.mark.usefixtures("no_fallback")

NN_OPINFO_NAMES = set(
    """
    nn.functional.conv1d nn.functional.conv2d nn.functional.conv_transpose1d nn.functional.conv_transpose2d
    nn.functional.batch_norm nn.functional.layer_norm nn.functional.group_norm
    nn.functional.max_pool2d nn.functional.avg_pool2d nn.functional.adaptive_avg_pool2d
    nn.functional.adaptive_max_pool2d nn.functional.cross_entropy nn.functional.nll_loss nn.functional.mse_loss
    nn.functional.smooth_l1_loss nn.functional.huber_loss nn.functional.binary_cross_entropy
    nn.functional.embedding nn.functional.one_hot
    gather scatter scatter_add index_select index_add index_put masked_select nonzero cat stack flip roll
    tril triu sort argsort topk take_along_dim nn.functional.upsample_nearest nn.functional.upsample_bilinear
    unique bincount
    """.split()  # noqa: SIM905
)
OPINFOS = {
    op.name + (f".{op.variant_test_name}" if op.variant_test_name else ""): op
    for op in op_db
    if op.name in NN_OPINFO_NAMES
}
DTYPES = [torch.float32, torch.float64, torch.int64]
SAMPLES_PER_DTYPE = 6
TOLERANCES = {torch.float32: {"rtol": 1e-4, "atol": 1e-5}}


@pytest.mark.parametrize("name", OPINFOS)
def test_opinfo_samples_match_cpu(name):
    failures = opinfo_failures(OPINFOS[name], DTYPES, SAMPLES_PER_DTYPE, TOLERANCES)
    assert not failures, "\n\n".join(failures)
