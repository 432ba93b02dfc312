"""The CPU fallback for operators without a foo kernel: modes, counts, warnings, in-place and out=
semantics, every layout, and a whole training step matching the CPU.

NOTE: the tests use gcd, lcm and linalg.slogdet because foo-cl has no kernels for them; when one
gets a kernel, replace it here with another operator that still falls back.
"""

import contextlib
import os
import warnings
from collections.abc import Iterator

import pytest
import torch
from conftest import FOO, LAYOUTS, assert_exact, make_tensor


@contextlib.contextmanager
def no_warnings_matching(text: str) -> Iterator[None]:
    """Fails if the block raises a warning whose message contains `text`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert not [w for w in caught if text in str(w.message)], [str(w.message) for w in caught]


def test_initial_mode_comes_from_the_environment():
    assert torch.foo.get_fallback_mode() == os.environ["FOO_CL_FALLBACK"]


@pytest.mark.parametrize("mode", ["warn", "silent", "error"])
def test_set_fallback_mode(fallback_mode, mode):
    fallback_mode(mode)
    assert torch.foo.get_fallback_mode() == mode


def test_unknown_mode_is_rejected(fallback_mode):
    fallback_mode("silent")
    with pytest.raises(RuntimeError, match="unknown fallback mode 'loud'"):
        torch.foo.set_fallback_mode("loud")
    assert torch.foo.get_fallback_mode() == "silent"


def test_counts_each_operator_run_on_the_cpu():
    a = torch.ones(3, dtype=torch.int64, device=FOO)
    torch.foo.reset_fallback_counts()
    torch.gcd(a, a)
    torch.gcd(a, a)
    torch.linalg.slogdet(torch.eye(2, device=FOO))
    counts = torch.foo.fallback_counts()
    assert counts["aten::gcd.out"] == 2
    assert counts["aten::_linalg_slogdet.sign"] == 1
    torch.foo.reset_fallback_counts()
    assert torch.foo.fallback_counts() == {}


def test_native_kernels_do_not_fall_back():
    torch.foo.reset_fallback_counts()
    base = make_tensor((6, 8), torch.float32)
    a = base.to(FOO)
    b = a.t().contiguous().to(torch.int16).clone().view(-1)[::3].fill_(2).zero_()
    c = torch.empty_strided((2, 3), (1, 2), device=FOO).copy_(a[:2, :3])
    values = [a.cpu().tolist(), a[0, 0].item(), b.tolist(), c.unfold(0, 2, 1).tolist()]
    a.resize_(100)
    assert torch.foo.fallback_counts() == {}
    assert values[:2] == [base.tolist(), base[0, 0].item()]


def test_warn_mode_warns_once_per_operator(fallback_mode):
    fallback_mode("warn")  # also forgets which operators already warned
    a = torch.ones(3, dtype=torch.int64, device=FOO)
    with pytest.warns(UserWarning, match="aten::gcd.out"):
        torch.gcd(a, a)
    with no_warnings_matching("aten::gcd.out"):
        torch.gcd(a, a)
    with pytest.warns(UserWarning, match="aten::lcm.out"):
        torch.lcm(a, a)


def test_silent_mode_does_not_warn(fallback_mode):
    fallback_mode("silent")
    a = torch.ones(3, dtype=torch.int64, device=FOO)
    with no_warnings_matching("foo-cl"):
        torch.gcd(a, a)


def test_error_mode_raises_naming_the_operator(fallback_mode):
    fallback_mode("error")
    a = torch.ones(2, 2, dtype=torch.int64, device=FOO)
    with pytest.raises(NotImplementedError, match="aten::gcd"):
        torch.gcd(a, a)


def test_error_mode_still_runs_native_kernels(fallback_mode):
    fallback_mode("error")
    base = make_tensor((4, 5), torch.float32)
    a = base.to(FOO)
    out = a.t().to(torch.float64).clone()
    out[1].fill_(3)
    expected = base.t().to(torch.float64)
    expected[1] = 3
    assert_exact(out.cpu(), expected)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fallback_op_matches_cpu_on_every_layout(layout):
    base_shape, view = LAYOUTS[layout]
    a, b = make_tensor(base_shape, torch.int64, seed=1), make_tensor(base_shape, torch.int64, seed=2)
    got = torch.gcd(view(a.to(FOO)), view(b.to(FOO)))
    assert got.device == FOO
    assert_exact(got.cpu(), torch.gcd(view(a), view(b)))


def test_fallback_broadcasts_like_cpu():
    a, b = make_tensor((4, 1, 3), torch.int64), make_tensor((5, 1), torch.int64)
    got = torch.gcd(a.to(FOO), b.to(FOO))
    assert got.shape == (4, 5, 3)
    assert_exact(got.cpu(), torch.gcd(a, b))


def test_in_place_op_mutates_the_same_memory():
    base, other = make_tensor((4, 5), torch.int64, seed=1), make_tensor((4, 5), torch.int64, seed=2)
    a = base.to(FOO)
    row = a[2]
    ptr = a.data_ptr()
    assert a.gcd_(other.to(FOO)) is a
    assert a.data_ptr() == ptr
    assert_exact(a.cpu(), torch.gcd(base, other))
    assert_exact(row.cpu(), torch.gcd(base[2], other[2]))


@pytest.mark.parametrize("layout", ["transposed", "sliced", "rank10"])
def test_in_place_op_on_a_view_updates_only_the_view(layout):
    base_shape, view = LAYOUTS[layout]
    base = make_tensor(base_shape, torch.int64)
    expected = base.clone()
    view(expected).gcd_(torch.tensor(6))

    on_foo = base.to(FOO)
    view(on_foo).gcd_(torch.tensor(6, device=FOO))
    assert_exact(on_foo.cpu(), expected)


def test_out_argument_is_written_in_place():
    a, b = make_tensor((3, 4), torch.int64, seed=1), make_tensor((3, 4), torch.int64, seed=2)
    out = torch.empty(3, 4, dtype=torch.int64, device=FOO)
    ptr = out.data_ptr()
    result = torch.gcd(a.to(FOO), b.to(FOO), out=out)
    assert result is out and out.data_ptr() == ptr
    assert_exact(out.cpu(), torch.gcd(a, b))


def test_out_argument_that_is_a_view_writes_through():
    a, b = make_tensor((4, 3), torch.int64, seed=1), make_tensor((4, 3), torch.int64, seed=2)
    base = torch.zeros(3, 8, dtype=torch.int64, device=FOO)
    torch.gcd(a.to(FOO), b.to(FOO), out=base[:, ::2].t())
    expected = torch.zeros(3, 8, dtype=torch.int64)
    expected[:, ::2] = torch.gcd(a, b).t()
    assert_exact(base.cpu(), expected)


def test_empty_out_argument_is_resized():
    a = make_tensor((2, 5), torch.int32)
    out = torch.empty(0, dtype=torch.int32, device=FOO)
    torch.lcm(a.to(FOO), torch.tensor(6, dtype=torch.int32, device=FOO), out=out)
    assert out.shape == (2, 5) and out.device == FOO
    assert_exact(out.cpu(), torch.lcm(a, torch.tensor(6, dtype=torch.int32)))


def test_operator_with_several_outputs_returns_them_on_foo():
    base = make_tensor((3, 4, 4), torch.float32)
    sign, logabsdet = torch.linalg.slogdet(base.to(FOO))
    expected = torch.linalg.slogdet(base)
    assert sign.device == FOO and logabsdet.device == FOO
    assert_exact(sign.cpu(), expected.sign)
    assert_exact(logabsdet.cpu(), expected.logabsdet)


def test_linear_training_step_matches_cpu():
    cpu_model = torch.nn.Linear(8, 4)
    foo_model = torch.nn.Linear(8, 4)
    foo_model.load_state_dict(cpu_model.state_dict())
    foo_model.foo()
    x = make_tensor((16, 8), torch.float32) / 100
    target = make_tensor((16, 4), torch.float32, seed=5) / 100

    outputs = {}
    for name, model, device in (("cpu", cpu_model, "cpu"), ("foo", foo_model, FOO)):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        out = model(x.to(device))
        loss = ((out - target.to(device)) ** 2).mean()
        loss.backward()
        optimizer.step()
        outputs[name] = (out, loss, model.weight.grad, model.bias.grad, model.weight, model.bias)

    for got, expected in zip(outputs["foo"], outputs["cpu"], strict=True):
        assert got.device == FOO
        torch.testing.assert_close(got.detach().cpu(), expected.detach())


def test_an_out_overload_that_is_composite_in_aten_falls_back_with_its_results():
    # ATen's mode.values accepts only CPU, CUDA and XPU tensors; foo runs mode through the fallback.
    x = torch.randint(0, 3, (4, 6), generator=torch.Generator().manual_seed(0)).float()
    values_out, indices_out = torch.empty(0, device=FOO), torch.empty(0, dtype=torch.long, device=FOO)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.mode(x.to(FOO), 1, keepdim=True, out=(values_out, indices_out))
    expected = torch.mode(x, 1, keepdim=True)
    assert_exact(values_out.cpu(), expected.values)
    assert_exact(indices_out.cpu(), expected.indices)
