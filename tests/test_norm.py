"""Batch, layer and group norm against the CPU, forward values and every input's gradient: training and eval with
running statistics updated in place (or none), with and without affine parameters, strided and channels-last inputs
(channels_last results exactly where the CPU's are), 16-bit inputs with 16-bit or float32 parameters (forward only),
and rows long enough that work-items share them; shape errors as the CPU's. Nothing may fall back to the CPU.
"""

import copy

import pytest
import torch
import torch.nn.functional as F
from conftest import (
    FOO,
    LOW_PRECISION,
    assert_channels_last_like_cpu,
    assert_close_to_cpu,
    check_forward,
    check_gradients,
    dtype_id,
    forward_backward,
    on,
    randn,
    run_like_cpu,
)
from torch import nn

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

# (Runs of 63 and 1230 elements a channel: normalize_blocks' and input_grad's eight-element steps and their tails.)
BATCH_NORM_SHAPES = {
    "2d": (6, 3),
    "3d": (4, 3, 5),
    "4d": (2, 3, 4, 5),
    "4d_runs_of_63": (3, 3, 7, 9),
    "4d_long_runs": (2, 3, 30, 41),
}


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_batch_norm_matches_cpu(dtype, shape, training, affine):
    x = randn(*BATCH_NORM_SHAPES[shape], dtype=dtype) * 2 + 1
    params = [randn(3, dtype=dtype, seed=1), randn(3, dtype=dtype, seed=2)] if affine else []
    running = {}
    for device in ("cpu", FOO):
        mean, var = randn(3, dtype=dtype, seed=3).to(device), (randn(3, dtype=dtype, seed=4).abs() + 0.5).to(device)
        running[torch.device(device).type] = (mean, var)

        def fn(x: Tensor, *params: Tensor, mean: Tensor = mean, var: Tensor = var) -> Tensor:
            return F.batch_norm(x, mean, var, *params, training=training, momentum=0.3, eps=1e-4)

        inputs = [on(device, t) for t in [x, *params]]
        output, grads = forward_backward(fn, inputs, randn(*x.shape, dtype=dtype, seed=5))
        running[torch.device(device).type] += (output, grads)
    # running_mean and running_var updated in place like the CPU's (unchanged in eval), output and gradients (the
    # parameters' gradients sum 2460 terms a channel at the longest runs, in another order than the CPU's)
    assert_close_to_cpu(running["foo"], running["cpu"], {torch.float32: {"rtol": 1e-5, "atol": 1e-4}})
    if not training:
        assert torch.equal(running["cpu"][0], randn(3, dtype=dtype, seed=3))


@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
def test_batch_norm_without_running_stats_matches_cpu(shape):
    x = randn(*BATCH_NORM_SHAPES[shape])
    check_gradients(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [x, randn(3), randn(3, seed=2)])


@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
def test_batch_norm_of_channels_last_input_is_channels_last_like_cpu(training):
    """The output and the input's gradient of a channels_last input: channels_last exactly when the CPU's are."""
    x = (randn(2, 3, 4, 5) * 2 + 1).contiguous(memory_format=torch.channels_last)
    stats = (None, None) if training else (randn(3, seed=3), randn(3, seed=4).abs() + 0.5)

    def fn(x: Tensor, w: Tensor, b: Tensor, mean: Tensor | None, var: Tensor | None) -> Tensor:
        return F.batch_norm(x, mean, var, w, b, training=training, eps=1e-4)

    actual, expected = check_gradients(fn, [x, randn(3, seed=1), randn(3, seed=2)], stats)
    assert expected[0].is_contiguous(memory_format=torch.channels_last)
    assert_channels_last_like_cpu(actual, expected)


@pytest.mark.parametrize("momentum", [0.1, 0.5, None], ids=["momentum_0.1", "momentum_0.5", "cumulative"])
@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
def test_batch_norm_module_running_stats_match_cpu(shape, momentum):
    """Four training batches update running_mean/var (momentum None: their cumulative average), then eval."""
    module = (nn.BatchNorm1d if len(BATCH_NORM_SHAPES[shape]) < 4 else nn.BatchNorm2d)(3, momentum=momentum)
    batches = [randn(*BATCH_NORM_SHAPES[shape], seed=s) * (s + 1) + s for s in range(4)]
    results = {}
    for device in ("cpu", FOO):
        m = copy.deepcopy(module).to(device)
        outputs = [m(x.to(device)) for x in batches]
        outputs.append(m.eval()(batches[0].to(device)))
        results[torch.device(device).type] = (outputs, m.running_mean, m.running_var, m.num_batches_tracked)
    assert_close_to_cpu(results["foo"], results["cpu"])


@pytest.mark.parametrize("params_dtype", ["same", "float32"])
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_batch_norm_of_16_bit_input_matches_cpu(dtype, training, params_dtype):
    """16-bit input with 16-bit parameters and running statistics, or float32 ones (the mix autocast produces)."""
    x = randn(2, 3, 4, 5, dtype=dtype) * 3 + 2
    pdt = dtype if params_dtype == "same" else torch.float32
    stats = [randn(3, seed=1, dtype=pdt), randn(3, seed=2, dtype=pdt).abs() + 0.5]

    def fn(x: Tensor, mean: Tensor, var: Tensor, w: Tensor, b: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return F.batch_norm(x, mean, var, w, b, training=training), mean, var

    check_forward(fn, [x, *stats, randn(3, seed=3, dtype=pdt), randn(3, seed=4, dtype=pdt)], LOW_PRECISION)


LAYER_NORM_SHAPES = {"last_dim": (5,), "last_two_dims": (4, 5)}


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("affine", ["affine", "weight_only", "no_affine"])
@pytest.mark.parametrize("normalized", LAYER_NORM_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_layer_norm_matches_cpu(dtype, normalized, affine, layout):
    shape = LAYER_NORM_SHAPES[normalized]
    x = randn(2, 3, 5, 4, dtype=dtype).transpose(-1, -2) if layout == "transposed" else randn(2, 3, 4, 5, dtype=dtype)
    params = {"affine": 2, "weight_only": 1, "no_affine": 0}[affine]
    inputs = [x, randn(*shape, dtype=dtype, seed=1), randn(*shape, dtype=dtype, seed=2)][: 1 + params]
    check_gradients(lambda x, *p: F.layer_norm(x, shape, *p, eps=1e-4), inputs)


@pytest.mark.parametrize("params_dtype", ["same", "float32"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_layer_norm_of_16_bit_input_matches_cpu(dtype, params_dtype):
    params = [randn(4, 5, seed=s, dtype=dtype if params_dtype == "same" else torch.float32) for s in (1, 2)]
    check_forward(
        lambda x, w, b: F.layer_norm(x, (4, 5), w, b), [randn(2, 3, 4, 5, dtype=dtype) * 4, *params], LOW_PRECISION
    )


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("weight", ["weight", "no_weight"])
@pytest.mark.parametrize("normalized", LAYER_NORM_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_rms_norm_matches_cpu(dtype, normalized, weight, layout):
    shape = LAYER_NORM_SHAPES[normalized]
    x = randn(2, 3, 5, 4, dtype=dtype).transpose(-1, -2) if layout == "transposed" else randn(2, 3, 4, 5, dtype=dtype)
    inputs = [x, randn(*shape, dtype=dtype, seed=1)][: 2 if weight == "weight" else 1]
    check_gradients(lambda x, *w: F.rms_norm(x, shape, *w), inputs)
    check_gradients(lambda x, *w: F.rms_norm(x, shape, *w, eps=1e-3), inputs)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_rms_norm_of_16_bit_input_long_rows_and_no_leading_dims_match_cpu(dtype):
    check_forward(
        lambda x, w: F.rms_norm(x, (4, 5), w),
        [randn(2, 3, 4, 5, dtype=dtype) * 4, randn(4, 5, seed=1, dtype=dtype)],
        LOW_PRECISION,
    )
    check_gradients(lambda x, w: F.rms_norm(x, (3000,), w), [randn(3, 3000), randn(3000, seed=1)])
    # No leading dims: the weight's gradient is not summed over any.
    check_gradients(lambda x, w: F.rms_norm(x, (4, 5), w), [randn(4, 5), randn(4, 5, seed=1)])


def test_rms_norm_returns_float32_rstd_in_the_stats_shape():
    x = randn(2, 3, 4, dtype=torch.float16)
    out, rstd = torch._fused_rms_norm(x.to(FOO), [4], None, None)
    expected = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + torch.finfo(torch.float32).eps)
    assert out.dtype == torch.float16 and rstd.dtype == torch.float32 and rstd.shape == (2, 3, 1)
    torch.testing.assert_close(rstd.cpu(), expected)


LONG_BLOCKS = {
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (150000,), w, b), [(2, 150000), (150000,), (150000,)]),
    "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [(2, 2, 300, 300), (2,), (2,)]),
    "batch_norm_eval": (
        lambda x, w, b: F.batch_norm(x, torch.zeros_like(w), torch.ones_like(w), w, b),
        [(2, 2, 300, 300), (2,), (2,)],
    ),
}


@pytest.mark.parametrize("case", LONG_BLOCKS)
def test_normalization_of_few_long_rows_matches_cpu(case):
    """Two rows of 150000 elements, or two channels of 180000: every work-item shares the elements, so no
    work-item loops over a whole row (a driver that ends loops early gave wrong values), and the statistics
    sum in blocks, so they stay as accurate as the CPU's. The weight and bias gradients are sums of 360000 terms,
    which the CPU rounds differently (each device is within 2e-6 of a float64 reference)."""
    fn, shapes = LONG_BLOCKS[case]
    inputs = [randn(*shape, seed=i) * (i + 1) + i for i, shape in enumerate(shapes)]
    check_gradients(fn, inputs, tolerances={torch.float32: {"rtol": 1e-4, "atol": 1e-4}})


# Many rows, so that the weight and bias gradients sum in several chunks of rows, the last one partial
# (1001 rows), over rows of 8 columns, rows not a multiple of 8 (37) and shorter than 8 (5).
PARAMETER_GRAD_SHAPES = {"1001x64": (1001, 64), "7x43x37": (7, 43, 37), "500x5": (500, 5)}


@pytest.mark.parametrize("op", ["layer_norm", "rms_norm"])
@pytest.mark.parametrize("shape", PARAMETER_GRAD_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=dtype_id)
def test_parameter_gradients_over_many_rows_match_cpu(dtype, shape, op):
    x = randn(*PARAMETER_GRAD_SHAPES[shape], dtype=dtype) * 2 + 1
    n = x.shape[-1]
    if op == "layer_norm":
        params = [randn(n, dtype=dtype, seed=1), randn(n, dtype=dtype, seed=2)]
        fn = lambda x, w, b: F.layer_norm(x, (n,), w, b)
    else:
        params = [randn(n, dtype=dtype, seed=1)]
        fn = lambda x, w: F.rms_norm(x, (n,), w)
    if dtype in (torch.float16, torch.bfloat16):
        # Sums of 16-bit terms in another order than the CPU's: against float64's, rounded to dtype.
        grad = randn(*x.shape, dtype=dtype, seed=99)
        output, grads = forward_backward(fn, [t.double() for t in [x, *params]], grad.double())
        expected = (output.to(dtype), [g.to(dtype) for g in grads])
        actual = forward_backward(fn, [on(FOO, t) for t in [x, *params]], grad)
        assert_close_to_cpu(actual, expected, LOW_PRECISION)
    else:
        check_gradients(fn, [x, *params], tolerances={torch.float32: {"rtol": 1e-4, "atol": 1e-4}})


GROUP_NORM_SHAPES = {"2d": (4, 6), "3d": (3, 6, 7), "4d": (2, 6, 4, 5)}


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "no_affine"])
@pytest.mark.parametrize(
    ("shape", "groups"),
    # not 2-d with 6 groups: groups of one element, whose gradient CPU computes as rounding noise instead of 0
    [(shape, groups) for shape in GROUP_NORM_SHAPES for groups in (1, 2, 6) if (shape, groups) != ("2d", 6)],
    ids=lambda v: f"{v}_groups" if isinstance(v, int) else v,
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_group_norm_matches_cpu(dtype, shape, groups, affine):
    x = randn(*GROUP_NORM_SHAPES[shape], dtype=dtype) * 2 - 1
    params = [randn(6, dtype=dtype, seed=1), randn(6, dtype=dtype, seed=2)] if affine else []
    check_gradients(lambda x, *p: F.group_norm(x, groups, *p, eps=1e-4), [x, *params])


def test_group_norm_of_channels_last_input_matches_cpu():
    x = randn(2, 6, 4, 5).contiguous(memory_format=torch.channels_last)
    check_gradients(lambda x, w, b: F.group_norm(x, 3, w, b), [x, randn(6, seed=1), randn(6, seed=2)])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=dtype_id)
def test_group_norm_of_16_bit_input_matches_cpu(dtype):
    inputs = [randn(2, 6, 4, 5, dtype=dtype) * 4, randn(6, seed=1, dtype=dtype), randn(6, seed=2, dtype=dtype)]
    check_forward(lambda x, w, b: F.group_norm(x, 3, w, b), inputs, LOW_PRECISION)


@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
def test_sync_batch_norm_steps_over_two_shards_match_batch_norm_of_the_whole_batch(layout, affine):
    """torch.nn.SyncBatchNorm's five ops, as two processes use them on two shards of a batch (the all-gather and
    all-reduce between the processes done here by hand), against batch_norm of the whole batch on the CPU."""
    x, grad = randn(5, 3, 4, 6, seed=1) * 3 + 1, randn(5, 3, 4, 6, seed=2)
    weight, bias = (randn(3, seed=3), randn(3, seed=4)) if affine else (None, None)
    eps, momentum = 1e-5, 0.1
    shards = [x[:2], x[2:]]
    if layout == "channels_last":
        shards = [s.contiguous(memory_format=torch.channels_last) for s in shards]
    fw, fb = (on(FOO, weight), on(FOO, bias)) if affine else (None, None)
    running = [torch.zeros(3, device=FOO), torch.ones(3, device=FOO)]

    stats = [torch.batch_norm_stats(on(FOO, s), eps) for s in shards]
    counts = torch.tensor([float(s.numel() // 3) for s in shards], device=FOO)
    mean, invstd = torch.batch_norm_gather_stats_with_counts(
        on(FOO, x),
        torch.stack([m for m, _ in stats]),
        torch.stack([v for _, v in stats]),
        *running,
        momentum,
        eps,
        counts,
    )
    out = torch.cat([torch.batch_norm_elemt(on(FOO, s), fw, fb, mean, invstd, eps) for s in shards])
    reduced = [
        torch.batch_norm_backward_reduce(on(FOO, g), on(FOO, s), mean, invstd, fw, True, affine, affine)
        for g, s in zip([grad[:2], grad[2:]], shards)
    ]
    sum_dy, sum_dy_xmu = sum(r[0] for r in reduced), sum(r[1] for r in reduced)
    grad_input = torch.cat(
        [
            torch.batch_norm_backward_elemt(on(FOO, g), on(FOO, s), mean, invstd, fw, sum_dy, sum_dy_xmu, counts.int())
            for g, s in zip([grad[:2], grad[2:]], shards)
        ]
    )

    cpu_running = [torch.zeros(3), torch.ones(3)]
    leaves = [t.clone().requires_grad_() if t is not None else None for t in (x, weight, bias)]
    expected = F.batch_norm(leaves[0], *cpu_running, leaves[1], leaves[2], True, momentum, eps)
    expected.backward(grad)
    assert_close_to_cpu(out, expected.detach())
    assert_close_to_cpu(grad_input, leaves[0].grad)
    assert_close_to_cpu(mean, x.mean((0, 2, 3)))
    assert_close_to_cpu(invstd, (x.var((0, 2, 3), correction=0) + eps).rsqrt())
    for r, c in zip(running, cpu_running):
        assert_close_to_cpu(r, c)
    if affine:
        assert_close_to_cpu(sum(r[2] for r in reduced), leaves[1].grad)
        assert_close_to_cpu(sum(r[3] for r in reduced), leaves[2].grad)
    else:
        assert all(r[2] is None and r[3] is None for r in reduced)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=dtype_id)
@pytest.mark.parametrize("dim", [0, 2, None])
def test_weight_norm_matches_cpu(dtype, dim):
    """torch.nn.utils.parametrizations.weight_norm of a convolution (Wav2Vec2's positional one) against the CPU,
    forward and backward: the first and last dims take the fused _weight_norm_interface pair, None (the whole
    tensor) the composite path."""
    tolerance = {"rtol": 2e-2, "atol": 2e-2} if dtype == torch.bfloat16 else {}
    torch.manual_seed(0)
    cpu = nn.utils.parametrizations.weight_norm(nn.Conv1d(6, 4, 3).to(dtype), dim=dim)
    foo = copy.deepcopy(cpu).to(FOO)
    x = randn(2, 6, 9, dtype=dtype)
    outputs = [m(t).sum() for m, t in ((cpu, x), (foo, x.to(FOO)))]
    for out in outputs:
        out.backward()
    torch.testing.assert_close(outputs[1].cpu(), outputs[0], **tolerance)
    originals = cpu.parametrizations.weight, foo.parametrizations.weight
    for name in ("original0", "original1"):  # g, v
        expected, actual = (getattr(p, name).grad for p in originals)
        torch.testing.assert_close(actual.cpu(), expected, **tolerance)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=dtype_id)
def test_weight_norm_of_a_vector_matches_cpu(dtype):
    """A 1-D weight (parametrizations.weight_norm(m, "bias")): dim 0 is also the last, no other dim is summed, so
    the norm is each element's magnitude."""
    tolerance = {"rtol": 2e-2, "atol": 2e-2} if dtype == torch.bfloat16 else {}
    v, g = torch.tensor([3.0, -4.0, 2.0], dtype=dtype), torch.tensor([1.0, 2.0, -3.0], dtype=dtype)
    expected = torch._weight_norm_interface(v, g, 0)
    actual = torch._weight_norm_interface(v.to(FOO), g.to(FOO), 0)
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a.cpu(), e, **tolerance, check_dtype=False)
    grad = torch.tensor([0.5, -1.0, 2.0], dtype=dtype)
    expected = torch.ops.aten._weight_norm_interface_backward(grad, v, g, expected[1], 0)
    actual = torch.ops.aten._weight_norm_interface_backward(grad.to(FOO), v.to(FOO), g.to(FOO), actual[1], 0)
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a.cpu(), e, **tolerance, check_dtype=False)


SHAPE_ERRORS = {
    "weight_of_another_shape": lambda d: F.layer_norm(torch.ones(2, 3, device=d), (3,), torch.ones(2, device=d)),
    "bias_of_another_shape": lambda d: F.layer_norm(
        torch.ones(2, 3, device=d), (3,), torch.ones(3, device=d), torch.zeros(4, device=d)
    ),
    "empty_normalized_shape": lambda d: torch.native_layer_norm(torch.ones(2, 3, device=d), (), None, None, 1e-5),
    "input_of_another_shape": lambda d: F.layer_norm(torch.ones(2, 3, device=d), (2,)),
    "rms_norm_weight_of_another_shape": lambda d: F.rms_norm(torch.ones(2, 3, device=d), (3,), torch.ones(2, device=d)),
    "rms_norm_more_dims_than_the_input": lambda d: F.rms_norm(torch.ones(3, device=d), (1, 3)),
}


@pytest.mark.parametrize("call", SHAPE_ERRORS.values(), ids=SHAPE_ERRORS.keys())
def test_norm_shape_errors_are_the_cpus(call):
    """The kernels read weight and bias as normalized_shape's elements: shapes that differ must raise, as on the CPU."""
    assert run_like_cpu(lambda: call("cpu"), lambda: call(FOO), same_message=True) is None
