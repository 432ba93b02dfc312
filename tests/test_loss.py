"""Cross-entropy and NLL loss against the CPU, forward values and the input's gradient: every reduction, class
weights, ignore_index and label smoothing, 1-d and strided inputs, only ignored targets (a NaN mean), and
out-of-range targets, which raise the CPU's IndexError (at the next synchronisation with the device, as CUDA's
device-side asserts); the regression losses (smooth L1, Huber, MSE) at their pieces' edges and at NaN. Nothing may
fall back to the CPU.
"""

import pytest
import torch
import torch.nn.functional as F
from conftest import FOO, check_gradients, dtype_id, randn

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

CLASSES = 5
TARGETS = torch.tensor([0, 4, 2, 2, 1, 3, 4])  # 7 samples, class 2 twice


@pytest.mark.parametrize("label_smoothing", [0.0, 0.2], ids=["no_smoothing", "smoothing_0.2"])
@pytest.mark.parametrize("ignore_index", [-100, 2], ids=["no_ignored", "ignore_2"])
@pytest.mark.parametrize("weight", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_cross_entropy_matches_cpu(dtype, reduction, weight, ignore_index, label_smoothing):
    weights = (torch.rand(CLASSES, generator=torch.Generator().manual_seed(1), dtype=dtype) + 0.5,) if weight else ()

    def fn(x: Tensor, targets: Tensor, *weights: Tensor) -> Tensor:
        return F.cross_entropy(
            x,
            targets,
            *weights,
            ignore_index=ignore_index,
            reduction=reduction,
            label_smoothing=label_smoothing,
        )

    check_gradients(fn, [randn(len(TARGETS), CLASSES, dtype=dtype) * 2], (TARGETS, *weights))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_of_1d_input_matches_cpu(reduction):
    x = F.log_softmax(randn(CLASSES), 0)
    check_gradients(lambda x, t: F.nll_loss(x, t, reduction=reduction), [x], (torch.tensor(3),))


@pytest.mark.parametrize("weight", [False, True], ids=["unweighted", "weighted"])
def test_nll_loss_of_strided_input_matches_cpu(weight):
    x = randn(CLASSES, len(TARGETS)).t()
    weights = (torch.linspace(0.5, 2, CLASSES),) if weight else ()
    check_gradients(lambda x, t, *w: F.nll_loss(x, t, *w), [x], (TARGETS, *weights))


@pytest.mark.parametrize(
    "targets",
    [[0, CLASSES, 1], [0, -1, 1], [-100, 7, 0], [CLASSES + 100]],
    ids=["classes", "minus_1", "beyond_an_ignored_one", "single"],
)
@pytest.mark.parametrize("loss", [F.cross_entropy, F.nll_loss], ids=["cross_entropy", "nll_loss"])
def test_out_of_range_targets_raise_index_error_like_cpu(loss, targets):
    """The CPU raises at the op; foo's kernel reports the target and the next synchronisation raises, also when the
    backward ran before it."""
    x, t = randn(len(targets), CLASSES), torch.tensor(targets)
    with pytest.raises(IndexError, match="out of bounds"):
        loss(x, t)
    leaf = x.to(FOO).requires_grad_()
    loss(leaf, t.to(FOO)).sum().backward()
    with pytest.raises(IndexError, match="target out of bounds"):
        leaf.grad.cpu()
    assert torch.isfinite(leaf.grad.cpu()).all()  # reported once; the backward wrote no bad row


@pytest.mark.parametrize(
    ("loss", "label_smoothing"),
    [("cross_entropy", 0.0), ("cross_entropy", 0.1), ("nll_loss", 0.0)],
    ids=["cross_entropy", "cross_entropy_smoothing_0.1", "nll_loss"],
)
def test_mean_loss_of_only_ignored_targets_is_nan_like_cpu(loss, label_smoothing):
    kwargs = {"label_smoothing": label_smoothing} if label_smoothing else {}
    fn = getattr(F, loss)
    targets = torch.full((4,), -100)
    check_gradients(lambda x, t: fn(x, t, **kwargs), [randn(4, CLASSES)], (targets,))
    assert fn(randn(4, CLASSES).to(FOO), targets.to(FOO), **kwargs).isnan().item()


# Differences at each piece's edges (0, +-0.5, +-1 with beta or delta 1) and non-finite ones.
EDGE_DIFFS = [float("nan"), float("inf"), -float("inf"), 0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.0]


@pytest.mark.parametrize(
    ("name", "parameter"),
    [
        ("smooth_l1_loss", 0.0),
        ("smooth_l1_loss", 1.0),
        ("smooth_l1_loss", 0.5),
        ("huber_loss", 1.0),
        ("mse_loss", None),
    ],
)
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
def test_regression_losses_and_their_gradients_at_edges_and_nan_match_cpu(name, parameter, reduction):
    """The ATen ops themselves (F.smooth_l1_loss takes l1_loss for beta 0): the CPU's pieces at their edges
    (smooth_l1's slope is -1 at 0 when beta is 0) and NaN for a NaN difference."""
    target = torch.arange(len(EDGE_DIFFS)) * 0.25 - 1  # exact, as are the differences
    x = torch.tensor(EDGE_DIFFS) + target
    extra = () if parameter is None else (parameter,)
    forward, backward = getattr(torch.ops.aten, name), getattr(torch.ops.aten, name + "_backward")
    for f in (
        lambda d, x, t: forward(x, t, reduction, *extra),
        lambda d, x, t: backward(
            torch.full((len(x),) if reduction == 0 else (), 0.7, device=d), x, t, reduction, *extra
        ),
    ):
        torch.testing.assert_close(f(FOO, x.to(FOO), target.to(FOO)).cpu(), f("cpu", x, target), equal_nan=True)
