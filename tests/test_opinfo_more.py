"""PyTorch's own OpInfo samples for median, nanmedian and kthvalue, isin, equal and unique_consecutive, trace, histc and
renorm, 3-d convolution, 1-d and 3-d pooling, every interpolate mode, grid_sample, padding and unpooling, the shrink,
glu and prelu activations, batch_norm, unfold, channel_shuffle and repeat_interleave, nonzero_static, index_fill and
index_reduce, the cross products, frexp, the special functions (gamma family, Bessel functions, orthogonal
polynomials, incomplete gamma), and the complex-valued sgn, angle, polar and complex, on foo against the CPU with no
fallback to the CPU: the first samples of float32 and float64 (and int64 and bool where the CPU supports them), moved
to foo with their strides, must give the CPU's results or raise the CPU's exception type; where the OpInfo supports
autograd, the float32 samples' input gradients must match too.
"""

import pytest
import torch
from conftest import opinfo_failures
from torch.testing._internal.common_methods_invocations import op_db

pytestmark = pytest.mark.usefixtures("no_fallback")

# OpInfo names (with all their variants, or name.variant for one); names this torch does not have are left out, as
# are variants without a CPU dtype among DTYPES (batch_norm.without_cudnn, which runs on CUDA only).
MORE_OPINFO_NAMES = set(
    """
    median nanmedian kthvalue isin equal trace histc renorm nn.functional.channel_shuffle unfold unfold_copy
    repeat_interleave nonzero_static index_reduce linalg.cross cross nn.functional.pad nn.functional.glu
    nn.functional.prelu nn.functional.hardshrink nn.functional.softshrink nn.functional.max_unpool1d
    nn.functional.max_unpool2d nn.functional.max_unpool3d nn.functional.batch_norm sgn unique_consecutive index_fill
    frexp angle polar complex mode logcumsumexp cdist nn.functional.pdist
    nn.functional.conv3d nn.functional.conv_transpose3d nn.functional.max_pool1d nn.functional.max_pool3d
    nn.functional.avg_pool1d nn.functional.avg_pool3d nn.functional.adaptive_avg_pool1d nn.functional.adaptive_avg_pool3d
    nn.functional.adaptive_max_pool1d nn.functional.adaptive_max_pool3d nn.functional.interpolate
    _upsample_bilinear2d_aa nn.functional.grid_sample grid_sampler_2d grid_sampler_3d
    """.split()  # noqa: SIM905
)
# Special functions: float32 and float64 only (integer inputs promote to float32 through the same kernels, and
# every dtype costs each of the many kernels a build on a fresh machine).
SPECIAL_OPINFO_NAMES = set(
    """
    lgamma digamma polygamma mvlgamma i0 igamma igammac logaddexp2 special.i0e special.i1 special.i1e special.erfcx
    special.log_ndtr special.ndtri special.entr special.xlog1py special.zeta special.airy_ai special.bessel_j0
    special.bessel_j1 special.bessel_y0 special.bessel_y1 special.modified_bessel_i0 special.modified_bessel_i1
    special.modified_bessel_k0 special.modified_bessel_k1 special.scaled_modified_bessel_k0
    special.scaled_modified_bessel_k1 special.spherical_bessel_j0 special.chebyshev_polynomial_t
    special.chebyshev_polynomial_u special.chebyshev_polynomial_v special.chebyshev_polynomial_w
    special.shifted_chebyshev_polynomial_t special.shifted_chebyshev_polynomial_u special.shifted_chebyshev_polynomial_v
    special.shifted_chebyshev_polynomial_w special.hermite_polynomial_h special.hermite_polynomial_he
    special.laguerre_polynomial_l special.legendre_polynomial_p
    """.split()  # noqa: SIM905
)
DTYPES = [torch.float32, torch.float64, torch.int64, torch.bool]
SPECIAL_DTYPES = [torch.float32, torch.float64]
SAMPLES_PER_DTYPE = 6
TOLERANCES = {torch.float32: {"rtol": 1e-4, "atol": 1e-5}}


def full_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


ALL_NAMES = MORE_OPINFO_NAMES | SPECIAL_OPINFO_NAMES
OPINFOS = {
    full_name(op): op
    for op in op_db
    if (full_name(op) in ALL_NAMES or op.name in ALL_NAMES) and any(d in op.supported_dtypes("cpu") for d in DTYPES)
}
DIFFERENTIABLE = [
    name
    for name, op in OPINFOS.items()
    if op.supports_autograd and torch.float32 in op.supported_backward_dtypes("cpu")
]


def test_every_listed_name_has_an_opinfo():
    """Guards the list itself: a misspelt name would leave its operator out silently."""
    assert ALL_NAMES - {name for op in OPINFOS.values() for name in (op.name, full_name(op))} == set()


@pytest.mark.parametrize("name", OPINFOS)
def test_opinfo_samples_match_cpu(name):
    op = OPINFOS[name]
    dtypes = SPECIAL_DTYPES if op.name in SPECIAL_OPINFO_NAMES else DTYPES
    failures = opinfo_failures(op, dtypes, SAMPLES_PER_DTYPE, TOLERANCES)
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_opinfo_gradients_match_cpu(name):
    """The gradient of the sum of the floating outputs with respect to every input that requires grad."""
    failures = opinfo_failures(OPINFOS[name], [torch.float32], SAMPLES_PER_DTYPE, TOLERANCES, gradients=True)
    assert not failures, "\n\n".join(failures)
