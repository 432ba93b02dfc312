"""Reflection and replication padding against the CPU, forward values and the input's gradient: 1-d, 2-d and 3-d,
batched and unbatched, asymmetric, reflect padding of the largest size allowed (the dim's size - 1), replicate padding
beyond the input's size, negative padding and strided inputs; and the error of reflect padding as large as the input.
Nothing may fall back to the CPU.
"""

import pytest
import torch
import torch.nn.functional as F
from conftest import FOO, check_gradients, dtype_id, randn, run_like_cpu

pytestmark = pytest.mark.usefixtures("no_fallback")

# name: (input shape, pad); the padded dims are the last len(pad) // 2, last dim first.
PAD_CASES = {
    "1d": ((2, 3, 6), (2, 1)),
    "1d_unbatched": ((3, 6), (0, 3)),
    "1d_size_minus_1": ((2, 3, 6), (5, 5)),
    "1d_negative": ((2, 3, 6), (-2, 3)),
    "2d": ((2, 3, 5, 4), (1, 2, 3, 0)),
    "2d_unbatched": ((3, 5, 4), (2, 1, 1, 2)),
    "2d_size_minus_1": ((2, 3, 5, 4), (3, 3, 4, 4)),
    "3d": ((2, 2, 4, 3, 5), (1, 2, 2, 1, 0, 3)),
    "3d_unbatched": ((2, 4, 3, 5), (3, 0, 1, 2, 2, 1)),
    "3d_size_minus_1": ((1, 2, 4, 3, 5), (4, 4, 2, 2, 3, 3)),
}
# Replicate padding may be larger than the input.
REPLICATE_CASES = {
    "1d_beyond_size": ((2, 3, 4), (6, 9)),
    "2d_beyond_size": ((2, 3, 2, 3), (5, 4, 3, 6)),
    "3d_beyond_size": ((1, 2, 2, 3, 2), (3, 4, 5, 2, 3, 4)),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize(
    ("mode", "case"),
    [(mode, case) for mode in ("reflect", "replicate") for case in PAD_CASES]
    + [("replicate", case) for case in REPLICATE_CASES],
    ids=lambda v: v,
)
def test_padding_and_gradient_match_cpu(mode, case, dtype):
    shape, pad = {**PAD_CASES, **REPLICATE_CASES}[case]
    check_gradients(lambda x: F.pad(x, pad, mode=mode), [randn(*shape, dtype=dtype)])


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_padding_of_transposed_input_matches_cpu(dims, mode):
    """The padded dims of a view whose last two dims are swapped."""
    x = randn(2, 3, 4, 5, 6)[(0,) * (3 - dims)].transpose(-1, -2)
    assert not x.is_contiguous()
    check_gradients(lambda x: F.pad(x, (2, 3, 1, 3, 3, 0)[: 2 * dims], mode=mode), [x])


# name: (input shape, pad) with a reflect padding as large as its dim
REFLECT_ERROR_CASES = {
    "1d_left": ((2, 3, 5), (5, 0)),
    "1d_right": ((3, 5), (1, 6)),
    "2d_height": ((2, 3, 5, 4), (0, 0, 5, 0)),
    "2d_width": ((2, 3, 5, 4), (4, 1, 1, 1)),
    "3d_depth": ((1, 2, 4, 3, 5), (0, 0, 0, 0, 4, 0)),
    "3d_height": ((1, 2, 4, 3, 5), (0, 0, 0, 3, 0, 0)),
}


@pytest.mark.parametrize("case", REFLECT_ERROR_CASES)
def test_reflect_padding_as_large_as_the_input_raises_like_cpu(case):
    shape, pad = REFLECT_ERROR_CASES[case]
    x = randn(*shape)
    outcome = run_like_cpu(lambda: F.pad(x, pad, mode="reflect"), lambda: F.pad(x.to(FOO), pad, mode="reflect"))
    assert outcome is None, "the CPU accepted the padding"
