"""miniautograd's random numbers are torch's CPU random numbers, bit for bit.

Every comparison is exact (np.array_equal, same dtype and shape), and the generator's state
bytes are compared with torch.get_rng_state() after each call, which proves both streams have
advanced by exactly the same number of draws and hold the same Box-Muller cache.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from torch_versions import skip_if_changed

from miniautograd import _random as R

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 42, 2**31 + 5, 0xDEADBEEFCAFEF00D]
SHAPES = [(), (1,), (7,), (15,), (16,), (17,), (33,), (64, 1000), (3, 4, 5)]
DTYPES = [(np.float32, torch.float32), (np.float64, torch.float64)]


def assert_same(ours: np.ndarray, theirs: torch.Tensor) -> None:
    theirs = theirs.numpy()
    assert (ours.dtype, ours.shape) == (theirs.dtype, theirs.shape)
    bad = np.flatnonzero(ours.ravel() != theirs.ravel())
    assert bad.size == 0, f"{bad.size} values differ, first at flat index {bad[:5]}"


def assert_same_state() -> None:
    assert np.array_equal(R.get_rng_state(), torch.get_rng_state().numpy())


def seed_both(seed: int) -> None:
    torch.manual_seed(seed)
    R.manual_seed(seed)


# -- the generator -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [*SEEDS, 2**64 - 1, -1, -(2**63)])
def test_seeding_gives_torchs_state_bytes(seed):
    seed_both(seed)
    assert R.initial_seed() == torch.initial_seed()
    assert_same_state()


def test_a_new_generator_starts_like_torchs():
    assert np.array_equal(R.Generator().get_state(), torch.Generator().get_state().numpy())
    assert R.Generator().initial_seed() == torch.Generator().initial_seed() == R.DEFAULT_SEED


def test_raw_stream_is_torchs_32_and_64_bit_draws():
    seed_both(7)
    # randint over [0, 2**32) takes random64() % 2**32: the second 32-bit word of each pair.
    theirs = torch.randint(0, 2**32, (700,)).numpy().astype(np.uint64)
    ours = R.default_generator.random64(700) % np.uint64(2**32)
    assert np.array_equal(ours, theirs)
    assert_same_state()


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_seed_out_of_64_bits_is_a_value_error_like_torch(seed):
    with pytest.raises(ValueError):
        torch.manual_seed(seed)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        R.manual_seed(seed)


def test_nondeterministic_seed_is_reported_and_used():
    first = R.seed()
    assert R.initial_seed() == first
    a = R.rand(5)
    R.manual_seed(first)
    assert np.array_equal(R.rand(5), a)
    assert R.seed() != first  # 64 bits from os.urandom


def test_state_round_trips_both_ways_with_a_cached_normal():
    torch.manual_seed(11)
    torch.randn(3)  # an odd number of serial normals leaves one cached
    R.set_rng_state(torch.get_rng_state().numpy())
    assert_same(R.randn(1), torch.randn(1))  # the cached one, on both sides
    assert_same_state()
    R.randn(5)
    torch.set_rng_state(torch.from_numpy(R.get_rng_state()))
    assert_same(R.randn(40), torch.randn(40))
    assert_same_state()


def test_set_state_rejects_foreign_bytes_like_torch():
    with pytest.raises(RuntimeError):
        torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match="size 5056"):
        R.set_rng_state(np.zeros(10, np.uint8))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        R.set_rng_state(np.zeros(5056, np.uint8))


def test_explicit_generators_are_independent_of_the_default():
    g, ours = torch.Generator().manual_seed(5), R.Generator(5)
    seed_both(99)
    assert_same(R.randn(40, generator=ours), torch.randn(40, generator=g))
    assert np.array_equal(ours.get_state(), g.get_state().numpy())
    assert_same(R.rand(3), torch.rand(3))  # the default streams did not move
    assert_same_state()


# -- floating-point distributions ----------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize(("dtype", "tdtype"), DTYPES, ids=["f32", "f64"])
def test_rand_randn_uniform_normal(seed, shape, dtype, tdtype):
    seed_both(seed)
    assert_same(R.rand(shape, dtype), torch.rand(shape, dtype=tdtype))
    assert_same(R.randn(shape, dtype), torch.randn(shape, dtype=tdtype))
    # kaiming_uniform_'s and nn.Linear's bias bound for fan_in=3
    bound = 1 / np.sqrt(3)
    assert_same(R.uniform_(shape, -bound, bound, dtype),
                torch.empty(shape, dtype=tdtype).uniform_(-bound, bound))
    assert_same(R.normal_(shape, 0.3, 2.5, dtype),
                torch.empty(shape, dtype=tdtype).normal_(0.3, 2.5))
    assert_same_state()


@pytest.mark.parametrize(("dtype", "tdtype"), DTYPES, ids=["f32", "f64"])
def test_long_streams_with_odd_bounds_and_moments(dtype, tdtype):
    seed_both(2024)
    n = 300_007  # crosses many 624-word refills and ends in a partial block of 16
    assert_same(R.normal_(n, -1.75, 0.01, dtype), torch.empty(n, dtype=tdtype).normal_(-1.75, 0.01))
    assert_same(R.uniform_(n, 2.5, 7.1, dtype), torch.empty(n, dtype=tdtype).uniform_(2.5, 7.1))
    assert_same_state()


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**64 - 1),
    shape=st.lists(st.integers(0, 40), max_size=3).map(tuple),
    f64=st.booleans(),
    mean=st.floats(-3, 3),
    std=st.floats(0, 3),
)
def test_property_any_seed_and_shape(seed, shape, f64, mean, std):
    dtype, tdtype = DTYPES[f64]
    seed_both(seed)
    assert_same(R.normal_(shape, mean, std, dtype),
                torch.empty(shape, dtype=tdtype).normal_(mean, std))
    assert_same(R.uniform_(shape, -std, std, dtype),
                torch.empty(shape, dtype=tdtype).uniform_(-std, std))
    assert_same(R.randn(shape, dtype), torch.randn(shape, dtype=tdtype))
    assert_same_state()


def test_interleaved_calls_advance_the_stream_identically():
    """Serial normals (< 16 values) cache their second sample across calls; blocks do not."""
    seed_both(3)
    for shape in [(3,), (20,), (1,), (5,), (2, 2), (), (16,), (0,)]:
        assert_same(R.randn(shape), torch.randn(shape))
        assert_same(R.rand(shape), torch.rand(shape))
        assert_same(R.randint(0, 10, shape), torch.randint(0, 10, shape))
        assert_same(R.randn(shape, np.float64), torch.randn(shape, dtype=torch.float64))
        assert_same_state()


@skip_if_changed("uniform_upper_bound")
@pytest.mark.parametrize(("dtype", "tdtype"), DTYPES, ids=["f32", "f64"])
def test_uniform_never_returns_its_upper_bound(dtype, tdtype):
    # Over [1, next float after 1), x * (hi - lo) + lo rounds up to hi for every x > 1/2; torch
    # returns lo instead, to keep the interval half-open, and so do we.
    hi = float(np.nextafter(dtype(1), dtype(2)))
    seed_both(0)
    ours = R.uniform_(1000, 1.0, hi, dtype)
    assert_same(ours, torch.empty(1000, dtype=tdtype).uniform_(1.0, hi))
    assert (ours == 1).all()


@pytest.mark.parametrize(
    ("call", "tcall"),
    [
        (lambda: R.uniform_(3, 1, 0), lambda: torch.empty(3).uniform_(1, 0)),
        (lambda: R.uniform_(3, -3e38, 3e38), lambda: torch.empty(3).uniform_(-3e38, 3e38)),
        (lambda: R.normal_(3, 0, -1), lambda: torch.empty(3).normal_(0, -1)),
        (lambda: R.randint(5, 5, 3), lambda: torch.randint(5, 5, (3,))),
        (lambda: R.bernoulli_(3, 1.5), lambda: torch.empty(3).bernoulli_(1.5)),
        (lambda: R.bernoulli(np.array([1.5])), lambda: torch.bernoulli(torch.tensor([1.5]))),
        (lambda: R.exponential_(3, 0), lambda: torch.empty(3).exponential_(0)),
        (lambda: R.randperm(-1), lambda: torch.randperm(-1)),
        (lambda: R.rand((2, -1)), lambda: torch.rand((2, -1))),
    ],
)
def test_invalid_arguments_raise_torchs_exception_class(call, tcall):
    with pytest.raises(RuntimeError):
        tcall()
    with pytest.raises(RuntimeError):
        call()


def test_a_float_dtype_is_required():
    with pytest.raises(TypeError, match="float32 or float64"):
        R.randn(3, np.int64)


# -- integers --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("low", "high"),
    [(0, 10), (-5, 17), (0, 2**28 - 1), (0, 2**28), (-3, 2**40), (-(2**62), 2**62), (0, 1)],
)
def test_randint(seed, low, high):
    seed_both(seed)
    for shape in [(), (1,), (17,), (64, 100)]:
        assert_same(R.randint(low, high, shape), torch.randint(low, high, shape))
    assert_same_state()


@pytest.mark.parametrize(("dtype", "tdtype"), [(np.int64, torch.int64), (np.int32, torch.int32),
                                               *DTYPES])
def test_random_without_bounds(dtype, tdtype):
    seed_both(8)
    assert_same(R.random_((4, 5), dtype), torch.empty((4, 5), dtype=tdtype).random_())
    assert_same_state()


@pytest.mark.parametrize("n", [0, 1, 2, 5, 100, 60_000])
def test_randperm(n):
    seed_both(n)
    assert_same(R.randperm(n), torch.randperm(n))
    assert_same_state()


# -- Bernoulli, exponential, multinomial ---------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_bernoulli_for_dropout_masks_and_tensor_probabilities(seed):
    seed_both(seed)
    assert_same(R.bernoulli_((8, 100), 0.8), torch.empty((8, 100)).bernoulli_(0.8))
    assert_same(R.bernoulli_(10, 0.5, np.float64),
                torch.empty(10, dtype=torch.float64).bernoulli_())
    probs = np.random.default_rng(seed % 2**32).random((4, 6))
    for dtype in (np.float32, np.float64):
        p = probs.astype(dtype)
        assert_same(R.bernoulli(p), torch.bernoulli(torch.from_numpy(p)))
    assert_same_state()


@pytest.mark.parametrize(("dtype", "tdtype"), DTYPES, ids=["f32", "f64"])
def test_exponential(dtype, tdtype):
    seed_both(4)
    assert_same(R.exponential_((3, 50), 2.5, dtype),
                torch.empty((3, 50), dtype=tdtype).exponential_(2.5))
    assert_same_state()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("dtype", "tdtype"), DTYPES, ids=["f32", "f64"])
def test_multinomial(seed, dtype, tdtype):
    rng = np.random.default_rng(seed % 2**32)
    probs = rng.random((5, 7)).astype(dtype)
    probs[0, 3] = 0  # a zero weight is never drawn
    logits = rng.normal(size=10)  # Categorical's softmax probabilities
    softmax = (np.exp(logits) / np.exp(logits).sum()).astype(dtype)
    seed_both(seed)
    for p in (probs, probs[2], softmax):
        t = torch.from_numpy(p)
        assert_same(R.multinomial(p, 1), torch.multinomial(t, 1))  # Categorical.sample()
        assert_same(R.multinomial(p, 1, True), torch.multinomial(t, 1, True))
        assert_same(R.multinomial(p, 4), torch.multinomial(t, 4))
        assert_same(R.multinomial(p, 9, True), torch.multinomial(t, 9, True))
    assert_same_state()
    assert (R.multinomial(probs, 6)[0] != 3).all()


@pytest.mark.parametrize(
    ("probs", "num_samples", "replacement"),
    [([0.0, 0.0], 1, False), ([-1.0, 1.0], 1, False), ([1.0, 1.0], 3, False),
     ([1.0, 1.0], 0, True), (np.ones((2, 2, 2)), 1, True), ([0.0, 0.0], 3, True)],
)
def test_multinomial_rejects_what_torch_rejects(probs, num_samples, replacement):
    p = np.asarray(probs, np.float32)
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.from_numpy(p), num_samples, replacement)
    with pytest.raises(RuntimeError):
        R.multinomial(p, num_samples, replacement)


# -- the exact arithmetic underneath ----------------------------------------------------------


def _round_to_float32(x: Fraction) -> np.float32:
    """Correctly rounded (to nearest, ties to even) float32 of an exact rational."""
    guess = np.float32(float(x))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess,
                  np.nextafter(guess, np.float32(np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - x),
                                          int(np.array(c).view(np.uint32)) & 1))


finite32 = st.floats(-1e6, 1e6, width=32, allow_subnormal=False)
finite64 = st.floats(-1e100, 1e100, allow_subnormal=False)


@given(a=finite32, b=finite32, c=finite32)
def test_float32_fma_rounds_once(a, b, c):
    got = R._fma(np.array([a], np.float32), np.float32(b), np.float32(c))[0]
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    assert got == _round_to_float32(exact)


@given(a=finite64, b=finite64, c=finite64)
def test_float64_fma_rounds_once(a, b, c):
    got = R._fma(np.array([a]), b, c)[0]
    assert got == float(Fraction(a) * Fraction(b) + Fraction(c))  # float() rounds correctly


@pytest.mark.parametrize("n", [3, 40], ids=["serial", "blocks_of_16"])
def test_normal_with_a_subnormal_std_in_float64(n):
    """Hypothesis found std=2.2e-309: a subnormal product's rounding error is not a float, so
    the two-product trick behind the emulated fused multiply-add lost it."""
    seed_both(0)
    assert_same(R.normal_(n, 0.0, 2.2e-309, np.float64),
                torch.empty(n, dtype=torch.float64).normal_(0.0, 2.2e-309))
    assert_same(R.normal_(n, 1e-300, 3e-310, np.float64),
                torch.empty(n, dtype=torch.float64).normal_(1e-300, 3e-310))


@given(a=st.floats(allow_nan=False, allow_infinity=False),
       b=st.floats(allow_nan=False, allow_infinity=False),
       c=st.floats(allow_nan=False, allow_infinity=False))
def test_float64_fma_rounds_once_over_the_whole_range(a, b, c):
    """Subnormal and huge operands too: where an exact product or sum is out of reach of the
    float64 tricks, the exact value is rounded instead."""
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if abs(exact) >= Fraction(2**1024) - Fraction(2**970):  # rounds to infinity
        expected = math.inf if exact > 0 else -math.inf
    else:
        expected = float(exact)
    got = R._fma(np.array([a]), b, c)[0]
    assert got == expected or (got == 0 == expected)


def test_fma_on_cancelling_and_tie_cases():
    # a * b + c where the product nearly cancels c, or lands on a float32 halfway point.
    a = np.array([1 + 2**-23, 1 + 2**-12, 3.0, 1 - 2**-24], np.float32)
    b = np.array([1 - 2**-23, 1 + 2**-12, 1 / 3, 1 + 2**-23], np.float32)
    c = np.array([-1.0, -1.0, -1.0, 2**-48], np.float32)
    exact = [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
             for x, y, z in zip(a, b, c, strict=True)]
    got = R._fma(a, b, c)
    assert [float(g) for g in got] == [float(_round_to_float32(e)) for e in exact]


# -- the other CPU build ---------------------------------------------------------------------


@pytest.mark.slow
@skip_if_changed("plain_kernel_normal")
def test_plain_cpu_build_matches_too():
    """ATEN_CPU_CAPABILITY=default makes torch run its plain (non-AVX2) kernels, without FMA and
    with the C library's logf/sinf/cosf: both libraries read the variable at import."""
    script = textwrap.dedent("""
        import numpy as np, torch
        from miniautograd import _random as R
        assert torch.backends.cpu.get_cpu_capability() == "DEFAULT", "torch ignored the variable"
        assert R._CAPABILITY == "default" and not R._FUSED
        for seed in (0, 5):
            torch.manual_seed(seed); R.manual_seed(seed)
            pairs = [
                (R.randn((64, 100)), torch.randn((64, 100))),
                (R.normal_(37, 0.5, 3.0), torch.empty(37).normal_(0.5, 3.0)),
                (R.normal_(7, 0.5, 3.0), torch.empty(7).normal_(0.5, 3.0)),
                (R.uniform_(500, -0.3, 0.3), torch.empty(500).uniform_(-0.3, 0.3)),
                (R.uniform_(50, -0.3, 0.7, np.float64),
                 torch.empty(50, dtype=torch.float64).uniform_(-0.3, 0.7)),
                (R.randn(50, np.float64), torch.randn(50, dtype=torch.float64)),
            ]
            for ours, theirs in pairs:
                assert np.array_equal(ours, theirs.numpy())
            assert np.array_equal(R.get_rng_state(), torch.get_rng_state().numpy())
        print("same")
    """)
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "same"


# -- which kernels: the CPU's own report ------------------------------------------------------


def test_the_cpu_report_decides_the_kernels(tmp_path, monkeypatch):
    """AVX2 and FMA in /proc/cpuinfo's flags mean torch's AVX2 kernels; without that report,
    NumPy's; with neither, an error that says what to set, not a guess."""
    report = tmp_path / "cpuinfo"
    report.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma bmi2\n\n")
    assert R._x86_has_avx2_fma(str(report))
    report.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx\n\n")
    assert not R._x86_has_avx2_fma(str(report))
    missing = str(tmp_path / "missing")
    monkeypatch.setattr(R, "_numpy_flags", lambda: ["avx2", "fma"])
    assert R._x86_has_avx2_fma(missing)
    monkeypatch.setattr(R, "_numpy_flags", lambda: None)
    with pytest.raises(RuntimeError, match="ATEN_CPU_CAPABILITY"):
        R._x86_has_avx2_fma(missing)


def test_the_kernels_chosen_are_the_ones_torch_runs():
    """On this machine: torch's AVX2 or AVX-512 build runs the AVX2 distribution kernels."""
    torch_capability = torch.backends.cpu.get_cpu_capability()
    assert (R._CAPABILITY == "avx2") == (torch_capability in ("AVX2", "AVX512")), torch_capability
