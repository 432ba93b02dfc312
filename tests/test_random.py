"""Random numbers: the Philox generators (torch.Generator, torch.foo's RNG functions, fork), the counter layout
against a pure-Python Philox4x32-10, every random op's range and statistics, dropout, sort and topk against the
CPU, and bad arguments raising the CPU's exceptions. Nothing falls back to the CPU.
"""

import copy
import math
import pickle
import threading
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from conftest import (
    FLOAT_DTYPES,
    FOO,
    LAYOUTS,
    assert_exact,
    dtype_id,
    run_like_cpu,
    run_python_json,
)

pytestmark = pytest.mark.usefixtures("no_fallback")

Tensor = torch.Tensor

INT_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
N = 100_000  # samples for statistical checks: a standard error of about 0.3% of the spread
SMALL = 100  # elements for checks of identity, not statistics: 6 full tiles of 16 and part of a 7th


def gen(seed: int, device: torch.device = FOO) -> torch.Generator:
    return torch.Generator(device=device).manual_seed(seed)


def make_state(seed: int, offset: int) -> Tensor:
    """A foo RNG state: 16 bytes, the seed and then the offset, each a little-endian uint64."""
    return torch.tensor(list(seed.to_bytes(8, "little") + offset.to_bytes(8, "little")), dtype=torch.uint8)


def state_words(state: Tensor) -> tuple[int, int]:
    """(seed, offset) of a foo RNG state."""
    raw = bytes(state.tolist())
    return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")


def default_offset() -> int:
    return state_words(torch.foo.get_rng_state())[1]


def assert_differ(a: Tensor, b: Tensor) -> None:
    assert not torch.equal(a.cpu(), b.cpu()), "two draws that should differ are equal"


def assert_moments(
    x: Tensor, mean: float, std: float, kurtosis: float = 3.0, rounded_to: torch.dtype | None = None
) -> None:
    """x's sample mean and standard deviation within five standard errors of `mean` and `std` (the error of the
    standard deviation depends on the distribution's kurtosis: 3 normal, 1.8 uniform, 9 exponential), with room
    for values rounded to `rounded_to` (default: x's dtype)."""
    rounded_to = rounded_to or x.dtype
    slack = 2 * torch.finfo(rounded_to).eps * (abs(mean) + std) if rounded_to.is_floating_point else 0.0
    values = x.cpu().double()
    n = values.numel()
    assert abs(values.mean().item() - mean) < 5 * std / math.sqrt(n) + slack, f"mean {values.mean().item()}"
    std_error = std * math.sqrt((kurtosis - 1) / (4 * n))
    assert abs(values.std().item() - std) < 5 * std_error + slack, f"std {values.std().item()}"


def assert_frequency(hits: Tensor, p: float, slack: float = 0.0) -> None:
    """The fraction of True in `hits` within five standard errors of `p`."""
    n = hits.numel()
    frequency = hits.cpu().double().mean().item()
    assert abs(frequency - p) <= 5 * math.sqrt(p * (1 - p) / n) + slack, f"frequency {frequency}, expected {p}"


def assert_counts(values: Tensor, probabilities: list[float]) -> None:
    """Each value k in 0 .. len(probabilities) - 1 drawn with probabilities[k] (within five standard errors)."""
    counts = torch.bincount(values.cpu().long().flatten(), minlength=len(probabilities))
    assert counts.numel() == len(probabilities), f"values beyond {len(probabilities) - 1}"
    n = values.numel()
    for k, p in enumerate(probabilities):
        assert abs(counts[k].item() / n - p) <= 5 * math.sqrt(p * (1 - p) / n), f"value {k}: {counts.tolist()}"


# ---- a pure-Python Philox4x32-10 ----------------------------------------------------------------------

MASK32 = 0xFFFF_FFFF


def philox4x32_10(counter: tuple[int, int, int, int], key: tuple[int, int]) -> tuple[int, int, int, int]:
    """Philox4x32-10 (Salmon et al., SC 2011, as Random123 defines it) in Python integers."""
    x, y, z, w = counter
    k0, k1 = key
    for _ in range(10):
        p0, p1 = 0xD2511F53 * x, 0xCD9E8D57 * z
        x, y, z, w = (p1 >> 32) ^ y ^ k0, p1 & MASK32, (p0 >> 32) ^ w ^ k1, p0 & MASK32
        k0, k1 = (k0 + 0x9E3779B9) & MASK32, (k1 + 0xBB67AE85) & MASK32
    return x, y, z, w


def philox_block(seed: int, c: int) -> tuple[int, int, int, int]:
    """Block c of a generator with seed `seed`: the 128-bit counter c (high 64 bits zero) under key seed."""
    return philox4x32_10((c & MASK32, c >> 32, 0, 0), (seed & MASK32, seed >> 32))


def reference_words64(seed: int, offset: int, n: int) -> list[int]:
    """n 64-bit draws as signed int64: elements 16t + j and 16t + 8 + j are y:x and w:z of block offset + 8t + j."""
    words = []
    for i in range(n):
        t, r = divmod(i, 16)
        x, y, z, w = philox_block(seed, offset + 8 * t + r % 8)
        word = y << 32 | x if r < 8 else w << 32 | z
        words.append(word - (1 << 64) if word >> 63 else word)
    return words


def reference_words32(seed: int, offset: int, n: int) -> list[int]:
    """n 32-bit draws: element 32t + 8g + j is word g (x, y, z, w) of block offset + 8t + j."""
    words = []
    for i in range(n):
        t, r = divmod(i, 32)
        words.append(philox_block(seed, offset + 8 * t + r % 8)[r // 8])
    return words


# Random123's known answers (kat_vectors): counter, key, result.
PHILOX_KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((MASK32,) * 4, (MASK32,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize("case", PHILOX_KNOWN_ANSWERS, ids=["zeros", "ones", "pi"])
def test_reference_philox_gives_random123_known_answers(case):
    counter, key, expected = case
    assert philox4x32_10(counter, key) == expected


SEEDS = [0, 1, 0x0123_4567_89AB_CDEF, 2**64 - 1]


@pytest.mark.parametrize("offset", [0, 24])
@pytest.mark.parametrize("seed", SEEDS, ids=hex)
def test_full_range_int64_draws_are_philox_words(seed, offset):
    g = gen(0)
    g.set_state(make_state(seed, offset))
    x = torch.empty(SMALL, dtype=torch.int64, device=FOO).random_(-(2**63), None, generator=g)
    assert x.cpu().tolist() == reference_words64(seed, offset, SMALL)


@pytest.mark.parametrize("seed", SEEDS, ids=hex)
def test_float32_uniforms_are_the_top_24_bits_of_philox_words(seed):
    """The 32-bit layout: rand's float32 values are word >> 8 scaled by 2^-24 (kernels_cl/random/philox.clh)."""
    u = torch.rand(SMALL, device=FOO, generator=gen(seed)).cpu()
    assert (u * 2**24).long().tolist() == [w >> 8 for w in reference_words32(seed, 0, SMALL)]


def test_values_do_not_depend_on_shape():
    torch.manual_seed(9)
    flat = torch.randn(4096, device=FOO)
    torch.manual_seed(9)
    square = torch.randn(64, 64, device=FOO)
    assert_exact(square.reshape(-1).cpu(), flat.cpu())


def test_values_depend_on_seed_and_offset_alone():
    """A generator set to offset 8 continues where one tile of 32 float32 values from offset 0 ended."""
    whole = torch.rand(64, device=FOO, generator=gen(5))
    g = gen(0)
    g.set_state(make_state(5, 8))
    assert_exact(torch.rand(32, device=FOO, generator=g).cpu(), whole[32:].cpu())


FILLS = {
    "uniform_": lambda t: t.uniform_(-2, 3),
    "normal_": lambda t: t.normal_(1, 2),
    "bernoulli_": lambda t: t.bernoulli_(0.3),
    "random_": lambda t: t.random_(0, 1000),
    "exponential_": lambda t: t.exponential_(),
    "log_normal_": lambda t: t.log_normal_(),
}


@pytest.mark.parametrize("layout", ["transposed", "sliced", "rank10"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("name", FILLS)
def test_non_contiguous_fill_equals_contiguous_fill(name, dtype, layout):
    """A view is filled in logical order, as a contiguous tensor of its shape; the rest of its base keeps its values."""
    base_shape, view = LAYOUTS[layout]
    base = torch.full(base_shape, -7.0, dtype=dtype, device=FOO)
    torch.foo.manual_seed(3)
    filled = FILLS[name](view(base))
    torch.foo.manual_seed(3)
    contiguous = FILLS[name](torch.empty(filled.shape, dtype=dtype, device=FOO))
    assert_exact(filled.cpu(), contiguous.cpu())
    outside = torch.ones(base_shape, dtype=torch.bool)
    view(outside).fill_(False)
    assert (base.cpu()[outside] == -7).all()


# Calls of n elements and how many elements a tile of 8 Philox blocks gives them: 32 from 32-bit draws, 16 from
# 64-bit draws (float64 values, integer ranges above 2^32, randperm's keys).
TILED_CALLS = {
    "rand_float32": (lambda n: torch.rand(n, device=FOO), 32),
    "rand_float64": (lambda n: torch.rand(n, device=FOO, dtype=torch.float64), 16),
    "randn_float16": (lambda n: torch.randn(n, device=FOO, dtype=torch.float16), 32),
    "normal_float64": (lambda n: torch.empty(n, device=FOO, dtype=torch.float64).normal_(), 16),
    "exponential_bfloat16": (lambda n: torch.empty(n, device=FOO, dtype=torch.bfloat16).exponential_(), 32),
    "bernoulli_float64": (lambda n: torch.empty(n, device=FOO, dtype=torch.float64).bernoulli_(0.5), 32),
    "randint_int64": (lambda n: torch.randint(0, 10, (n,), device=FOO), 32),
    "randint_above_2_32": (lambda n: torch.randint(0, 2**33, (n,), device=FOO), 16),
    "random_full_range": (lambda n: torch.empty(n, dtype=torch.int64, device=FOO).random_(-(2**63), None), 16),
    "randperm": (lambda n: torch.randperm(n, device=FOO), 16),
    "multinomial": (lambda n: torch.multinomial(torch.ones(3, device=FOO), n, replacement=True), 32),
    "dropout": (lambda n: F.dropout(torch.ones(n, device=FOO), 0.5), 32),
}


@pytest.mark.parametrize("n", [1, 16, 32, 33, 100])
@pytest.mark.parametrize("name", TILED_CALLS)
def test_offset_advances_by_8_per_started_tile(name, n):
    call, tile = TILED_CALLS[name]
    torch.foo.manual_seed(0)
    call(n)
    assert default_offset() == 8 * math.ceil(n / tile)
    call(n)
    assert default_offset() == 16 * math.ceil(n / tile)


# ---- torch.Generator ---------------------------------------------------------------------------------


def test_generator_seed_and_state_round_trip():
    g = torch.Generator(device="foo")
    assert g.device == FOO
    seed = 0x0123_4567_89AB_CDEF
    assert g.manual_seed(seed) is g
    assert g.initial_seed() == seed
    state = g.get_state()
    assert (state.device.type, state.dtype, state.shape) == ("cpu", torch.uint8, (16,))
    assert_exact(state, make_state(seed, 0))

    first = torch.rand(SMALL, device=FOO, generator=g)
    assert state_words(g.get_state()) == (seed, 8 * 4)  # 100 float32 values: 4 tiles of 32
    g.set_state(state)
    assert_exact(torch.rand(SMALL, device=FOO, generator=g).cpu(), first.cpu())
    assert_differ(torch.rand(SMALL, device=FOO, generator=g), first)

    random_seed = g.seed()
    assert g.initial_seed() == random_seed
    assert_exact(g.get_state(), make_state(random_seed, 0))
    assert g.seed() != random_seed


def test_generator_manual_seed_takes_negative_and_64_bit_seeds():
    """As a CPU generator: a negative seed is taken modulo 2^64."""
    assert gen(-1).initial_seed() == 2**64 - 1 == torch.Generator().manual_seed(-1).initial_seed()
    assert_exact(
        torch.rand(8, device=FOO, generator=gen(-1)).cpu(), torch.rand(8, device=FOO, generator=gen(2**64 - 1)).cpu()
    )


def test_generator_clone_pickle_and_deepcopy_keep_the_state():
    g = gen(3)
    torch.rand(5, device=FOO, generator=g)
    expected = torch.rand(SMALL, device=FOO, generator=g.clone_state())
    for copied in [g.clone_state(), pickle.loads(pickle.dumps(g)), copy.deepcopy(g)]:
        assert copied.device == FOO
        assert_exact(copied.get_state(), make_state(3, 8))
        assert_exact(torch.rand(SMALL, device=FOO, generator=copied).cpu(), expected.cpu())
    assert_exact(g.get_state(), make_state(3, 8))


def test_threads_reserve_distinct_counters():
    """Four threads drawing from one default generator: no reservation is lost."""
    torch.foo.manual_seed(0)

    def draw() -> None:
        for _ in range(100):
            torch.rand(32, device=FOO)

    threads = [threading.Thread(target=draw) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert default_offset() == 8 * 400


@pytest.mark.parametrize(
    "state",
    [torch.zeros(5, dtype=torch.uint8), torch.Generator().get_state()],
    ids=["short", "cpu_state"],
)
def test_generator_rejects_a_state_of_the_wrong_size(state):
    with pytest.raises(RuntimeError, match="16 bytes"):
        torch.Generator(device=FOO).set_state(state)


def test_generator_rejects_a_state_of_the_wrong_dtype():
    with pytest.raises(TypeError, match="ByteTensor"):
        torch.Generator(device=FOO).set_state(torch.zeros(16, dtype=torch.int32))


# Every random op with generator=g: SMALL values, or fewer where that is all the op makes.
GENERATOR_CALLS: dict[str, Callable[[torch.Generator], Tensor]] = {
    "uniform_": lambda g: torch.empty(SMALL, device=FOO).uniform_(generator=g),
    "normal_": lambda g: torch.empty(SMALL, device=FOO).normal_(generator=g),
    "normal_tensor_tensor": lambda g: torch.normal(
        torch.zeros(SMALL, device=FOO), torch.ones(SMALL, device=FOO), generator=g
    ),
    "normal_tensor_float": lambda g: torch.normal(torch.zeros(SMALL, device=FOO), 2.0, generator=g),
    "normal_float_tensor": lambda g: torch.normal(1.0, torch.ones(SMALL, device=FOO), generator=g),
    "normal_float_float": lambda g: torch.normal(0.0, 1.0, (SMALL,), device=FOO, generator=g),
    "normal_out": lambda g: torch.normal(
        torch.zeros(SMALL, device=FOO), 1.0, generator=g, out=torch.empty(SMALL, device=FOO)
    ),
    "bernoulli_float": lambda g: torch.empty(SMALL, device=FOO).bernoulli_(0.5, generator=g),
    "bernoulli_tensor": lambda g: torch.empty(SMALL, device=FOO).bernoulli_(
        torch.full((SMALL,), 0.5, device=FOO), generator=g
    ),
    "bernoulli": lambda g: torch.bernoulli(torch.full((SMALL,), 0.5, device=FOO), generator=g),
    "bernoulli_p": lambda g: torch.bernoulli(torch.empty(SMALL, device=FOO), 0.5, generator=g),
    "random_": lambda g: torch.empty(SMALL, dtype=torch.int32, device=FOO).random_(generator=g),
    "random_to": lambda g: torch.empty(SMALL, dtype=torch.int32, device=FOO).random_(1000, generator=g),
    "random_from_to": lambda g: torch.empty(SMALL, device=FOO).random_(-500, 500, generator=g),
    "random_full_range": lambda g: torch.empty(SMALL, dtype=torch.int64, device=FOO).random_(
        -(2**63), None, generator=g
    ),
    "rand": lambda g: torch.rand(SMALL, device=FOO, generator=g),
    "randn": lambda g: torch.randn(SMALL, device=FOO, dtype=torch.float64, generator=g),
    "randint": lambda g: torch.randint(0, 1000, (SMALL,), device=FOO, generator=g),
    "rand_like": lambda g: torch.rand_like(torch.empty(SMALL, device=FOO), generator=g),
    "randn_like": lambda g: torch.randn_like(torch.empty(SMALL, device=FOO), generator=g),
    "randint_like": lambda g: torch.randint_like(torch.empty(SMALL, device=FOO), 1000, generator=g),
    "randperm": lambda g: torch.randperm(SMALL, device=FOO, generator=g),
    "multinomial": lambda g: torch.multinomial(torch.ones(20, device=FOO), 20, generator=g),
    "multinomial_replacement": lambda g: torch.multinomial(
        torch.ones(20, device=FOO), SMALL, replacement=True, generator=g
    ),
    "exponential_": lambda g: torch.empty(SMALL, device=FOO).exponential_(generator=g),
    "geometric_": lambda g: torch.empty(SMALL, device=FOO).geometric_(0.2, generator=g),
    "log_normal_": lambda g: torch.empty(SMALL, device=FOO).log_normal_(generator=g),
    "cauchy_": lambda g: torch.empty(SMALL, device=FOO).cauchy_(generator=g),
}


@pytest.mark.parametrize("name", GENERATOR_CALLS)
def test_op_draws_from_its_generator(name):
    """The same seed gives the same values, another seed others; the generator advances and the default
    generator does not."""
    call = GENERATOR_CALLS[name]
    torch.foo.manual_seed(0)
    g = gen(1)
    first = call(g)
    assert first.device == FOO
    assert state_words(g.get_state())[1] > 0
    assert_exact(call(gen(1)).cpu(), first.cpu())
    assert_differ(call(gen(2)), first)
    assert_differ(call(g), first)
    assert_exact(torch.foo.get_rng_state(), make_state(0, 0))


@pytest.mark.parametrize("name", ["uniform_", "normal_float_float", "bernoulli_float", "randint", "randperm"])
def test_cpu_generator_is_rejected(name):
    with pytest.raises(RuntimeError, match="'foo' device type for generator"):
        GENERATOR_CALLS[name](torch.Generator())


# ---- torch.foo's RNG functions ----------------------------------------------------------------------------


def test_manual_seed_sets_the_current_device_state():
    torch.foo.manual_seed(123)
    assert torch.foo.initial_seed() == 123
    assert_exact(torch.foo.get_rng_state(), make_state(123, 0))
    first = torch.randn(SMALL, device=FOO)
    torch.foo.manual_seed(123)
    assert_exact(torch.randn(SMALL, device=FOO).cpu(), first.cpu())
    assert_differ(torch.randn(SMALL, device=FOO), first)


def test_manual_seed_all_seeds_every_device():
    torch.foo.manual_seed_all(77)
    assert [state_words(s) for s in torch.foo.get_rng_state_all()] == [(77, 0)] * torch.foo.device_count()
    assert torch.foo.initial_seed() == 77


def test_seed_and_seed_all_pick_new_random_seeds():
    torch.foo.manual_seed_all(5)
    torch.foo.seed()
    seeded = torch.foo.initial_seed()
    assert seeded != 5
    assert state_words(torch.foo.get_rng_state()) == (seeded, 0)
    torch.foo.seed_all()
    states = [state_words(s) for s in torch.foo.get_rng_state_all()]
    assert states[0][0] not in (5, seeded)
    assert states == [states[0]] * torch.foo.device_count()


def test_set_rng_state_replays_exactly():
    torch.foo.manual_seed(11)
    torch.rand(10, device=FOO)
    state = torch.foo.get_rng_state()
    first = torch.randn(SMALL, device=FOO)
    second = torch.randn(SMALL, device=FOO)
    assert_differ(second, first)
    torch.foo.set_rng_state(state)
    assert_exact(torch.randn(SMALL, device=FOO).cpu(), first.cpu())
    assert_exact(torch.randn(SMALL, device=FOO).cpu(), second.cpu())


def test_set_rng_state_all_round_trip():
    states = [make_state(100 + i, 8 * i) for i in range(torch.foo.device_count())]
    torch.foo.set_rng_state_all(states)
    for state, expected in zip(torch.foo.get_rng_state_all(), states, strict=True):
        assert_exact(state, expected)


def test_not_in_bad_fork():
    assert torch.foo._is_in_bad_fork() is False


def test_fork_rng_restores_the_state():
    torch.foo.manual_seed(4)
    torch.rand(10, device=FOO)
    before = torch.foo.get_rng_state()
    with torch.random.fork_rng(devices=[0], device_type="foo"):
        inside = torch.rand(SMALL, device=FOO)
        torch.foo.manual_seed(99)
    assert_exact(torch.foo.get_rng_state(), before)
    assert_exact(torch.rand(SMALL, device=FOO).cpu(), inside.cpu())


@pytest.mark.two_devices
def test_torch_manual_seed_seeds_every_device_alike():
    torch.manual_seed(31)
    on_0 = torch.randn(SMALL, device="foo:0")
    on_1 = torch.randn(SMALL, device="foo:1")
    assert on_1.device == torch.device("foo", 1)
    assert_exact(on_1.cpu(), on_0.cpu())
    assert [state_words(s) for s in torch.foo.get_rng_state_all()] == [(31, 32), (31, 32)]


@pytest.mark.two_devices
def test_manual_seed_and_rng_state_follow_the_current_device():
    torch.foo.manual_seed_all(1)
    torch.foo.set_device(1)
    torch.foo.manual_seed(2)
    torch.rand(1, device="foo:1")
    assert state_words(torch.foo.get_rng_state()) == (2, 8)
    assert state_words(torch.foo.get_rng_state(0)) == (1, 0)
    assert torch.foo.initial_seed() == 2


# ---- fork --------------------------------------------------------------------------------------------


# Forks after `prelude`; the child seeds every device with torch.manual_seed, reports on a pipe whether it is in
# a bad fork, what a foo op gave and its seed (or the error), and leaves by os._exit; the parent prints both reports.
FORK_SCRIPT = """
import json, os
import torch
{prelude}
report = {{"initialized_before_fork": torch.foo.is_initialized()}}
read_end, write_end = os.pipe()
pid = os.fork()
if pid == 0:
    child = {{"bad_fork": torch.foo._is_in_bad_fork()}}
    torch.manual_seed(1)  # skips foo in a bad fork
    try:
        child["sum"] = torch.ones(3, device="foo").add(1).sum().item()
        child["initial_seed"] = torch.foo.initial_seed()
    except RuntimeError as e:
        child["error"] = str(e)
    os.write(write_end, json.dumps(child).encode())
    os._exit(0)
os.close(write_end)
with os.fdopen(read_end) as f:
    report["child"] = json.loads(f.read())
report["child_status"] = os.waitpid(pid, 0)[1]
report["parent_bad_fork"] = torch.foo._is_in_bad_fork()
report["parent_sum"] = torch.ones(3, device="foo").add(1).sum().item()
print(json.dumps(report))
"""


def test_forked_child_of_an_initialised_process_cannot_use_foo():
    report = run_python_json(FORK_SCRIPT.format(prelude="torch.ones(2, device='foo').sum().item()"))
    assert report["initialized_before_fork"] is True
    assert report["child"]["bad_fork"] is True
    assert "spawn" in report["child"].get("error", ""), report["child"]
    assert report["child_status"] == 0
    assert report["parent_bad_fork"] is False
    assert report["parent_sum"] == 6


def test_forked_child_of_a_process_that_only_seeded_can_use_foo():
    """torch.manual_seed does not open the devices, so a child forked after it is free to."""
    report = run_python_json(FORK_SCRIPT.format(prelude="torch.manual_seed(0)"))
    assert report["initialized_before_fork"] is False
    assert report["child"] == {"bad_fork": False, "sum": 6, "initial_seed": 1}
    assert report["parent_bad_fork"] is False
    assert report["parent_sum"] == 6


# ---- continuous distributions -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_uniform_range_and_moments(dtype):
    """[-3, 5): every value of U[0, 1) in any of these dtypes maps to a value below 5 exactly."""
    x = torch.empty(N, dtype=dtype, device=FOO).uniform_(-3, 5, generator=gen(0))
    assert x.dtype == dtype
    values = x.cpu().double()
    assert values.min() >= -3 and values.max() < 5
    assert values.min() < -2.99 and values.max() > 4.9
    assert_moments(x, 1.0, 8 / math.sqrt(12), kurtosis=1.8)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_rand_and_rand_like(dtype):
    x = torch.rand(N, dtype=dtype, device=FOO, generator=gen(1))
    like = torch.rand_like(torch.empty(4, 5, dtype=dtype, device=FOO))
    assert (like.dtype, like.shape, like.device) == (dtype, (4, 5), FOO)
    values = x.cpu().double()
    assert values.min() >= 0 and values.max() < 1
    # U[0, 1) keeps as many random bits as the dtype's significand: multiples of 2^-digits.
    digits = {torch.float32: 24, torch.float64: 53, torch.float16: 11, torch.bfloat16: 8}[dtype]
    scaled = values * 2**digits
    assert torch.equal(scaled, scaled.round())
    if dtype == torch.float64:
        assert (scaled % 2**21 != 0).any(), "float64 values hold no more than 32 random bits"
    assert_moments(x, 0.5, 1 / math.sqrt(12), kurtosis=1.8)


def assert_standard_normal(z: Tensor, rounded_to: torch.dtype) -> None:
    """Moments of N(0, 1) and the frequency of |z| > 2 (4.55%), with room for values rounded to `rounded_to`
    (the density near |z| = 2 is 0.054 on either side)."""
    assert_moments(z, 0.0, 1.0, rounded_to=rounded_to)
    assert_frequency(z.abs() > 2, 0.0455003, slack=0.2 * torch.finfo(rounded_to).eps)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_normal_moments_and_tails(dtype):
    x = torch.empty(N, dtype=dtype, device=FOO).normal_(2, 3, generator=gen(2))
    assert x.dtype == dtype
    assert_standard_normal((x.cpu().double() - 2) / 3, dtype)
    assert_standard_normal(torch.randn(N, dtype=dtype, device=FOO, generator=gen(3)), dtype)
    like = torch.randn_like(torch.empty(3, 2, dtype=dtype, device=FOO))
    assert (like.dtype, like.shape, like.device) == (dtype, (3, 2), FOO)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
def test_normal_with_tensor_mean_and_std(dtype):
    """Each element's own mean and std: four rows of N(10r, r + 1)."""
    rows = torch.arange(4, dtype=dtype, device=FOO).unsqueeze(1)
    mean, std = (10 * rows).expand(4, N // 4), (rows + 1).expand(4, N // 4)

    def check(x: Tensor, means: Tensor, stds: Tensor) -> None:
        assert (x.device, x.dtype, x.shape) == (FOO, dtype, (4, N // 4))
        for r in range(4):
            assert_moments(x[r], means[r, 0].item(), stds[r, 0].item())

    check(torch.normal(mean, std, generator=gen(4)), mean, std)
    check(torch.normal(mean, 2.0, generator=gen(5)), mean, torch.full_like(std, 2.0))
    check(torch.normal(-1.0, std, generator=gen(6)), torch.full_like(mean, -1.0), std)
    out = torch.empty(4, N // 4, dtype=dtype, device=FOO)
    assert torch.normal(mean, std, generator=gen(4), out=out) is out
    assert_exact(out.cpu(), torch.normal(mean, std, generator=gen(4)).cpu())


def test_normal_float_float_overload_and_out():
    x = torch.normal(-1.0, 0.5, (4, N // 4), device=FOO, dtype=torch.float64, generator=gen(7))
    assert (x.device, x.dtype, x.shape) == (FOO, torch.float64, (4, N // 4))
    assert_moments(x, -1.0, 0.5)
    out = torch.empty(0, device=FOO)
    assert torch.normal(-1.0, 0.5, (N,), generator=gen(7), out=out) is out
    assert out.shape == (N,)
    assert_moments(out, -1.0, 0.5)
    assert_exact(out.cpu(), torch.normal(-1.0, 0.5, (N,), device=FOO, generator=gen(7)).cpu())


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_exponential_is_positive_with_mean_one_over_lambda(dtype):
    x = torch.empty(N, dtype=dtype, device=FOO).exponential_(2.0, generator=gen(8))
    assert (x.cpu() > 0).all()
    assert_moments(x, 0.5, 0.5, kurtosis=9)


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, torch.int16, torch.int32, torch.int64], ids=dtype_id)
def test_geometric_counts_trials_from_one(dtype):
    p = 0.3
    x = torch.empty(N, dtype=dtype, device=FOO).geometric_(p, generator=gen(9))
    values = x.cpu().double()
    assert values.min() == 1
    assert torch.equal(values, values.round())
    assert_frequency(values == 1, p)
    assert_moments(values, 1 / p, math.sqrt(1 - p) / p, kurtosis=9 + p**2 / (1 - p))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_log_normal_is_exp_of_a_normal(dtype):
    x = torch.empty(N, dtype=dtype, device=FOO).log_normal_(0.5, 0.25, generator=gen(10))
    values = x.cpu().double()
    assert (values > 0).all()
    assert_moments(values.log(), 0.5, 0.25, rounded_to=dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_cauchy_median_and_quartiles(dtype):
    """Cauchy(1, 2) has no mean: its median is 1 and half its mass lies within 2 of it."""
    x = torch.empty(N, dtype=dtype, device=FOO).cauchy_(1.0, 2.0, generator=gen(11))
    values = x.cpu().double()
    assert abs(values.median().item() - 1) < 5 * math.pi * 2 / (2 * math.sqrt(N)) + 4 * torch.finfo(dtype).eps
    assert_frequency((values - 1).abs() < 2, 0.5, slack=0.2 * torch.finfo(dtype).eps)


# ---- Bernoulli ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, *INT_DTYPES, torch.bool], ids=dtype_id)
def test_bernoulli_scalar_p(dtype):
    x = torch.empty(N, dtype=dtype, device=FOO).bernoulli_(0.3, generator=gen(12))
    assert x.dtype == dtype
    values = x.cpu().double()
    assert ((values == 0) | (values == 1)).all()
    assert_frequency(values == 1, 0.3)
    assert (torch.empty(SMALL, dtype=dtype, device=FOO).bernoulli_(0.0).cpu() == 0).all()
    assert (torch.empty(SMALL, dtype=dtype, device=FOO).bernoulli_(1.0).cpu() == 1).all()


@pytest.mark.parametrize("p_dtype", [torch.float32, torch.float64, torch.float16], ids=dtype_id)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int32, torch.bool], ids=dtype_id)
def test_bernoulli_tensor_p(dtype, p_dtype):
    """Each element's own p, broadcast along rows: 0, 0.1, 0.5, 0.9 and 1."""
    p = torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0], dtype=p_dtype, device=FOO).unsqueeze(1)
    x = torch.empty(5, N // 5, dtype=dtype, device=FOO).bernoulli_(p, generator=gen(13))
    values = x.cpu().double()
    for row, probability in enumerate([0.0, 0.1, 0.5, 0.9, 1.0]):
        assert_frequency(values[row] == 1, probability)
    assert ((values == 0) | (values == 1)).all()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_torch_bernoulli_overloads(dtype):
    p = torch.full((N,), 0.25, dtype=dtype, device=FOO)
    x = torch.bernoulli(p, generator=gen(14))
    assert (x.dtype, x.shape) == (dtype, (N,))
    assert_frequency(x.cpu() == 1, 0.25)
    assert_frequency(torch.bernoulli(p, 0.75, generator=gen(15)).cpu() == 1, 0.75)
    out = torch.empty(N, dtype=dtype, device=FOO)
    assert torch.bernoulli(p, generator=gen(14), out=out) is out
    assert_exact(out.cpu(), x.cpu())


# ---- integers: random_, randint, randperm --------------------------------------------------------------


def top_of(dtype: torch.dtype) -> int:
    """The largest value random_() draws: every integer a floating dtype holds exactly, the integer maximum."""
    if dtype == torch.bool:
        return 1
    if dtype.is_floating_point:
        return 2 ** {torch.float32: 24, torch.float64: 53, torch.float16: 11, torch.bfloat16: 8}[dtype]
    return torch.iinfo(dtype).max


def assert_uniform_integers(x: Tensor, low: int, high: int) -> None:
    """x holds integers in [low, high], each equally likely: all of them when there are few, else the right mean."""
    values = x.cpu()
    if values.dtype.is_floating_point:
        assert torch.equal(values, values.round())
    assert values.min().item() >= low and values.max().item() <= high
    count = high - low + 1
    if count <= 2048:
        assert_counts(values.long() - low, [1 / count] * count)
    else:
        assert_moments(values.double(), (low + high) / 2, count / math.sqrt(12), kurtosis=1.8)


RANDOM_DTYPES = [*FLOAT_DTYPES, *INT_DTYPES]


@pytest.mark.parametrize("dtype", [*RANDOM_DTYPES, torch.bool], ids=dtype_id)
def test_random_without_bounds(dtype):
    x = torch.empty(N, dtype=dtype, device=FOO).random_(generator=gen(16))
    assert x.dtype == dtype
    assert_uniform_integers(x, 0, top_of(dtype))


@pytest.mark.parametrize("dtype", [*RANDOM_DTYPES, torch.bool], ids=dtype_id)
def test_random_to(dtype):
    to = 2 if dtype == torch.bool else 10
    assert_uniform_integers(torch.empty(N, dtype=dtype, device=FOO).random_(to, generator=gen(17)), 0, to - 1)


@pytest.mark.parametrize("dtype", RANDOM_DTYPES, ids=dtype_id)
def test_random_from_to(dtype):
    low, high = (3, 9) if dtype == torch.uint8 else (-5, 5)
    x = torch.empty(N, dtype=dtype, device=FOO).random_(low, high, generator=gen(18))
    assert_uniform_integers(x, low, high - 1)


@pytest.mark.parametrize("dtype", RANDOM_DTYPES, ids=dtype_id)
def test_random_from_to_the_maximum(dtype):
    """random_(from, None): [from, the largest value random_() draws]."""
    low = 7 if dtype == torch.uint8 else -100
    x = torch.empty(N, dtype=dtype, device=FOO).random_(low, None, generator=gen(19))
    assert_uniform_integers(x, low, top_of(dtype))


def test_random_full_64_bit_range():
    x = torch.empty(N, dtype=torch.int64, device=FOO).random_(-(2**63), None, generator=gen(20)).cpu()
    assert_frequency(x < 0, 0.5)
    assert x.min() < -(2**62) and x.max() > 2**62


@pytest.mark.parametrize(
    "dtype", [torch.int8, torch.uint8, torch.int32, torch.int64, torch.float32, torch.float16], ids=dtype_id
)
def test_randint_covers_every_value(dtype):
    low, high = (0, 7) if dtype == torch.uint8 else (-3, 4)
    x = torch.randint(low, high, (N,), dtype=dtype, device=FOO, generator=gen(21))
    assert (x.dtype, x.device) == (dtype, FOO)
    assert_uniform_integers(x, low, high - 1)


def test_randint_defaults_and_like():
    x = torch.randint(5, (N,), device=FOO, generator=gen(22))
    assert x.dtype == torch.int64
    assert_uniform_integers(x, 0, 4)
    wide = torch.randint(-(2**40), 2**40, (N,), device=FOO, generator=gen(23))
    assert_uniform_integers(wide, -(2**40), 2**40 - 1)
    template = torch.empty(4, N // 4, dtype=torch.int16, device=FOO)
    like = torch.randint_like(template, 10)
    assert (like.dtype, like.shape, like.device) == (torch.int16, (4, N // 4), FOO)
    assert_uniform_integers(like, 0, 9)
    assert_uniform_integers(torch.randint_like(template, -4, 4), -4, 3)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32], ids=dtype_id)
@pytest.mark.parametrize("n", [0, 1, 2, 1000, 100_000])
def test_randperm_is_a_permutation(n, dtype):
    x = torch.randperm(n, dtype=dtype, device=FOO, generator=gen(24))
    assert (x.dtype, x.shape, x.device) == (dtype, (n,), FOO)
    values = x.cpu()
    assert torch.equal(values.sort().values, torch.arange(n, dtype=dtype))
    if n >= 1000:
        assert (values != torch.arange(n, dtype=dtype)).float().mean() > 0.99


def test_randperm_of_two_takes_both_orders():
    orders = {tuple(torch.randperm(2, device=FOO, generator=gen(seed)).tolist()) for seed in range(20)}
    assert orders == {(0, 1), (1, 0)}


def test_randperm_out():
    out = torch.empty(3, dtype=torch.int32, device=FOO)
    assert torch.randperm(50, out=out, generator=gen(25)) is out
    assert_exact(out.cpu(), torch.randperm(50, dtype=torch.int32, device=FOO, generator=gen(25)).cpu())


# ---- multinomial ----------------------------------------------------------------------------------------

WEIGHTS = [[0.0, 1.0, 2.0, 3.0, 4.0, 0.0], [5.0, 0.0, 0.0, 1.0, 0.0, 4.0]]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_multinomial_with_replacement_frequencies(dtype):
    weights = torch.tensor(WEIGHTS, dtype=dtype, device=FOO)
    x = torch.multinomial(weights, N // 2, replacement=True, generator=gen(26))
    assert (x.dtype, x.shape) == (torch.int64, (2, N // 2))
    for row, w in zip(x, WEIGHTS, strict=True):
        assert_counts(row, [v / sum(w) for v in w])
    one_row = torch.multinomial(weights[0], N, replacement=True, generator=gen(27))
    assert one_row.shape == (N,)
    assert_counts(one_row, [v / sum(WEIGHTS[0]) for v in WEIGHTS[0]])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=dtype_id)
def test_multinomial_without_replacement(dtype):
    """Rows of 8 categories, half of them weightless: 4 samples are each row's 4 weighted categories, and the
    first sample of many equal rows follows the weights."""
    g = torch.Generator().manual_seed(0)
    weights = torch.rand(500, 8, generator=g) + 0.1
    weights[torch.rand(500, 8, generator=g).argsort(1) < 4] = 0
    x = torch.multinomial(weights.to(dtype).to(FOO), 4, generator=gen(28)).cpu()
    assert x.shape == (500, 4)
    assert torch.equal(x.sort(1).values, (weights > 0).nonzero()[:, 1].view(500, 4))

    partial = torch.multinomial(weights.to(dtype).to(FOO), 2, generator=gen(29)).cpu()
    assert (partial[:, 0] != partial[:, 1]).all()
    assert (weights.gather(1, partial) > 0).all()

    first = torch.multinomial(
        torch.tensor([1.0, 2.0, 0.0, 3.0, 4.0], dtype=dtype, device=FOO).expand(N // 2, 5), 3, generator=gen(30)
    )
    assert_counts(first[:, 0], [0.1, 0.2, 0.0, 0.3, 0.4])
    assert ((first.cpu() != 2).all(1)).all()


def test_multinomial_out():
    weights = torch.tensor(WEIGHTS, device=FOO)
    out = torch.empty(1, dtype=torch.int64, device=FOO)
    assert torch.multinomial(weights, 5, replacement=True, generator=gen(31), out=out) is out
    assert_exact(out.cpu(), torch.multinomial(weights, 5, replacement=True, generator=gen(31)).cpu())


def test_multinomial_into_non_contiguous_out_matches_cpu():
    outcome = run_like_cpu(
        lambda: torch.multinomial(torch.ones(3, 5), 4, True, out=torch.empty(4, 3, dtype=torch.long).t()),
        lambda: torch.multinomial(
            torch.ones(3, 5, device=FOO), 4, True, out=torch.empty(4, 3, dtype=torch.long, device=FOO).t()
        ),
    )
    assert outcome is not None and outcome[0].shape == (3, 4)


# ---- sort and topk --------------------------------------------------------------------------------------


def sort_input(shape: tuple[int, ...], dtype: torch.dtype) -> Tensor:
    """A CPU tensor of few distinct values, so there are many ties; floats also get NaN, infinities and -0.0."""
    g = torch.Generator().manual_seed(1)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    x = torch.randint(0 if dtype == torch.uint8 else -4, 5, shape, generator=g).to(dtype)
    if dtype.is_floating_point and x.numel() > 0:
        special = torch.tensor([math.nan, math.inf, -math.inf, -0.0, 0.0], dtype=dtype)
        flat = x.view(-1)
        picks = torch.randint(0, flat.numel(), (max(1, flat.numel() // 8),), generator=g)
        flat[picks] = special[torch.arange(picks.numel()) % special.numel()]
    return x


SORT_CASES = {
    "row": ((37,), 0),
    "one": ((1,), 0),
    "matrix_dim0": ((9, 37), 0),
    "matrix_dim1": ((9, 37), 1),
    "matrix_dim_neg": ((9, 37), -1),
    "power_of_two": ((4, 64), 1),
    "long_rows": ((3, 1500), 1),  # wider than one local-memory chunk: global stages
    "longer_than_2_chunks": ((2, 5000), -1),
    "3d_dim1": ((4, 33, 5), 1),
    "empty": ((0, 3), 1),
    "zero_dim": ((), 0),
}
SORT_DTYPES = [*FLOAT_DTYPES, torch.int8, torch.int32, torch.int64, torch.uint8, torch.bool]


@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", SORT_CASES)
def test_stable_sort_matches_cpu(case, dtype, descending):
    shape, dim = SORT_CASES[case]
    x = sort_input(shape, dtype)
    expected = torch.sort(x, dim=dim, descending=descending, stable=True)
    actual = torch.sort(x.to(FOO), dim=dim, descending=descending, stable=True)
    assert_exact(actual.values.cpu(), expected.values)
    assert_exact(actual.indices.cpu(), expected.indices)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64], ids=dtype_id)
def test_sort_of_a_view_out_and_argsort(dtype):
    x = sort_input((37, 9), dtype).t()
    expected = torch.sort(x, dim=1, stable=True)
    values = torch.empty(0, dtype=dtype, device=FOO)
    indices = torch.empty(0, dtype=torch.int64, device=FOO)
    returned = torch.sort(x.to(FOO).t().contiguous().t(), dim=1, stable=True, out=(values, indices))
    assert returned[0] is values and returned[1] is indices
    assert_exact(values.cpu(), expected.values)
    assert_exact(indices.cpu(), expected.indices)
    descending = torch.argsort(x, dim=0, descending=True, stable=True)
    assert_exact(torch.argsort(x.to(FOO), dim=0, descending=True, stable=True).cpu(), descending)
    unstable = torch.sort(x.to(FOO), dim=1)
    assert_exact(unstable.values.cpu(), expected.values)
    assert_exact(x.gather(1, unstable.indices.cpu()), expected.values)


@pytest.mark.parametrize("largest", [True, False], ids=["largest", "smallest"])
@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, torch.int32, torch.uint8], ids=dtype_id)
@pytest.mark.parametrize("k", [1, 5, 37])
def test_topk_values_match_cpu(k, dtype, largest):
    """Values as CPU, which picks among ties (0.0 and -0.0 too) its own way; the indices point at the values."""

    def assert_same_values(actual: Tensor, expected: Tensor) -> None:
        torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)

    x = sort_input((6, 37), dtype)
    for dim in [1, -1]:
        expected = torch.topk(x, k, dim=dim, largest=largest)
        actual = torch.topk(x.to(FOO), k, dim=dim, largest=largest)
        assert_same_values(actual.values.cpu(), expected.values)
        assert_exact(x.gather(dim, actual.indices.cpu()), actual.values.cpu())
    along_rows = torch.topk(x.to(FOO), min(k, 6), dim=0, largest=largest)
    assert_same_values(along_rows.values.cpu(), torch.topk(x, min(k, 6), dim=0, largest=largest).values)


def test_topk_out_and_long_rows():
    x = torch.randn(3, 3000, generator=torch.Generator().manual_seed(2))
    values = torch.empty(0, device=FOO)
    indices = torch.empty(0, dtype=torch.int64, device=FOO)
    returned = torch.topk(x.to(FOO), 10, out=(values, indices))
    assert returned[0] is values and returned[1] is indices
    expected = torch.topk(x, 10)
    assert_exact(values.cpu(), expected.values)
    assert_exact(indices.cpu(), expected.indices)  # distinct values: one right answer


@pytest.mark.parametrize("largest", [True, False], ids=["largest", "smallest"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64], ids=dtype_id)
@pytest.mark.parametrize(
    "shape, k",
    [((1, 20000), 7), ((2, 3001), 64), ((2, 3001), 65), ((40, 129), 64), ((5, 64), 64)],
    ids=["one_long_row", "most_kept_by_a_scan", "sorted_instead", "many_rows", "whole_rows"],
)
def test_topk_of_ties_and_nans_is_the_stable_sort_prefix(shape, k, dtype, largest):
    """foo's topk is the first k of the stable sort, ties in index order (CPU's picks among ties its own way):
    rows scanned in segments and their candidates merged (few long rows) give the same."""
    x = sort_input(shape, dtype)
    expected = torch.sort(x, dim=-1, descending=largest, stable=True)
    actual = torch.topk(x.to(FOO), k, largest=largest)
    assert_exact(actual.values.cpu(), expected.values[:, :k])
    assert_exact(actual.indices.cpu(), expected.indices[:, :k])


# ---- dropout --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_dropout_keeps_and_scales(dtype):
    """p = 0.2: each element is kept with probability 0.8 and scaled by 1.25 (exact in every dtype)."""
    torch.foo.manual_seed(0)
    x = torch.randn(N, generator=torch.Generator().manual_seed(0)).to(dtype)
    out = F.dropout(x.to(FOO), 0.2).cpu()
    kept = out != 0
    assert_frequency(kept, 0.8)
    assert_exact(out[kept], x[kept] * 1.25)
    module = torch.nn.Dropout(0.2).to(FOO)
    torch.foo.manual_seed(0)
    assert_exact(module(x.to(FOO)).cpu(), out)
    assert_differ(module(x.to(FOO)), out)


def test_dropout_scale_of_other_p():
    torch.foo.manual_seed(1)
    out = F.dropout(torch.ones(N, device=FOO), 0.3).cpu()
    assert ((out == 0) | torch.isclose(out, torch.tensor(1 / 0.7))).all()
    assert_frequency(out != 0, 0.7)


def test_dropout_in_eval_mode_is_the_identity():
    x = torch.randn(SMALL, device=FOO)
    module = torch.nn.Dropout(0.5).to(FOO).eval()
    torch.foo.manual_seed(0)
    assert_exact(module(x).cpu(), x.cpu())
    assert_exact(F.dropout(x, 0.5, training=False).cpu(), x.cpu())
    assert default_offset() == 0


def test_dropout_with_p_0_and_1():
    x = torch.randn(SMALL, device=FOO)
    assert_exact(F.dropout(x, 0.0).cpu(), x.cpu())
    assert (F.dropout(x, 1.0).cpu() == 0).all()
    leaf = x.clone().requires_grad_()
    F.dropout(leaf, 1.0).sum().backward()
    assert (leaf.grad.cpu() == 0).all()


def test_dropout_of_a_view():
    base = torch.randn(8, 30, device=FOO)
    view = base.t()[::2]
    out = F.dropout(view, 0.2)
    assert out.shape == view.shape
    kept = out.cpu() != 0
    assert_exact(out.cpu()[kept], view.cpu()[kept] * 1.25)
    assert 0 < kept.sum() < kept.numel()


def test_dropout_in_place():
    x = torch.randn(SMALL, device=FOO)
    y = x.clone()
    assert F.dropout(y, 0.2, inplace=True) is y
    kept = y.cpu() != 0
    assert 0 < kept.sum() < kept.numel()
    assert_exact(y.cpu()[kept], x.cpu()[kept] * 1.25)


def test_feature_dropout_drops_whole_channels():
    x = torch.randn(4, 6, 3, 3, device=FOO) + 10  # no zeros of its own
    out = F.dropout2d(x, 0.5).cpu()
    dropped = (out == 0).all(3).all(2)
    assert 0 < dropped.sum() < dropped.numel()
    kept = ~dropped[..., None, None].expand_as(out)
    assert_exact(out[kept], x.cpu()[kept] * 2)
    assert (out[~kept] == 0).all()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_dropout_gradient_uses_the_same_mask(dtype):
    x = torch.ones(4096, dtype=dtype, device=FOO, requires_grad=True)
    out = F.dropout(x, 0.2)
    out.backward(torch.ones_like(out))
    kept = out.detach().cpu() != 0
    assert 0 < kept.sum() < kept.numel()
    assert_exact(x.grad.cpu(), kept.to(dtype) * 1.25)

    upstream = torch.randn(4096, generator=torch.Generator().manual_seed(3)).to(dtype)
    x.grad = None
    out = F.dropout(x, 0.2)
    out.backward(upstream.to(FOO))
    assert_exact(x.grad.cpu(), upstream * (out.detach().cpu() != 0).to(dtype) * 1.25)


def test_native_dropout_returns_a_bool_mask():
    x = torch.randn(N, device=FOO)
    out, mask = torch.native_dropout(x, 0.2, True)
    assert (mask.dtype, mask.shape, mask.device) == (torch.bool, x.shape, FOO)
    assert_frequency(mask, 0.8)
    assert_exact(out.cpu(), x.cpu() * mask.cpu() * 1.25)
    assert_exact(torch.ops.aten.native_dropout_backward(torch.ones_like(x), mask, 1.25).cpu(), mask.cpu() * 1.25)

    eval_out, eval_mask = torch.native_dropout(x, 0.2, False)
    assert_exact(eval_out.cpu(), x.cpu())
    assert eval_mask.dtype == torch.bool and eval_mask.cpu().all()


# Trains a TransformerEncoderLayer with dropout on foo in a fresh process with the fallback allowed but silent;
# prints whether seeds steer its dropout, whether its gradients are finite, and what fell back (nothing may).
TRANSFORMER_SCRIPT = """
import json
import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.3, batch_first=True).to("foo")
x = torch.randn(2, 5, 16, device="foo")
torch.foo.reset_fallback_counts()


def forward(seed):
    torch.foo.manual_seed(seed)
    return layer(x)


out = forward(1)
report = {
    "same_seed_equal": torch.equal(forward(1).detach().cpu(), out.detach().cpu()),
    "other_seed_equal": torch.equal(forward(2).detach().cpu(), out.detach().cpu()),
}
out.sum().backward()
report["grads_finite"] = all(bool(torch.isfinite(p.grad.cpu()).all()) for p in layer.parameters())
layer.eval()
report["eval_ignores_seed"] = torch.equal(forward(1).detach().cpu(), forward(2).detach().cpu())
report["fallbacks"] = sorted(torch.foo.fallback_counts())
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def transformer_report() -> dict:
    return run_python_json(TRANSFORMER_SCRIPT, FOO_CL_FALLBACK="silent")


def test_transformer_encoder_layer_trains_with_native_dropout(transformer_report):
    assert transformer_report["same_seed_equal"] is True
    assert transformer_report["other_seed_equal"] is False
    assert transformer_report["grads_finite"] is True
    assert transformer_report["eval_ignores_seed"] is True


def test_transformer_encoder_layer_trains_without_fallback(transformer_report):
    assert transformer_report["fallbacks"] == []


# ---- bad arguments --------------------------------------------------------------------------------------


def ones(*shape: int, device: torch.device | str, dtype: torch.dtype = torch.float32) -> Tensor:
    return torch.ones(shape, dtype=dtype, device=device)


# Each takes the device and makes a call the CPU rejects.
BAD_CALLS = {
    "bernoulli_p_above_1": lambda d: ones(4, device=d).bernoulli_(1.5),
    "bernoulli_p_negative": lambda d: ones(4, device=d).bernoulli_(-0.1),
    "bernoulli_p_nan": lambda d: ones(4, device=d).bernoulli_(math.nan),
    "bernoulli_tensor_p_above_1": lambda d: ones(4, device=d).bernoulli_(torch.tensor([0.5, 1.5, 0, 1], device=d)),
    "bernoulli_tensor_p_negative": lambda d: ones(4, device=d).bernoulli_(torch.tensor([0.5, -0.5, 0, 1], device=d)),
    "bernoulli_tensor_p_nan": lambda d: ones(4, device=d).bernoulli_(torch.tensor([0.5, math.nan, 0, 1], device=d)),
    "bernoulli_float64_p_above_1": lambda d: torch.bernoulli(ones(4, device=d, dtype=torch.float64) * 2),
    "bernoulli_p_shape_mismatch": lambda d: ones(5, device=d).bernoulli_(ones(4, 5, device=d) / 2),
    "randint_low_equals_high": lambda d: torch.randint(5, 5, (3,), device=d),
    "randint_low_above_high": lambda d: torch.randint(6, 5, (3,), device=d),
    "random_from_equals_to": lambda d: ones(3, device=d).random_(5, 5),
    "random_to_beyond_int8": lambda d: ones(3, device=d, dtype=torch.int8).random_(0, 300),
    "random_float16_beyond_2048": lambda d: ones(3, device=d, dtype=torch.float16).random_(0, 100_000),
    "multinomial_negative": lambda d: torch.multinomial(torch.tensor([1.0, -1.0, 2.0], device=d), 2),
    "multinomial_negative_replacement": lambda d: torch.multinomial(torch.tensor([1.0, -1.0, 2.0], device=d), 2, True),
    "multinomial_all_zero": lambda d: torch.multinomial(torch.zeros(3, device=d), 2),
    "multinomial_all_zero_replacement": lambda d: torch.multinomial(torch.zeros(2, 3, device=d), 2, True),
    "multinomial_one_row_zero": lambda d: torch.multinomial(torch.tensor([[1.0, 1], [0, 0]], device=d), 1, True),
    "multinomial_inf": lambda d: torch.multinomial(torch.tensor([1.0, math.inf, 2.0], device=d), 2),
    "multinomial_inf_replacement": lambda d: torch.multinomial(torch.tensor([1.0, math.inf, 2.0], device=d), 2, True),
    "multinomial_nan": lambda d: torch.multinomial(torch.tensor([1.0, math.nan, 2.0], device=d), 2),
    "multinomial_nan_replacement": lambda d: torch.multinomial(torch.tensor([1.0, math.nan, 2.0], device=d), 2, True),
    "multinomial_more_samples_than_categories": lambda d: torch.multinomial(ones(3, device=d), 4),
    "multinomial_zero_samples": lambda d: torch.multinomial(ones(3, device=d), 0),
    "multinomial_3d": lambda d: torch.multinomial(ones(2, 2, 3, device=d), 1),
    "multinomial_no_categories": lambda d: torch.multinomial(ones(2, 0, device=d), 1),
    "multinomial_integer_weights": lambda d: torch.multinomial(ones(3, device=d, dtype=torch.int64), 1),
    "randperm_negative": lambda d: torch.randperm(-1, device=d),
    "randperm_bool": lambda d: torch.randperm(3, device=d, dtype=torch.bool),
    "randperm_beyond_int8": lambda d: torch.randperm(300, device=d, dtype=torch.int8),
    "randperm_beyond_float16": lambda d: torch.randperm(5000, device=d, dtype=torch.float16),
    "normal_negative_std": lambda d: torch.normal(0.0, -1.0, (3,), device=d),
    "normal__negative_std": lambda d: ones(3, device=d).normal_(0, -1),
    "normal_tensor_negative_std": lambda d: torch.normal(ones(3, device=d), torch.tensor([1.0, -1, 1], device=d)),
    "normal_tensor_mean_negative_std": lambda d: torch.normal(ones(3, device=d), -1.0),
    "normal_negative_std_tensor": lambda d: torch.normal(0.0, torch.tensor([1.0, -1, 1], device=d)),
    "normal_mismatched_sizes": lambda d: torch.normal(ones(4, device=d), ones(5, device=d)),
    "uniform_from_above_to": lambda d: ones(3, device=d).uniform_(2, 1),
    "uniform_infinite": lambda d: ones(3, device=d).uniform_(0, math.inf),
    "uniform_integer": lambda d: ones(3, device=d, dtype=torch.int32).uniform_(),
    "exponential_negative_lambda": lambda d: ones(3, device=d).exponential_(-1),
    "exponential_zero_lambda": lambda d: ones(3, device=d).exponential_(0),
    "geometric_p_0": lambda d: ones(3, device=d).geometric_(0),
    "geometric_p_1": lambda d: ones(3, device=d).geometric_(1),
    "log_normal_negative_std": lambda d: ones(3, device=d).log_normal_(0, -1),
    "cauchy_negative_sigma": lambda d: ones(3, device=d).cauchy_(0, -1),
    "uniform_expanded": lambda d: ones(1, 5, device=d).expand(4, 5).uniform_(),
    "normal_expanded": lambda d: ones(1, 5, device=d).expand(4, 5).normal_(),
    "native_dropout_p_above_1": lambda d: torch.native_dropout(ones(3, device=d), 1.5, True),
    "sort_complex": lambda d: torch.sort(ones(3, device=d, dtype=torch.complex64)),
    "topk_k_above_size": lambda d: torch.topk(ones(3, device=d), 4),
    "topk_negative_k": lambda d: torch.topk(ones(3, device=d), -1),
    "sort_dim_out_of_range": lambda d: torch.sort(ones(3, device=d), dim=1),
    "normal__int32": lambda d: ones(3, device=d, dtype=torch.int32).normal_(),
    "exponential_int32": lambda d: ones(3, device=d, dtype=torch.int32).exponential_(),
    "log_normal_int64": lambda d: ones(3, device=d, dtype=torch.int64).log_normal_(),
    "geometric_bool": lambda d: ones(3, device=d, dtype=torch.bool).geometric_(0.5),
    "bernoulli_integer_p": lambda d: ones(3, device=d, dtype=torch.int8).bernoulli_(
        ones(3, device=d, dtype=torch.int64)
    ),
    "dropout_int32": lambda d: F.dropout(ones(SMALL, device=d, dtype=torch.int32), 0.5),
    "native_dropout_int64": lambda d: torch.native_dropout(ones(SMALL, device=d, dtype=torch.int64), 0.5, True),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_arguments_raise_like_cpu(call):
    assert run_like_cpu(lambda: call("cpu"), lambda: call(FOO)) is None
