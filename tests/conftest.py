"""Shared set-up of the foo-cl tests: the environment, dtype and layout tables, exact comparisons and
comparisons with the CPU within tolerances (and of channels_last results), a forward and backward pass, a
fallback-mode switch, running an operator on foo and on the CPU (its forward values, or with every input's
gradient), PyTorch's OpInfo samples on both devices (with their gradients too), the two-device marker, and a
runner for scripts that need a fresh process.
"""

import os

# NOTE: read once, when foo_cl/OpenCL first initialise, so they must be set before torch is imported
# (torch itself imports foo_cl through the torch.backends entry point).
os.environ.setdefault("POCL_DEVICES", "pthread pthread")
os.environ.setdefault("FOO_CL_FALLBACK", "silent")
# Tuning times kernels for seconds per shape class: the suite runs the default candidates, and
# tests/test_tuning.py tests the tuner and every candidate.
os.environ.setdefault("FOO_CL_TUNE", "off")

import itertools
import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple, TypeVar

import pytest
import torch
from torch.utils._pytree import tree_flatten, tree_map

import foo_cl  # noqa: F401

FLOAT_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
DTYPES = [*FLOAT_DTYPES, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool]
INT_DTYPES = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]

# Loose forward tolerances for 16-bit inputs: both devices accumulate in float32 but may round differently.
LOW_PRECISION = {torch.float16: {"rtol": 1e-2, "atol": 1e-2}, torch.bfloat16: {"rtol": 2e-2, "atol": 5e-2}}

# (src, dst) pairs that need a converting kernel, covering float<->int, half/bfloat16, bool, widening and narrowing.
CONVERTING_PAIRS = [
    (torch.float32, torch.float16),
    (torch.float64, torch.int32),
    (torch.bfloat16, torch.float32),
    (torch.int64, torch.uint8),
    (torch.int8, torch.float64),
    (torch.bool, torch.int16),
]

FOO = torch.device("foo", 0)


def dtype_id(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def pair_id(pair: tuple[torch.dtype, torch.dtype]) -> str:
    return f"{dtype_id(pair[0])}->{dtype_id(pair[1])}"


class Layout(NamedTuple):
    """How to get a tensor of a layout: the shape of a dense base tensor and a view to take of it."""

    base_shape: tuple[int, ...]
    view: Callable[[torch.Tensor], torch.Tensor]


# NOTE: the rank-10 view cannot be coalesced (every dim is sliced with a step), so a strided kernel
# sees more than its 8 dims and the launcher splits it on the host.
LAYOUTS = {
    "contiguous": Layout((4, 6), lambda t: t),
    "transposed": Layout((6, 4), lambda t: t.t()),
    "sliced": Layout((8, 15), lambda t: t[::2, 1::3]),
    "expanded": Layout((1, 5), lambda t: t.expand(4, 5)),
    "zero_dim": Layout((), lambda t: t),
    "empty": Layout((0, 3), lambda t: t),
    "rank10": Layout((3,) * 10, lambda t: t[(slice(None, None, 2),) * 10]),
}

# Layouts a tensor can be written through (an expanded tensor has overlapping elements).
WRITABLE_LAYOUTS = [name for name in LAYOUTS if name != "expanded"]


def make_tensor(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """A CPU tensor of distinct-looking values spread over the dtype's range (no inf/nan)."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g, dtype=torch.float64) * 100).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, generator=g, dtype=torch.int64).to(dtype)


def small_values(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0, span: int = 7) -> torch.Tensor:
    """A CPU tensor of `dtype`: standard normal floats, random bools, or `span` consecutive integers
    around zero (from zero for uint8), so integer ops meet ties and repeats."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
    low = 0 if dtype == torch.uint8 else -(span // 2)
    return torch.randint(low, low + span, shape, generator=g).to(dtype)


def make_convertible(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """A CPU tensor of `dtype` whose conversion to every other dtype is well defined: values in
    [-128, 127] in quarter steps (cast to `dtype` on the CPU), so no float-to-int overflow."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-512, 508, shape, generator=g, dtype=torch.int64) / 4).to(dtype)


def to_foo_keeping_layout(t: torch.Tensor) -> torch.Tensor:
    """A copy of CPU tensor `t` on foo with t's sizes, strides and storage offset (`t.to("foo")` would
    make a non-dense view contiguous): its whole storage is copied and viewed the same way."""
    storage = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage())
    return storage.to(FOO).as_strided(t.shape, t.stride(), t.storage_offset())


def randn(*shape: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> torch.Tensor:
    """A CPU tensor of standard normal values, drawn in float64 from `seed` and cast to `dtype`."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def on(device: torch.device | str, t: torch.Tensor) -> torch.Tensor:
    """t on `device`, with its sizes and strides kept on foo."""
    return to_foo_keeping_layout(t) if torch.device(device).type == "foo" else t.clone()


def assert_exact(actual: torch.Tensor, expected: torch.Tensor) -> None:
    """Same dtype, shape and bits where it matters: equal values, NaN where expected, and the sign of zeros."""
    assert actual.device.type == "cpu", "compare CPU copies"
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if actual.dtype.is_floating_point:
        torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)
        numbers = ~torch.isnan(expected)
        assert torch.equal(torch.signbit(actual[numbers]), torch.signbit(expected[numbers])), "signs of zeros differ"
    else:
        assert torch.equal(actual, expected)


def assert_close_to_cpu(
    actual: object, expected: object, tolerances: Mapping[torch.dtype, Mapping[str, float]] | None = None
) -> None:
    """`actual` (a tensor on foo, or a tuple or list of them) against the CPU's `expected`: the same structure,
    dtypes and shapes; integer and bool tensors equal; floating ones within `tolerances[dtype]` (rtol/atol;
    assert_close's defaults for dtypes not given), NaN where the CPU has NaN. Non-tensor leaves must be equal."""
    actual_leaves, actual_spec = tree_flatten(actual)
    expected_leaves, expected_spec = tree_flatten(expected)
    assert actual_spec == expected_spec, f"foo returned {actual_spec}, the CPU {expected_spec}"
    for a, e in zip(actual_leaves, expected_leaves):
        if not isinstance(e, torch.Tensor):
            assert a == e
            continue
        assert a.device.type == "foo", f"a result is on {a.device}"
        torch.testing.assert_close(a.cpu(), e, equal_nan=True, **(tolerances or {}).get(e.dtype, {}))


def forward_backward(
    fn: Callable[..., torch.Tensor], inputs: list[torch.Tensor], grad: torch.Tensor
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """(fn(*inputs), the gradient of each input) after `fn(*inputs).backward(grad)`; every input is made a
    fresh leaf that requires grad, keeping its strides, and `grad` is moved to the output's device."""
    leaves = [t.detach().requires_grad_() for t in inputs]
    output = fn(*leaves)
    output.backward(grad.to(output.device))
    return output.detach(), [leaf.grad for leaf in leaves]


@pytest.fixture
def fallback_mode() -> Iterator[Callable[[str], None]]:
    """Call it with "warn", "silent" or "error" to switch the CPU-fallback mode for one test."""
    previous = torch.foo.get_fallback_mode()
    yield torch.foo.set_fallback_mode
    torch.foo.set_fallback_mode(previous)


@pytest.fixture
def no_fallback(fallback_mode: Callable[[str], None]) -> Iterator[None]:
    """Forbids the CPU fallback for one test ("error" mode): every operator it runs on foo must be a foo
    kernel; checks at the end that the fallback counts did not grow either."""
    fallback_mode("error")
    counts = torch.foo.fallback_counts()
    yield
    assert torch.foo.fallback_counts() == counts, "an operator ran on the CPU"


Result = TypeVar("Result")


def run_like_cpu(
    cpu_call: Callable[[], Result], foo_call: Callable[[], Result], same_message: bool = False
) -> tuple[Result, Result] | None:
    """Runs `cpu_call`, then `foo_call`; returns (foo result, CPU result), or None when both raised.

    When the CPU raises, foo must raise the same exception type (exactly: NotImplementedError, which the
    forbidden fallback raises, is a RuntimeError too), and the same message when `same_message`. foo-cl's
    fallback counts must not grow during `foo_call`.
    """
    try:
        expected = cpu_call()
    except Exception as cpu_error:  # noqa: BLE001 (any error the CPU raises is the expected behaviour)
        counts = torch.foo.fallback_counts()
        try:
            foo_call()
        except Exception as foo_error:  # noqa: BLE001
            assert type(foo_error) is type(cpu_error), f"the CPU raised {cpu_error!r}, foo {foo_error!r}"
            if same_message:
                assert str(foo_error) == str(cpu_error)
        else:
            raise AssertionError(f"the CPU raised {cpu_error!r}, foo did not")
        assert torch.foo.fallback_counts() == counts, "an operator ran on the CPU"
        return None
    counts = torch.foo.fallback_counts()
    try:
        actual = foo_call()
    except Exception as foo_error:
        raise AssertionError(f"foo raised {foo_error!r}, the CPU returned a result") from foo_error
    assert torch.foo.fallback_counts() == counts, "an operator ran on the CPU"
    return actual, expected


def check_gradients(
    fn: Callable[..., torch.Tensor],
    inputs: list[torch.Tensor],
    constants: tuple[torch.Tensor | None, ...] = (),
    tolerances: dict | None = None,
) -> tuple[tuple[torch.Tensor, list[torch.Tensor]], tuple[torch.Tensor, list[torch.Tensor]]]:
    """fn(*inputs, *constants) and the gradient of each of `inputs` (after backward with one random incoming
    gradient) on foo against the CPU. Inputs keep their layout on foo; constants (targets, indices) are copied.
    Returns foo's and the CPU's (output, gradients), for further checks."""
    with torch.no_grad():
        shape = fn(*inputs, *constants).shape
    grad = randn(*shape, dtype=inputs[0].dtype, seed=99)
    expected = forward_backward(lambda *xs: fn(*xs, *constants), inputs, grad)
    foo_constants = tuple(None if c is None else on(FOO, c) for c in constants)
    actual = forward_backward(lambda *xs: fn(*xs, *foo_constants), [on(FOO, t) for t in inputs], grad)
    assert_close_to_cpu(actual, expected, tolerances)
    return actual, expected


def check_forward(fn: Callable[..., object], inputs: list[torch.Tensor], tolerances: dict | None = None) -> tuple:
    """fn's results on foo against the CPU, without gradients; each device gets its own copy of the inputs (which
    keep their layout on foo). Returns (foo's results, the CPU's), for further checks."""
    outcome = run_like_cpu(lambda: fn(*[on("cpu", t) for t in inputs]), lambda: fn(*[on(FOO, t) for t in inputs]))
    assert outcome is not None, "both devices raised"
    assert_close_to_cpu(*outcome, tolerances)
    return outcome


def assert_channels_last_like_cpu(actual: object, expected: object) -> None:
    """Each 4-d (5-d) tensor in `actual` (foo's results, as check_forward or check_gradients return them) is
    channels_last (channels_last_3d) exactly when the CPU's in `expected` is; the structures must match
    (assert_close_to_cpu)."""
    formats = {4: torch.channels_last, 5: torch.channels_last_3d}
    for a, e in zip(tree_flatten(actual)[0], tree_flatten(expected)[0]):
        if isinstance(e, torch.Tensor) and e.dim() in formats:
            on_cpu = e.is_contiguous(memory_format=formats[e.dim()])
            assert a.is_contiguous(memory_format=formats[e.dim()]) == on_cpu, (
                f"a {list(e.shape)} result is {'' if on_cpu else 'not '}{formats[e.dim()]} on the CPU, "
                f"but has strides {a.stride()} on foo"
            )


@pytest.fixture(autouse=True)
def _restore_current_device() -> Iterator[None]:
    yield
    torch.foo.set_device(0)


@pytest.fixture(autouse=True)
def _no_unreported_device_errors() -> Iterator[None]:
    """A test that leaves an error of foo's kernels (an index out of range) unreported fails in its own teardown,
    rather than the next test at its first synchronisation."""
    yield
    for index in range(torch.foo.device_count()):
        torch.foo.synchronize(index)


# What foo:0 can do, for the tests that need a capability some OpenCL devices lack: the ones
# tests/capability_needs.txt names, and whether foo:0 has each.
PROPERTIES = torch.foo.get_device_properties(FOO)
CAPABILITIES = {
    "fp64": PROPERTIES.has_fp64,
    "fma": PROPERTIES.has_fma,
    "denormals": PROPERTIES.has_denormals,
    "long_loops": PROPERTIES.loop_iteration_limit == 0,
    "timing": PROPERTIES.times_commands,
}

# Whether foo:0 is a PoCL device: PoCL caches built programs itself (foo-cl writes no binaries
# there) and runs kernels from shared objects (runtime/KernelCode.h).
ON_POCL = PROPERTIES.platform_name == "Portable Computing Language"

# The dtypes a test can run on foo:0.
DEVICE_DTYPES = [d for d in DTYPES if CAPABILITIES["fp64"] or d != torch.float64]


# CI's time budget (.ci/run): a test due to start after this time (seconds since the epoch) is
# skipped as not run, so a slow machine's `make test` ends within CI's limit, reporting what it left.
TEST_DEADLINE = float(os.environ.get("FOO_CL_TEST_DEADLINE", "inf"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if time.time() > TEST_DEADLINE:
        pytest.skip("not run: CI's time budget (FOO_CL_TEST_DEADLINE, .ci/run) ran out before this test")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--dtype-per-kind",
        action="store_true",
        help="leave out dtype-parametrized cases for float64, complex128, int8, int16, int32 and uint8: their "
        "kernels are those of float32, complex64 and int64 with other element types",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "two_devices: needs foo:0 and foo:1 (skipped with a single OpenCL device)")
    config.addinivalue_line(
        "markers",
        "compiled_models: torch.compile of whole third-party models, minutes of compiling on a fresh machine; "
        "`make test` runs them in its first configuration only (-m 'not compiled_models' in the others)",
    )


# What --dtype-per-kind leaves out: dtypes whose kernels are those of a kept dtype with other element types.
SAME_CODE_DTYPES = ("float64", "complex128", "int8", "int16", "int32", "uint8")


def _mentions_dtype(value: object, names: tuple[str, ...]) -> bool:
    """Whether a test parameter is a dtype named in `names`, holds one, or is the name of a case in one."""
    if isinstance(value, (tuple, list)):
        return any(_mentions_dtype(v, names) for v in value)
    if isinstance(value, str):
        return any(name in value for name in names)
    return isinstance(value, torch.dtype) and dtype_id(value) in names


def _params(item: pytest.Item) -> list[object]:
    """The values of a test's parameters (none for an unparametrized test)."""
    return list(item.callspec.params.values()) if hasattr(item, "callspec") else []


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--dtype-per-kind"):
        same_code = [i for i in items if _mentions_dtype(_params(i), SAME_CODE_DTYPES)]
        config.hook.pytest_deselected(items=same_code)
        left_out = set(same_code)
        items[:] = [i for i in items if i not in left_out]
    skip = pytest.mark.skip(reason=f"needs two foo devices, found {torch.foo.device_count()}")
    known = _known_differences()
    needs = _capability_needs()
    for item in items:
        if "two_devices" in item.keywords and torch.foo.device_count() < 2:
            item.add_marker(skip)
        if item.nodeid in known:
            item.add_marker(pytest.mark.xfail(reason=known[item.nodeid], strict=False))
        item_needs = needs.get(item.nodeid, [])
        if _mentions_dtype(_params(item), ("float64", "complex128")):
            item_needs = [*item_needs, ("fp64", "a float64 case")]
        for capability, reason in item_needs:
            if not CAPABILITIES[capability]:
                item.add_marker(pytest.mark.skip(reason=f"foo:0 ({PROPERTIES.name}) lacks {capability}: {reason}"))


# Hugging Face models in tiny configs, by name: GPT-2, BERT, Llama and Mixtral (tied embeddings), T5. No dropout:
# foo's random numbers differ from the CPU's and from compiled code's, so dropout masks would too. T5 for its
# relative-position buckets (index arithmetic: abs, log, where), Mixtral for mixture-of-experts routing (topk, histc
# of expert indices, index_add). name: (model class, config class, config) of transformers.
_TINY = {"vocab_size": 97, "max_position_embeddings": 32}
_DECODER = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2}
TINY_CONFIGS = {
    "gpt2": (
        "GPT2LMHeadModel",
        "GPT2Config",
        {"n_embd": 32, "n_layer": 2, "n_head": 2, "n_positions": 32, "vocab_size": 97}
        | {"resid_pdrop": 0, "embd_pdrop": 0, "attn_pdrop": 0},
    ),
    "bert": (
        "BertForMaskedLM",
        "BertConfig",
        {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
        | {"hidden_dropout_prob": 0, "attention_probs_dropout_prob": 0}
        | _TINY,
    ),
    "llama": (
        "LlamaForCausalLM",
        "LlamaConfig",
        _DECODER | {"intermediate_size": 64, "tie_word_embeddings": True} | _TINY,
    ),
    "t5": (
        "T5ForConditionalGeneration",
        "T5Config",
        {"d_model": 32, "d_kv": 16, "d_ff": 64, "num_layers": 2, "num_heads": 2, "relative_attention_num_buckets": 8}
        | {"dropout_rate": 0, "decoder_start_token_id": 0, "vocab_size": 97},
    ),
    "mixtral": (
        "MixtralForCausalLM",
        "MixtralConfig",
        _DECODER
        | {"intermediate_size": 64, "num_local_experts": 4, "num_experts_per_tok": 2}
        | {"tie_word_embeddings": True}
        | _TINY,
    ),
}
TINY_TRANSFORMERS = tuple(TINY_CONFIGS)


def tiny_transformer(name: str) -> torch.nn.Module:
    """A freshly initialised TINY_TRANSFORMERS model (transformers is imported on first use)."""
    import transformers

    model, config, settings = TINY_CONFIGS[name]
    return getattr(transformers, model)(getattr(transformers, config)(**settings))


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter of this venv with extra environment variables; returns
    the finished process (its output as text). Autoloading of torch.backends entry points stays on
    unless `env` sets TORCH_DEVICE_BACKEND_AUTOLOAD."""
    full_env = {**os.environ, **env}
    if "TORCH_DEVICE_BACKEND_AUTOLOAD" not in env:
        full_env.pop("TORCH_DEVICE_BACKEND_AUTOLOAD", None)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full_env,
        capture_output=True,
        text=True,
        # A guard against hangs, not a speed check: a fresh process compiling on rusticl with cold
        # caches, beside another test worker, took over 120 s on pthread-haswell-AMD EPYC.
        timeout=600,
        check=False,
    )


def run_python_json(code: str, **env: str) -> object:
    """Like run_python, for a script whose last stdout line is JSON; fails the test if the script fails."""
    proc = run_python(code, **env)
    assert proc.returncode == 0, f"script failed:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def failures_in_fresh_process(module: str, function: str) -> list[str]:
    """Calls `function()` of test module `module` in a fresh interpreter with the fallback forbidden, for
    checks that could crash the process: the function returns descriptions of what failed and names each
    check on stderr before running it. Returns its list; fails the test, naming the check, if it crashes."""
    proc = run_python(
        f"""
        import json, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import {module}
        print(json.dumps({module}.{function}()))
        """,
        FOO_CL_FALLBACK="error",
    )
    last_check = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "starting"
    assert proc.returncode == 0, f"the process ended with exit code {proc.returncode} during: {last_check}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- known differences from CPU ------------------------------------------------------------------
# tests/known_differences.txt lists tests that currently fail because foo differs from CPU PyTorch,
# one "<test node id> | <reason>" per line; they run as xfail so the rest of the suite gates CI.
# Delete a line when its difference is fixed (the test then passes and is counted again).
KNOWN_DIFFERENCES = Path(__file__).with_name("known_differences.txt")


def _known_differences() -> dict[str, str]:
    known = {}
    if KNOWN_DIFFERENCES.exists():
        for line in KNOWN_DIFFERENCES.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                node, _, reason = line.partition(" | ")
                known[node.strip()] = reason.strip()
    return known


# Tests that need a device capability beyond what they are parametrised over, one
# "<capability> | <test node id> | <reason>" per line; skipped on devices without it (CAPABILITIES).
CAPABILITY_NEEDS = Path(__file__).with_name("capability_needs.txt")


def _capability_needs() -> dict[str, list[tuple[str, str]]]:
    needs: dict[str, list[tuple[str, str]]] = {}
    for line in CAPABILITY_NEEDS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            capability, node, reason = (part.strip() for part in line.split(" | ", 2))
            assert capability in CAPABILITIES, f"{CAPABILITY_NEEDS.name}: unknown capability {capability!r}"
            needs.setdefault(node, []).append((capability, reason))
    return needs


def opinfo_failures(
    op,
    dtypes: list[torch.dtype],
    samples_per_dtype: int,
    tolerances: Mapping,
    keep=None,
    announce: bool = False,
    gradients: bool = False,
) -> list[str]:
    """Runs the first `samples_per_dtype` samples of OpInfo `op` for each of `dtypes` the CPU supports
    (those `keep(sample)` accepts) on both devices; describes each that differs. With `gradients`, only the
    dtypes the CPU differentiates, with samples that require grad, whose gradients are compared too
    (check_opinfo_sample). With `announce`, names each sample on stderr before running it (for runs in a
    separate process that might crash)."""
    supported = op.supported_backward_dtypes("cpu") if gradients else op.supported_dtypes("cpu")
    failures = []
    for dtype in [d for d in dtypes if d in supported and d in DEVICE_DTYPES]:
        samples = op.sample_inputs("cpu", dtype, requires_grad=gradients)
        for i, sample in enumerate(itertools.islice(samples, samples_per_dtype)):
            if keep is not None and not keep(sample):
                continue
            description = f"{op.name} {dtype_id(dtype)} sample {i} {sample.summary()}"
            if announce:
                print(f"running {description}", file=sys.stderr, flush=True)
            try:
                check_opinfo_sample(op, sample, tolerances, gradients)
            except Exception as e:  # noqa: BLE001 (every sample runs; the caller reports them all)
                failures.append(f"{description}:\n{type(e).__name__}: {e}")
    return failures


def check_opinfo_sample(op, sample, tolerances: Mapping, gradients: bool = False) -> None:
    """Runs one OpInfo sample on the CPU and, moved to foo, on foo; raises when they differ
    (results not close, or not the same exception type). With `gradients`, the gradients of the sum of
    the floating outputs with respect to each input that requires grad must match too."""
    cpu_inputs, foo_inputs = opinfo_inputs(sample, torch.device("cpu")), opinfo_inputs(sample, FOO)
    outcome = run_like_cpu(
        lambda: opinfo_results(op, sample, cpu_inputs, gradients),
        lambda: opinfo_results(op, sample, foo_inputs, gradients),
    )
    if outcome:
        assert_close_to_cpu(*outcome, tolerances)


def opinfo_inputs(sample, device: torch.device) -> tuple:
    """(input, args, kwargs) of an OpInfo sample on `device`: each tensor a fresh leaf, requiring grad as the
    sample's does (on foo a copy with the same strides)."""

    def leaf(value: object) -> object:
        if not isinstance(value, torch.Tensor):
            return value
        t = value.detach()
        return (t if device.type == "cpu" else to_foo_keeping_layout(t)).requires_grad_(value.requires_grad)

    return tree_map(leaf, (sample.input, sample.args, sample.kwargs))


def opinfo_results(op, sample, inputs: tuple, gradients: bool) -> object:
    """The op's outputs for the sample's `inputs` (opinfo_inputs); with `gradients`, (outputs, the gradient of
    the sum of its floating outputs, complex ones as real and imaginary parts, with respect to each input that
    requires grad, None for those it does not reach), or (outputs, None) when none requires grad or no output has
    one."""
    outputs = op(inputs[0], *inputs[1], **inputs[2])
    detached = tree_map(lambda v: v.detach() if isinstance(v, torch.Tensor) else v, outputs)
    if not gradients:
        return detached
    leaves = [t for t in tree_flatten(inputs)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
    floating = [
        torch.view_as_real(t) if t.is_complex() else t
        for t in tree_flatten(sample.output_process_fn_grad(outputs))[0]
        if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex()) and t.requires_grad
    ]
    if not (leaves and floating):
        return detached, None
    return detached, list(torch.autograd.grad(sum(t.sum() for t in floating), leaves, allow_unused=True))
