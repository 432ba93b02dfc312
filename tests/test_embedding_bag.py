"""nn.EmbeddingBag on foo against the CPU, with the CPU fallback forbidden: sum, mean and max bags with and without
padding_idx, per-sample weights, include_last_offset, 2-d inputs, frequency-scaled gradients, empty bags, strided
weights, every float dtype and both index dtypes; the extra outputs where CPU defines them; a training loop; and
errors of the CPU's exception type.
"""

import pytest
import torch
import torch.nn.functional as F
from conftest import FLOAT_DTYPES, FOO, LOW_PRECISION, check_gradients, dtype_id, randn, run_like_cpu

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

# 11 lookups into 9 rows in 5 bags: bag 2 is empty, bag 3 holds only row 2 (the padding row of some
# tests) and repeats appear within and across bags.
INDICES = torch.tensor([1, 4, 1, 0, 6, 2, 4, 8, 2, 3, 7])
OFFSETS = torch.tensor([0, 4, 8, 8, 9])
MODES = ["sum", "mean", "max"]

# 16-bit: CPU sums in the 16-bit dtype, foo in float32.
TOLERANCES = {**LOW_PRECISION, torch.float32: {"rtol": 1e-5, "atol": 1e-5}}


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64], ids=dtype_id)
@pytest.mark.parametrize("padding_idx", [None, 2], ids=["no_padding", "padding_2"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_embedding_bag_matches_cpu(dtype, mode, padding_idx, index_dtype):
    def fn(weight: Tensor, indices: Tensor, offsets: Tensor) -> Tensor:
        return F.embedding_bag(indices, weight, offsets, mode=mode, padding_idx=padding_idx)

    check_gradients(fn, [randn(9, 6, dtype=dtype)], (INDICES.to(index_dtype), OFFSETS.to(index_dtype)), TOLERANCES)


@pytest.mark.parametrize("padding_idx", [None, 2], ids=["no_padding", "padding_2"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_per_sample_weights_and_their_gradient_match_cpu(dtype, padding_idx):
    def fn(weight: Tensor, per_sample_weights: Tensor, indices: Tensor, offsets: Tensor) -> Tensor:
        return F.embedding_bag(
            indices, weight, offsets, mode="sum", per_sample_weights=per_sample_weights, padding_idx=padding_idx
        )

    inputs = [randn(9, 6, dtype=dtype), randn(len(INDICES), dtype=dtype, seed=1)]
    check_gradients(fn, inputs, (INDICES, OFFSETS), TOLERANCES)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_frequency_scaled_gradient_divides_by_each_index_count(mode):
    """Each lookup's gradient (its bag's, averaged in mean mode) divided by how often its index occurs, as an
    embedding's frequency-scaled gradient of the lookups' rows. CPU's embedding_bag divides some rows by a wrong
    count (indices [1, 1, 3] in one bag give row 3 half its gradient), so it is not the reference."""
    weight, grad = randn(9, 6), randn(len(OFFSETS), 6, seed=1)
    foo_weight = weight.to(FOO).requires_grad_()
    F.embedding_bag(INDICES.to(FOO), foo_weight, OFFSETS.to(FOO), mode=mode, scale_grad_by_freq=True).backward(
        grad.to(FOO)
    )
    bag_of_index = torch.bucketize(torch.arange(len(INDICES)), OFFSETS, right=True) - 1
    sizes = torch.bincount(bag_of_index, minlength=len(OFFSETS)).clamp(min=1).unsqueeze(1)
    rows = (grad / sizes if mode == "mean" else grad)[bag_of_index]
    cpu_weight = weight.clone().requires_grad_()
    F.embedding(INDICES, cpu_weight, scale_grad_by_freq=True).backward(rows)
    torch.testing.assert_close(foo_weight.grad.cpu(), cpu_weight.grad)


@pytest.mark.parametrize("mode", MODES)
def test_include_last_offset_matches_cpu(mode):
    def fn(weight: Tensor, indices: Tensor, offsets: Tensor) -> Tensor:
        return F.embedding_bag(indices, weight, offsets, mode=mode, include_last_offset=True)

    check_gradients(fn, [randn(9, 6)], (INDICES, torch.tensor([0, 4, 8, 8, 11])), TOLERANCES)
    if mode == "max":
        # A last offset short of the end: the last bag still runs to the end of the indices, as on CUDA and in
        # CPU's max mode (CPU's sum mode stops at the last offset; its mean mode sums to it and divides by the
        # count to the end).
        check_gradients(fn, [randn(9, 6)], (INDICES, torch.tensor([0, 4, 9])), TOLERANCES)


@pytest.mark.parametrize("mode", MODES)
def test_two_dimensional_input_is_one_bag_per_row(mode):
    def fn(weight: Tensor, indices: Tensor) -> Tensor:
        return F.embedding_bag(indices, weight, mode=mode)

    check_gradients(fn, [randn(9, 6)], (INDICES[:10].view(2, 5),), TOLERANCES)


@pytest.mark.parametrize("mode", MODES)
def test_strided_weight_matches_cpu(mode):
    def fn(weight: Tensor, indices: Tensor, offsets: Tensor) -> Tensor:
        return F.embedding_bag(indices, weight.t(), offsets, mode=mode)

    check_gradients(fn, [randn(6, 9)], (INDICES, OFFSETS), TOLERANCES)


@pytest.mark.parametrize("padding_idx", [-1, 2], ids=["no_padding", "padding_2"])
@pytest.mark.parametrize("mode", [1, 2], ids=["mean", "max"])
def test_bag_of_each_index_and_bag_sizes_match_cpu(mode, padding_idx):
    """The extra outputs where CPU computes them (mean and max); foo marks an empty bag's maxima -1, as CUDA."""
    weight = randn(9, 6)
    args = (INDICES, OFFSETS, False, mode, False, None, False, padding_idx)
    _, offset2bag, bag_size, max_indices = torch.ops.aten._embedding_bag(
        weight.to(FOO), *(a.to(FOO) for a in args[:2]), *args[2:]
    )
    _, cpu_offset2bag, cpu_bag_size, cpu_max_indices = torch.ops.aten._embedding_bag(weight, *args)
    assert torch.equal(offset2bag.cpu(), cpu_offset2bag)
    assert torch.equal(bag_size.cpu(), cpu_bag_size)
    if mode == 2:
        filled = cpu_bag_size > 0
        assert torch.equal(max_indices.cpu()[filled], cpu_max_indices[filled])
        assert (max_indices.cpu()[~filled] == -1).all()


@pytest.mark.parametrize("include_last_offset", [False, True], ids=["offsets", "last_offset"])
@pytest.mark.parametrize("mode", [0, 1, 2], ids=MODES)
def test_outputs_have_the_meta_kernels_shapes(mode, include_last_offset):
    """What torch.compile's fake tensors expect of a device other than the CPU (CUDA's shapes): bag_size has an
    entry an offset, 0 past the bags."""
    offsets = torch.tensor([0, 4, 8, 8, 11]) if include_last_offset else OFFSETS
    args = (offsets, False, mode, False, None, include_last_offset, -1)
    outputs = torch.ops.aten._embedding_bag(randn(9, 6).to(FOO), INDICES.to(FOO), args[0].to(FOO), *args[1:])
    metas = torch.ops.aten._embedding_bag(
        torch.empty(9, 6, device="meta"), INDICES.to("meta"), args[0].to("meta"), *args[1:]
    )
    assert [o.shape for o in outputs] == [m.shape for m in metas]
    if include_last_offset:
        assert outputs[2].cpu()[-1] == 0


@pytest.mark.parametrize("mode", MODES)
def test_compiled_embedding_bag_matches_eager(mode):
    def fn(weight: Tensor, indices: Tensor, offsets: Tensor) -> Tensor:
        return F.embedding_bag(indices, weight, offsets, mode=mode, include_last_offset=True)

    weight, offsets = randn(9, 6).to(FOO), torch.tensor([0, 4, 8, 8, 11], device=FOO)
    torch._dynamo.reset()
    compiled = torch.compile(fn, dynamic=False)(weight, INDICES.to(FOO), offsets)
    torch.testing.assert_close(compiled.cpu(), fn(weight, INDICES.to(FOO), offsets).cpu())


@pytest.mark.parametrize("mode", MODES)
def test_featureless_weight_gives_featureless_bags(mode):
    """A weight of 0 features (the CPU fails on it in sum and mean modes), with per-sample weights in sum mode."""
    weight = randn(9, 0).to(FOO).requires_grad_()
    per_sample_weights = randn(len(INDICES)).to(FOO).requires_grad_() if mode == "sum" else None
    output = F.embedding_bag(INDICES.to(FOO), weight, OFFSETS.to(FOO), mode=mode, per_sample_weights=per_sample_weights)
    assert output.shape == (len(OFFSETS), 0)
    output.sum().backward()
    assert weight.grad.shape == (9, 0)
    if per_sample_weights is not None:
        assert not per_sample_weights.grad.cpu().any()


@pytest.mark.parametrize("mode", MODES)
def test_no_indices_give_empty_bags(mode):
    """Three empty bags (the CPU fails on them in sum and mean modes): zeros, and a zero gradient."""
    weight = randn(9, 6).to(FOO).requires_grad_()
    indices, offsets = torch.tensor([], dtype=torch.long, device=FOO), torch.tensor([0, 0, 0], device=FOO)
    output = F.embedding_bag(indices, weight, offsets, mode=mode)
    assert torch.equal(output.detach().cpu(), torch.zeros(3, 6))
    output.sum().backward()
    assert not weight.grad.cpu().any()


def test_indices_in_no_bag_have_no_gradient():
    """No offsets, so no bags (the CPU crashes on this gradient): the weight's and per-sample weights' are 0."""
    weight, per_sample_weights = randn(9, 6).to(FOO).requires_grad_(), randn(3).to(FOO).requires_grad_()
    indices, offsets = torch.tensor([1, 2, 2], device=FOO), torch.tensor([0], device=FOO)
    output = F.embedding_bag(
        indices, weight, offsets, mode="sum", per_sample_weights=per_sample_weights, include_last_offset=True
    )
    assert output.shape == (0, 6)
    output.sum().backward()
    assert not weight.grad.cpu().any() and not per_sample_weights.grad.cpu().any()


def test_text_classifier_trains_like_cpu():
    """PyTorch's text-classification tutorial model: EmbeddingBag(mean) + Linear, five SGD steps."""

    def train(device: str) -> list[Tensor]:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.EmbeddingBag(50, 16, mode="mean"), torch.nn.Linear(16, 4)).to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        generator = torch.Generator().manual_seed(1)
        for _ in range(5):
            text = torch.randint(0, 50, (40,), generator=generator)
            offsets = torch.tensor([0, 7, 15, 22, 30])
            labels = torch.randint(0, 4, (5,), generator=generator)
            optimizer.zero_grad()
            logits = model[1](model[0](text.to(device), offsets.to(device)))
            F.cross_entropy(logits, labels.to(device)).backward()
            optimizer.step()
        return [p.detach().cpu() for p in model.parameters()]

    for actual, expected in zip(train("foo"), train("cpu")):
        torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "indices, offsets, kwargs",
    [
        ([1, 2, 3], [0, 2], {"mode": "max", "per_sample_weights": torch.ones(3)}),
        ([1, 2, 3], [0, 2], {"per_sample_weights": torch.ones(4)}),
    ],
    ids=["weights_with_max", "weights_of_wrong_length"],
)
def test_bad_arguments_raise_like_cpu(indices, offsets, kwargs):
    weight = randn(10, 3)

    def call(device: str):
        foo_kwargs = {k: v.to(device) if isinstance(v, Tensor) else v for k, v in kwargs.items()}
        return F.embedding_bag(
            torch.tensor(indices, device=device), weight.to(device), torch.tensor(offsets, device=device), **foo_kwargs
        )

    assert run_like_cpu(lambda: call("cpu"), lambda: call("foo")) is None


# name: (indices, offsets, keyword arguments, what the error says)
BAD_INDICES_AND_OFFSETS = {
    "index_out_of_range": ([1, 12, 3], [0, 2], {}, "index out of range in self"),
    "negative_index": ([1, -1, 3], [0, 2], {"mode": "mean"}, "index out of range in self"),
    "max_mode_index": ([10, 2, 3], [0, 2], {"mode": "max"}, "index out of range in self"),
    "first_offset_not_0": ([1, 2, 3], [1, 2], {}, "offsets that do not start at 0"),
    "last_offset_past_end": ([1, 2, 3], [0, 4], {}, "pass the end of the indices"),
    "decreasing_offsets": ([1, 2, 3], [0, 2, 1], {}, "decrease"),
    "negative_offsets": ([1, 2, 3], [0, -3, -2], {}, "decrease"),
    "last_offset_past_end_included": ([1, 2, 3], [0, 1, 5], {"include_last_offset": True}, "pass the end"),
}


@pytest.mark.parametrize("case", BAD_INDICES_AND_OFFSETS.values(), ids=BAD_INDICES_AND_OFFSETS.keys())
def test_bad_indices_and_offsets_raise_index_error_at_the_next_synchronisation(case):
    """The CPU raises at the op; foo's kernel reports them without a wait, and the next synchronisation raises."""
    indices, offsets, kwargs, message = case
    weight = randn(10, 3)
    with pytest.raises((RuntimeError, IndexError)):
        F.embedding_bag(torch.tensor(indices), weight, torch.tensor(offsets), **kwargs)
    F.embedding_bag(torch.tensor(indices, device=FOO), weight.to(FOO), torch.tensor(offsets, device=FOO), **kwargs)
    with pytest.raises(IndexError, match=message):
        torch.foo.synchronize()
    torch.foo.synchronize()  # reported once


def test_the_gradient_after_bad_offsets_raises_at_the_next_synchronisation():
    """The backward reads the forward's bag of each position: one of no bag (its offsets were bad) adds nothing."""
    weight = randn(10, 3).to(FOO).requires_grad_()
    F.embedding_bag(torch.tensor([1, 2, 3], device=FOO), weight, torch.tensor([0, -3, -2], device=FOO)).sum().backward()
    with pytest.raises(IndexError, match="offsets"):
        torch.foo.synchronize()


def test_offsets_without_indices_or_bags_must_be_zeros():
    weight = randn(10, 3).to(FOO)
    with pytest.raises(RuntimeError, match="every offset has to be 0"):
        F.embedding_bag(
            torch.tensor([1, 2], device=FOO), weight, torch.tensor([5], device=FOO), include_last_offset=True
        )


def test_offsets_without_indices_must_be_zeros():
    weight = randn(10, 3)
    empty = torch.tensor([], dtype=torch.long)
    assert F.embedding_bag(empty.to(FOO), weight.to(FOO), torch.tensor([0, 0], device=FOO)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="every offset has to be 0"):
        F.embedding_bag(empty.to(FOO), weight.to(FOO), torch.tensor([0, 1], device=FOO))


def test_indices_on_another_device_raise_a_clear_error():
    with pytest.raises(RuntimeError, match="indices and offsets on foo"):
        torch.ops.aten._embedding_bag(randn(10, 3).to(FOO), torch.tensor([1, 2]), torch.tensor([0], device=FOO))


def test_sparse_gradients_raise_a_clear_error():
    bag = torch.nn.EmbeddingBag(10, 3, sparse=True).to(FOO)
    output = bag(torch.tensor([1, 2, 3], device=FOO), torch.tensor([0, 2], device=FOO))
    with pytest.raises(RuntimeError, match="sparse=False"):
        output.sum().backward()
