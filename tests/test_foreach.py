"""The foreach ops on foo (torch._foreach_*: what torch.optim's default steps call) against the CPU: every overload
foo launches over whole lists, in place and not, for each floating dtype, on lists longer than one launch takes, with
empty and 0-dim tensors; lists it leaves to the per-tensor loop
(non-contiguous, mixed dtypes, integers); errors; the launches; and Adam, AdamW and SGD steps with foreach on
against the CPU and against foo's per-tensor (foreach=False) steps. Nothing may fall back to the CPU.
"""

import copy

import pytest
import torch
from conftest import FLOAT_DTYPES, FOO, assert_close_to_cpu, dtype_id, run_like_cpu
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

# 18 tensors: more than one launch takes (16 at most), one empty and one 0-dim, sizes that are and are not whole vectors.
SHAPES = [(3,), (17, 5), (1024,), (0,), (33, 33), (), (7,), (64,), (2, 3, 4), (100,), (1,)]
SHAPES += [(9,), (16,), (2, 17), (31,), (5, 5), (128,), (2,)]
SCALARS = [0.5 * i - 1.3 for i in range(len(SHAPES))]
TOLERANCES = {
    torch.float16: {"rtol": 2e-3, "atol": 2e-3},
    torch.bfloat16: {"rtol": 2e-2, "atol": 2e-2},
    torch.float32: {"rtol": 1e-5, "atol": 1e-6},
    torch.float64: {"rtol": 1e-12, "atol": 1e-12},
}


def lists(dtype: torch.dtype, count: int, shapes: list[tuple[int, ...]] = SHAPES) -> list[list[Tensor]]:
    """`count` CPU lists: a signed one, then ones in [0.5, 1.5) (divisors, square roots)."""
    g = torch.Generator().manual_seed(0)
    first = [torch.randn(s, generator=g).to(dtype) for s in shapes]
    return [first] + [[(torch.rand(s, generator=g) + 0.5).to(dtype) for s in shapes] for _ in range(count - 1)]


# name: (op name, number of tensor lists, the other arguments: "scalars" stands for SCALARS)
OVERLOADS = {
    "add.Scalar": ("add", 1, (1.7,)),
    "add.List": ("add", 2, ()),
    "add.List alpha": ("add", 2, ("alpha", 0.25)),
    "add.ScalarList": ("add", 1, ("scalars",)),
    "sub.Scalar": ("sub", 1, (2.5,)),
    "sub.List alpha": ("sub", 2, ("alpha", -3.0)),
    "sub.ScalarList": ("sub", 1, ("scalars",)),
    "mul.Scalar": ("mul", 1, (1.3,)),
    "mul.List": ("mul", 2, ()),
    "mul.ScalarList": ("mul", 1, ("scalars",)),
    "div.Scalar": ("div", 1, (1.3,)),
    "div.List": ("div", 2, ()),
    "div.ScalarList": ("div", 1, ("scalars",)),
    "lerp.Scalar": ("lerp", 2, (0.3,)),
    "lerp.Scalar from the end": ("lerp", 2, (0.8,)),
    "addcmul.Scalar": ("addcmul", 3, (0.7,)),
    "addcmul.ScalarList": ("addcmul", 3, ("scalars",)),
    "addcdiv.Scalar": ("addcdiv", 3, (-0.7,)),
    "addcdiv.ScalarList": ("addcdiv", 3, ("scalars",)),
    "sqrt": ("sqrt", 1, ()),
    "neg": ("neg", 1, ()),
}


def call(overload: str, tensor_lists: list[list[Tensor]], in_place: bool) -> list[Tensor] | None:
    name, _, extra = OVERLOADS[overload]
    args, kwargs = [], {}
    if extra and extra[0] == "alpha":
        kwargs["alpha"] = extra[1]
    else:
        args = [SCALARS if e == "scalars" else e for e in extra]
    if name == "sqrt":
        tensor_lists = [[t.abs() for t in tensor_lists[0]]]
    op = getattr(torch, f"_foreach_{name}_" if in_place else f"_foreach_{name}")
    out = op(*tensor_lists, *args, **kwargs)
    return tensor_lists[0] if in_place else out


@pytest.mark.parametrize("in_place", [False, True], ids=["out_of_place", "in_place"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("overload", OVERLOADS)
def test_foreach_matches_cpu_and_per_tensor_ops(overload: str, dtype: torch.dtype, in_place: bool) -> None:
    cpu = lists(dtype, OVERLOADS[overload][1])
    foo = [[t.to(FOO) for t in tensors] for tensors in cpu]
    expected = call(overload, cpu, in_place)
    actual = call(overload, foo, in_place)
    assert_close_to_cpu(actual, expected, TOLERANCES)
    if in_place:
        assert all(a.device == FOO for a in actual)


@pytest.mark.parametrize(
    "case",
    ["non_contiguous", "mixed_dtypes", "int64", "cpu_scalar_tensor_other", "complex_scalar"],
)
def test_lists_one_launch_cannot_take_run_per_tensor_like_cpu(case: str) -> None:
    cpu = lists(torch.float32, 2, [(6, 4), (5, 3), (8,)])
    if case == "non_contiguous":
        cpu = [[t.t() if t.dim() == 2 else t for t in tensors] for tensors in cpu]
    elif case == "mixed_dtypes":
        cpu[0][1] = cpu[0][1].half()
        cpu[1][1] = cpu[1][1].half()
    elif case == "int64":
        cpu = [[(t * 10).long() for t in tensors] for tensors in cpu]
    foo = [[t.to(FOO) for t in tensors] for tensors in cpu]

    def run(tensor_lists: list[list[Tensor]]) -> list[Tensor]:
        if case == "complex_scalar":
            return torch._foreach_mul(tensor_lists[0], 1 + 2j)
        torch._foreach_addcmul_(tensor_lists[0], tensor_lists[1], tensor_lists[1], value=2)
        torch._foreach_mul_(tensor_lists[0], 3)
        return tensor_lists[0]

    result = run_like_cpu(lambda: run(cpu), lambda: run(foo))
    if result is not None:
        assert_close_to_cpu(*result)


@pytest.mark.parametrize("case", ["swapped", "twice_in_self", "partly_overlapping", "self_as_its_input"])
def test_in_place_lists_that_share_memory_run_like_cpu(case: str) -> None:
    """One launch runs a list's entries at once; entries that share memory must give CPU's one-at-a-time result."""

    def run(device: str) -> list[Tensor]:
        g = torch.Generator().manual_seed(3)
        a, b = torch.randn(40, generator=g).to(device), torch.randn(40, generator=g).to(device)
        if case == "swapped":
            torch._foreach_add_([a, b], [b, a], alpha=2)
        elif case == "twice_in_self":
            torch._foreach_mul_([a, a, b], 3)
        elif case == "partly_overlapping":
            torch._foreach_add_([a[1:]], [a[:-1]])
        else:
            torch._foreach_addcmul_([a, b], [a, b], [b, a], value=0.5)
        return [a, b]

    result = run_like_cpu(lambda: run("cpu"), lambda: run(FOO))
    if result is not None:
        assert_close_to_cpu(*result)


def test_values_beyond_float32_give_inf_like_cpu() -> None:
    x = [torch.ones(3), -torch.ones(5)]
    assert_close_to_cpu(torch._foreach_mul([t.to(FOO) for t in x], 1e39), torch._foreach_mul(x, 1e39))
    assert_close_to_cpu(torch._foreach_add([t.to(FOO) for t in x], [1e39, -1e39]), torch._foreach_add(x, [1e39, -1e39]))


@pytest.mark.parametrize(
    "case",
    ["lengths_differ", "sizes_differ", "cpu_tensor_in_list", "in_place_int_list_float_scalar", "scalars_too_few"],
)
def test_foreach_errors_match_cpu(case: str) -> None:
    cpu = lists(torch.float32, 2, [(4,), (3,)])
    foo = [[t.to(FOO) for t in tensors] for tensors in cpu]
    if case == "lengths_differ":
        cpu[1], foo[1] = cpu[1][:1], foo[1][:1]
    elif case == "sizes_differ":
        cpu[1][1], foo[1][1] = torch.ones(5), torch.ones(5, device=FOO)
    elif case == "cpu_tensor_in_list":
        foo[1][0] = cpu[1][0]
    elif case == "in_place_int_list_float_scalar":
        cpu[0] = [t.long() for t in cpu[0]]
        foo[0] = [t.to(FOO) for t in cpu[0]]

    def run(tensor_lists: list[list[Tensor]]) -> None:
        if case == "in_place_int_list_float_scalar":
            torch._foreach_mul_(tensor_lists[0], 1.5)
        elif case == "scalars_too_few":
            torch._foreach_addcdiv_(tensor_lists[0], tensor_lists[1], tensor_lists[1], [0.5])
        else:
            torch._foreach_add_(tensor_lists[0], tensor_lists[1])

    if case == "cpu_tensor_in_list":
        with pytest.raises(RuntimeError, match="device"):
            run(foo)
        return
    assert run_like_cpu(lambda: run(cpu), lambda: run(foo)) is None


def test_a_list_takes_several_tensors_per_launch() -> None:
    """As many tensors per launch as the device's argument size takes, 16 at most: 80 bytes per tensor here (two
    tensors as buffer and offset, a count, six float scalars), twelve tensors where the device takes 1 KB, three
    with 256 bytes."""
    params = [torch.randn(5 + i, device=FOO) for i in range(25)]
    grads = [torch.randn_like(p) for p in params]
    torch._foreach_add_(params, grads, alpha=-0.1)  # builds the kernel outside the profile
    torch.foo.synchronize()
    with profile(activities=[ProfilerActivity.PrivateUse1]) as prof:
        torch._foreach_add_(params, grads, alpha=-0.1)
        torch.foo.synchronize()
    kernels = [e.name for e in prof.events() if e.device_type == DeviceType.PrivateUse1]
    per_launch = min(16, torch.foo.get_device_properties(0).max_parameter_size // 80)
    assert set(kernels) == {"binary/add:pointwise_lists"} and len(kernels) == -(-len(params) // per_launch), kernels


def models() -> tuple[torch.nn.Module, torch.nn.Module]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(12, 16), torch.nn.LayerNorm(16), torch.nn.GELU(), torch.nn.Linear(16, 3)
    )
    return model, copy.deepcopy(model).to(FOO)


OPTIMIZERS = {
    "Adam": lambda params, **kw: torch.optim.Adam(params, lr=1e-2, **kw),
    "AdamW": lambda params, **kw: torch.optim.AdamW(params, lr=1e-2, weight_decay=0.1, **kw),
    "Adam amsgrad maximize": lambda params, **kw: torch.optim.Adam(params, lr=1e-2, amsgrad=True, maximize=True, **kw),
    "SGD momentum nesterov": lambda params, **kw: torch.optim.SGD(
        params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3, **kw
    ),
}


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_foreach_optimizer_steps_match_cpu_and_per_tensor_steps(optimizer: str) -> None:
    cpu_model, foo_model = models()
    per_tensor_model = copy.deepcopy(foo_model)
    make = OPTIMIZERS[optimizer]
    steps = [
        (cpu_model, make(cpu_model.parameters(), foreach=True), "cpu"),
        (foo_model, make(foo_model.parameters(), foreach=True), FOO),
        (per_tensor_model, make(per_tensor_model.parameters(), foreach=False), FOO),
    ]
    g = torch.Generator().manual_seed(1)
    for _ in range(3):
        x, y = torch.randn(8, 12, generator=g), torch.randint(0, 3, (8,), generator=g)
        for model, opt, device in steps:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device)).backward()
            opt.step()
    for cpu_p, foo_p, per_tensor_p in zip(*(model.parameters() for model, _, _ in steps)):
        assert_close_to_cpu(foo_p.detach(), cpu_p.detach(), {torch.float32: {"rtol": 1e-4, "atol": 1e-5}})
        torch.testing.assert_close(foo_p.detach().cpu(), per_tensor_p.detach().cpu(), rtol=1e-6, atol=1e-7)
