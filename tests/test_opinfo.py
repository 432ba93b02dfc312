"""PyTorch's own OpInfo samples for the elementwise operators, on foo against the CPU: the first samples of
each supported dtype (float32, float64, float16, int64, bool), moved to foo with their strides, must give
the CPU's results, or raise the CPU's exception type, without any fallback to the CPU.
"""

import pytest
import torch
from conftest import opinfo_failures
from torch.testing._internal.common_methods_invocations import op_db

pytestmark = pytest.mark.usefixtures("no_fallback")

# The OpInfo names of the operators of the elementwise table (test_elementwise.py).
ELEMENTWISE_OPINFO_NAMES = set(
    """
    abs neg sign sgn reciprocal sqrt rsqrt square exp exp2 expm1 log log2 log10 log1p
    sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf erfc erfinv sigmoid logit
    floor ceil round trunc frac isnan isinf isfinite signbit nan_to_num bitwise_not logical_not
    deg2rad rad2deg sinc positive clamp clamp_min clamp_max
    add sub rsub mul div true_divide floor_divide remainder fmod pow float_power atan2 hypot
    maximum minimum fmax fmin eq ne lt le gt ge logical_and logical_or logical_xor
    bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift
    copysign heaviside nextafter xlogy logaddexp lerp where addcmul addcdiv masked_fill
    nn.functional.relu nn.functional.gelu nn.functional.silu nn.functional.mish nn.functional.softplus
    nn.functional.hardtanh nn.functional.hardsigmoid nn.functional.hardswish nn.functional.elu
    nn.functional.selu nn.functional.celu nn.functional.leaky_relu nn.functional.logsigmoid
    nn.functional.threshold
    """.split()  # noqa: SIM905
)
OPINFOS = {
    op.name + (f".{op.variant_test_name}" if op.variant_test_name else ""): op
    for op in op_db
    if op.name in ELEMENTWISE_OPINFO_NAMES
}
# NOTE: bfloat16 is left out to keep the file fast; the elementwise table covers it.
DTYPES = [torch.float32, torch.float64, torch.float16, torch.int64, torch.bool]
SAMPLES_PER_DTYPE = 8
TOLERANCES = {torch.float16: {"rtol": 1e-3, "atol": 1e-3}}


def test_every_elementwise_op_has_an_opinfo():
    assert ELEMENTWISE_OPINFO_NAMES - {op.name for op in OPINFOS.values()} == set()


@pytest.mark.parametrize("name", OPINFOS)
def test_opinfo_samples_match_cpu(name):
    failures = opinfo_failures(OPINFOS[name], DTYPES, SAMPLES_PER_DTYPE, TOLERANCES)
    assert not failures, "\n\n".join(failures)
