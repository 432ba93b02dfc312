"""Training on foo against the CPU. The gradients of the reductions, softmax and matrix products a training step
uses: the same inputs (contiguous, or column-major) with requires_grad on both devices, backward with the same random
incoming gradient, every input's .grad compared. Then the two examples, training on foo and on the CPU from the same
weights. No test may fall back to the CPU, backward included.
"""

import copy
import math
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from conftest import FOO, assert_close_to_cpu, dtype_id, forward_backward

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for examples/

from examples import train_cnn, train_transformer

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

# ---- gradients of a training step's operators ------------------------------------------------------------------------

TOLERANCES = {torch.float32: {"rtol": 1e-4, "atol": 1e-5}}


def training_step(x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, b2: Tensor) -> Tensor:
    """A two-layer classifier's cross-entropy loss on fixed one-hot targets (NLL's indexing would fall back)."""
    logits = F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)
    targets = F.one_hot(torch.arange(x.shape[0]) % w2.shape[0], w2.shape[0]).to(x.device, x.dtype)
    return -(F.log_softmax(logits, dim=1) * targets).sum(1).mean()


# name: (fn, input shapes, integer-valued inputs: ties for amax)
GRADIENTS = {
    "sum": (lambda x: x.sum(), [(5, 7)], False),
    "sum_dim": (lambda x: x.sum(1), [(5, 7)], False),
    "sum_dims_keepdim": (lambda x: x.sum((0, 2), keepdim=True), [(3, 5, 7)], False),
    "mean": (lambda x: x.mean(), [(5, 7)], False),
    "mean_dim": (lambda x: x.mean(0), [(5, 7)], False),
    "amax_ties": (lambda x: x.amax(1), [(5, 7)], True),
    "amax_whole_ties": (lambda x: x.amax(), [(5, 7)], True),
    "var": (lambda x: x.var(1), [(5, 7)], False),
    "var_correction_0": (lambda x: x.var((0, 1), correction=0), [(5, 7)], False),
    "std": (lambda x: x.std(0), [(5, 7)], False),
    "norm": (lambda x: x.norm(dim=1), [(5, 7)], False),
    "vector_norm_3.5": (lambda x: torch.linalg.vector_norm(x, 3.5), [(5, 7)], False),
    "logsumexp": (lambda x: x.logsumexp(1), [(5, 7)], False),
    "softmax": (lambda x: F.softmax(x, dim=1), [(5, 7)], False),
    "softmax_dim_0": (lambda x: F.softmax(x, dim=0), [(5, 7)], False),
    "log_softmax": (lambda x: F.log_softmax(x, dim=1), [(5, 7)], False),
    "mm": (torch.mm, [(5, 7), (7, 3)], False),
    "bmm": (torch.bmm, [(2, 5, 7), (2, 7, 3)], False),
    "linear": (F.linear, [(4, 5, 7), (3, 7), (3,)], False),
    "linear_no_bias": (F.linear, [(5, 7), (3, 7)], False),
    "training_step": (training_step, [(6, 7), (8, 7), (8,), (4, 8), (4,)], False),
}


def column_major(t: Tensor) -> Tensor:
    """The same values with the last two dims laid out in the opposite order (a transposed view)."""
    return t.mT.contiguous().mT if t.dim() >= 2 else t


@pytest.mark.parametrize("layout", ["contiguous", "column_major"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("name", GRADIENTS)
def test_gradient_matches_cpu(name, dtype, layout):
    fn, shapes, integers = GRADIENTS[name]
    g = torch.Generator().manual_seed(0)
    inputs = [torch.randn(shape, generator=g, dtype=torch.float64) for shape in shapes]
    if integers:
        inputs = [(3 * t).round() for t in inputs]
    inputs = [t.to(dtype) for t in inputs]
    if layout == "column_major":
        inputs = [column_major(t) for t in inputs]
    grad = torch.randn(fn(*inputs).shape, generator=g, dtype=torch.float64).to(dtype)
    foo_inputs = [t.to(FOO) for t in inputs]
    assert [t.stride() for t in foo_inputs] == [t.stride() for t in inputs]
    assert_close_to_cpu(forward_backward(fn, foo_inputs, grad), forward_backward(fn, inputs, grad), TOLERANCES)


# ---- the examples ----------------------------------------------------------------------------------------------------

EXAMPLES = {
    "train_cnn": (train_cnn, lambda: train_cnn.SmallCNN()),
    "train_transformer": (train_transformer, lambda: train_transformer.TinyLM()),
}


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_trains_like_cpu(example):
    """Three training steps on foo and on the CPU from the same weights, in eval() as the examples' main() (dropout
    off): the losses agree; with amp=True (float16 autocast and a GradScaler) foo's losses are finite."""
    module, make_model = EXAMPLES[example]
    torch.manual_seed(0)
    model = make_model().eval()
    batches = module.synthetic_batches(3)
    cpu = module.train(copy.deepcopy(model), "cpu", batches)
    foo = module.train(copy.deepcopy(model), "foo", batches)
    torch.testing.assert_close(torch.tensor(foo), torch.tensor(cpu), rtol=1e-3, atol=0)
    amp = module.train(copy.deepcopy(model), "foo", batches, amp=True)
    assert all(math.isfinite(loss) for loss in amp), amp
    torch.testing.assert_close(amp[0], cpu[0], rtol=2e-2, atol=0)
