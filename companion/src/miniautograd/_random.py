"""PyTorch's CPU random numbers, bit for bit, in numpy.

After ``torch.manual_seed(s)`` and ``manual_seed(s)`` (this module), ``torch.randn(64, 1000)``
and ``randn((64, 1000))`` are the same array, so the book can start both engines from the same
weights instead of copying them across. Each function replays the C++ kernel that torch runs on
the CPU, checked bit for bit by ``tests/test_random.py`` against the installed torch. (CUDA
tensors use another generator, Philox, which this module does not reproduce.)

The PyTorch sources this follows (https://github.com/pytorch/pytorch, under ``aten/src/ATen/``):

- ``core/MT19937RNGEngine.h``: the mt19937 engine and its seeding;
- ``CPUGeneratorImpl.cpp``: ``random()``, ``random64()``, the Box-Muller cache, the state bytes;
- ``core/DistributionsHelper.h`` and ``core/TransformationHelper.h``: how bits become numbers;
- ``native/cpu/DistributionTemplates.h`` and ``native/cpu/DistributionKernels.cpp``: the
  ``uniform_``, ``normal_``, ``random_``, ``bernoulli_`` and ``exponential_`` kernels;
- ``native/cpu/avx_mathfun.h``: the 8-wide float log/sin/cos used by ``normal_`` on AVX2;
- ``native/Distributions.cpp`` and ``native/cpu/MultinomialKernel.cpp``: ``multinomial``;
- ``native/TensorFactories.cpp``: ``randperm``.

Two facts about the compiled torch matter as much as the source, and were measured here:

- GCC fuses ``a * b + c`` into one fused multiply-add (a single rounding) in the AVX2 build of
  the kernels, so ``uniform_(-b, b)`` and ``normal_(mean, std)`` round once, not twice;
- on an x86 CPU with AVX2 and FMA, torch's ``normal_`` for float32 tensors of 16 or more
  elements uses the polynomial log/sin/cos of ``avx_mathfun.h``, not the C library's.

Both depend on the CPU, as torch's own results do: ``_CAPABILITY`` names the kernel build torch
dispatches to (``ATEN_CPU_CAPABILITY=default`` selects the plain build in both libraries).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import operator
import os
import platform
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache

import numpy as np

__all__ = [
    "DEFAULT_SEED",
    "Generator",
    "bernoulli",
    "bernoulli_",
    "default_generator",
    "exponential_",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "multinomial",
    "normal_",
    "rand",
    "randint",
    "randn",
    "random_",
    "randperm",
    "seed",
    "set_rng_state",
    "uniform_",
]

Shape = int | Sequence[int]

DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val, the seed of a new torch.Generator()

_N = 624  # words of mt19937 state
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)

# ----------------------------------------------------------------------------------------------
# Which kernels torch runs on this machine (aten/src/ATen/native/DispatchStub.cpp)
# ----------------------------------------------------------------------------------------------


CPUINFO = "/proc/cpuinfo"


def _x86_has_avx2_fma(cpuinfo: str = CPUINFO) -> bool:
    """Whether this x86 CPU has AVX2 and FMA, the two features torch's AVX2 build needs.

    Read from the hardware's own report on Linux, as torch reads it (its cpuinfo library),
    rather than from NumPy's dispatch table: NumPy's private ``__cpu_features__`` has moved
    between versions, and ``NPY_DISABLE_CPU_FEATURES`` turns features off there that torch still
    uses. Elsewhere (an Intel Mac) NumPy's table is the only report at hand. Where neither can
    be read, say so rather than guess: a wrong guess emulates the other kernels, and every
    random number would silently differ from torch's.
    """
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as report:
            flags = next((line.split(":", 1)[1].split() for line in report
                          if line.startswith("flags")), None)
    except OSError:
        flags = _numpy_flags()
    if flags is None:
        raise RuntimeError(
            f"miniautograd cannot read this x86 CPU's features from {cpuinfo}, so it cannot tell "
            "which of torch's random kernels to match. Set ATEN_CPU_CAPABILITY=default (torch's "
            "plain kernels, for both libraries) or ATEN_CPU_CAPABILITY=avx2 (a CPU with AVX2 and "
            "FMA) before importing either."
        )
    return {"avx2", "fma"} <= set(flags)


def _numpy_flags() -> list[str] | None:
    """AVX2 and FMA as NumPy's CPU dispatch reports them, in /proc/cpuinfo's names, if it does."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        return None
    return [name for name, key in (("avx2", "AVX2"), ("fma", "FMA3")) if features.get(key)]


def _cpu_capability() -> str:
    """'avx2' where torch dispatches its random kernels to the AVX2 build, else 'default'.

    torch's distribution kernels are built for DEFAULT and AVX2 only (an AVX-512 CPU runs the
    AVX2 ones); the environment variable ATEN_CPU_CAPABILITY=default forces the plain build.
    """
    requested = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if requested == "default" or platform.machine().lower() not in ("x86_64", "amd64", "i686",
                                                                     "x86"):
        return "default"
    try:
        return "avx2" if _x86_has_avx2_fma() else "default"
    except RuntimeError:
        if requested in ("avx2", "avx512"):  # the user said which, where it cannot be read
            return "avx2"
        raise


_CAPABILITY = _cpu_capability()
# Whether the compiled kernels round `a * b + c` once. GCC contracts it into an FMA when the
# target has one: measured for x86-64 Linux (the AVX2 build fuses, the plain build cannot);
# assumed, not measured, for arm64, whose compilers contract by default.
_FUSED = _CAPABILITY == "avx2" or platform.machine().lower() in ("arm64", "aarch64")

# ----------------------------------------------------------------------------------------------
# The generator: mt19937 (core/MT19937RNGEngine.h) wrapped as CPUGeneratorImpl.cpp does
# ----------------------------------------------------------------------------------------------

# torch.get_rng_state()'s 5056 bytes: the C structs CPUGeneratorImplStateLegacy (written with
# its 32-bit state words widened to 64 bits) and CPUGeneratorImplState, with their padding.
_STATE_BYTES = np.dtype(
    {
        "names": ["seed", "left", "seeded", "next", "state", "normal_x", "normal_y",
                  "normal_rho", "normal_is_valid", "float_normal", "float_normal_is_valid"],
        "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _N), "<f8", "<f8", "<f8", "<i4", "<f4",
                    "u1"],
        "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
        "itemsize": 5056,
    }
)


def _seed_words(seed: int) -> np.ndarray:
    """mt19937's state after ``init_genrand(seed & 0xffffffff)``, as torch seeds it."""
    key = np.empty(_N, np.uint32)
    x = seed & 0xFFFFFFFF  # torch keeps the whole 64-bit seed but seeds with its low 32 bits
    key[0] = x
    for j in range(1, _N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key[j] = x
    return key


def _as_seed(seed: int) -> int:
    """A seed as torch stores it: an unsigned 64-bit integer; negative ones wrap around."""
    seed = operator.index(seed)
    if not -(2**63) <= seed < 2**64:
        raise ValueError(
            f"seed must be an integer in [-2**63, 2**64), got {seed}; "
            "torch raises the same for seeds that do not fit in 64 bits"
        )
    return seed % 2**64


class Generator:
    """torch.Generator on the CPU: the mt19937 stream and the cached second Box-Muller sample.

    numpy's ``MT19937`` runs the same recurrence as torch's engine, so once its 624 words are
    set to torch's seeding it produces torch's 32-bit stream at C speed (``random_raw``).
    """

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self._bits = np.random.MT19937(0)
        self.manual_seed(seed)

    # -- seeding -------------------------------------------------------------------------------
    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed`` (any int in [-2**63, 2**64)); returns self."""
        self._seed = _as_seed(seed)
        # pos=624 makes the first draw twist the fresh words, like torch's left_=1.
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _seed_words(self._seed), "pos": _N}}
        self._untouched = True  # torch reports next_=0 until the first draw
        self._next_double_normal: float | None = None
        self._next_float_normal: float | None = None
        return self

    def initial_seed(self) -> int:
        """The seed this stream was started from (all 64 bits, as torch keeps them)."""
        return self._seed

    def seed(self) -> int:
        """Seed from the operating system's entropy, as torch reads /dev/urandom; returns it."""
        value = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(value)
        return value

    # -- state ---------------------------------------------------------------------------------
    def get_state(self) -> np.ndarray:
        """The state as the 5056 bytes (uint8) of ``torch.Generator.get_state()``."""
        state = self._bits.state["state"]
        out = np.zeros((), _STATE_BYTES)
        out["seed"] = self._seed
        out["left"] = _N + 1 - state["pos"]
        out["seeded"] = 1
        out["next"] = 0 if self._untouched else state["pos"]
        out["state"] = state["key"]
        if self._next_double_normal is not None:
            out["normal_is_valid"] = 1
            out["normal_y"] = self._next_double_normal
        if self._next_float_normal is not None:
            out["float_normal_is_valid"] = 1
            out["float_normal"] = self._next_float_normal
        return np.frombuffer(out.tobytes(), np.uint8).copy()

    def set_state(self, new_state: np.ndarray | bytes) -> Generator:
        """Restore a state from ``get_state()`` here or ``torch.get_rng_state().numpy()``."""
        if isinstance(new_state, bytes):
            raw = np.frombuffer(new_state, np.uint8)
        else:
            raw = np.asarray(new_state, np.uint8).ravel()
        if raw.size != _STATE_BYTES.itemsize:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_BYTES.itemsize} but found the "
                f"input RNG state size to be {raw.size}; pass the bytes of get_state()"
            )
        s = raw.view(_STATE_BYTES)[0]
        left, nxt = int(s["left"]), int(s["next"])
        untouched = left == 1 and nxt == 0
        if not s["seeded"] or not 1 <= left <= _N or not (untouched or nxt == _N + 1 - left):
            raise RuntimeError("Invalid mt19937 state: pass the bytes of get_state() unchanged")
        self._seed = int(s["seed"])
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": s["state"].astype(np.uint32), "pos": _N + 1 - left}}
        self._untouched = untouched
        self._next_double_normal = float(s["normal_y"]) if s["normal_is_valid"] else None
        self._next_float_normal = float(s["float_normal"]) if s["float_normal_is_valid"] else None
        return self

    # -- raw draws -----------------------------------------------------------------------------
    def random(self, n: int) -> np.ndarray:
        """``n`` calls of torch's ``random()``: 32-bit mt19937 outputs (uint32)."""
        if n:
            self._untouched = False
        return self._bits.random_raw(n).astype(np.uint32)

    def random64(self, n: int) -> np.ndarray:
        """``n`` calls of ``random64()``: two 32-bit outputs each, the first in the high half."""
        if n:
            self._untouched = False
        pairs = self._bits.random_raw(2 * n)
        return (pairs[0::2] << 32) | pairs[1::2]


default_generator = Generator()
default_generator.seed()  # torch seeds its default CPU generator from /dev/urandom too


def manual_seed(seed: int) -> Generator:
    """``torch.manual_seed``: restart the default generator from ``seed``; returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """``torch.seed``: reseed the default generator from OS entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """``torch.initial_seed``: the seed the default generator was started from."""
    return default_generator.initial_seed()


def get_rng_state() -> np.ndarray:
    """``torch.get_rng_state``: the default generator's state bytes."""
    return default_generator.get_state()


def set_rng_state(new_state: np.ndarray | bytes) -> None:
    """``torch.set_rng_state``: restore the default generator's state bytes."""
    default_generator.set_state(new_state)


# ----------------------------------------------------------------------------------------------
# Exact arithmetic helpers: torch's kernels round a fused multiply-add once
# ----------------------------------------------------------------------------------------------


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s, e with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _add_round_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b in float64 rounded to odd: inexact results get an odd last bit.

    Rounding to odd first and to nearest last gives the correctly rounded result of the exact
    sum whenever the last format has at least two bits fewer (Boldo and Melquiond, 2008).
    """
    s, e = _two_sum(a, b)
    even = (s.view(np.uint64) & 1) == 0
    return np.where((e != 0) & even, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p, e with p = fl(a * b) and a * b = p + e exactly (Veltkamp splitting, Dekker)."""
    p = a * b
    ca, cb = 134217729.0 * a, 134217729.0 * b  # 2**27 + 1
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(a: np.ndarray, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """a * b + c rounded once, in a's dtype (float32 or float64), like the CPU's FMA."""
    if a.dtype == _F32:  # the product of two float32 is exact in float64
        p = a.astype(np.float64) * np.asarray(b, np.float32).astype(np.float64)
        c = np.broadcast_to(np.asarray(c, np.float32).astype(np.float64), p.shape)
        return _add_round_to_odd(p, c).astype(np.float32)
    a, b, c = np.broadcast_arrays(a, np.asarray(b, np.float64), np.asarray(c, np.float64))
    with np.errstate(all="ignore"):  # out of range, the tricks overflow: those are redone below
        ph, pl = _two_prod(a, b)
        sh, sl = _two_sum(c, ph)
        out = sh + _add_round_to_odd(sl, pl)
        trusted = _tricks_exact(a, b, c, ph)
    for index in np.flatnonzero(~trusted):  # rare: subnormal or huge operands and products
        out.flat[index] = _exact_fma(float(a.flat[index]), float(b.flat[index]),
                                     float(c.flat[index]))
    return out


def _tricks_exact(a: np.ndarray, b: np.ndarray, c: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Where Dekker's product and Knuth's sum are exact: no overflow, and a product whose
    rounding error is itself a float (not below the subnormals, as with std = 2.2e-309)."""
    size_a, size_b, size_p = np.abs(a), np.abs(b), np.abs(p)
    splittable = (size_a <= 2.0**990) & (size_b <= 2.0**990) & (np.abs(c) <= 2.0**1000)
    normal = ((size_a >= 2.0**-1000) & (size_b >= 2.0**-1000) & (size_p >= 2.0**-960)
              & (size_p <= 2.0**1000))
    return splittable & ((a == 0) | (b == 0) | normal)


def _exact_fma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once, from the exact rational value (float() of a Fraction rounds
    correctly, subnormals included)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c
    if not math.isfinite(c):
        return c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def _mul_add(a: np.ndarray, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """``a * b + c`` as torch's compiled kernels evaluate it here: fused, or rounded twice."""
    if _FUSED:
        return _fma(a, b, c)
    return a * a.dtype.type(b) + a.dtype.type(c)


# ----------------------------------------------------------------------------------------------
# Uniform reals (DistributionsHelper.h: uniform_real_distribution; TransformationHelper.h)
# ----------------------------------------------------------------------------------------------


def _numel(shape: Shape) -> tuple[tuple[int, ...], int]:
    """The shape as a tuple, and its number of elements."""
    shape = (operator.index(shape),) if not isinstance(shape, Sequence) else tuple(
        operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {shape}")
    return shape, math.prod(shape)


def _float_dtype(dtype: np.dtype | type) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in (_F32, _F64):
        raise TypeError(f"expected dtype float32 or float64, got {dtype}")
    return dtype


def _uniform01(gen: Generator, n: int, dtype: np.dtype) -> np.ndarray:
    """torch's uniform_real_distribution(0, 1): a float's worth of low bits times 2**-digits.

    float32 takes the low 24 bits of one ``random()``, float64 the low 53 of one ``random64()``,
    so every value is a multiple of 2**-24 (2**-53) in [0, 1) and exactly representable.
    """
    if dtype == _F32:
        return (gen.random(n) & 0xFFFFFF).astype(np.float32) * np.float32(2.0**-24)
    return (gen.random64(n) & (2**53 - 1)).astype(np.float64) * 2.0**-53


def uniform_(
    shape: Shape,
    low: float = 0.0,
    high: float = 1.0,
    dtype: np.dtype | type = np.float32,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.empty(shape, dtype).uniform_(low, high)``: ``x * (high - low) + low``, x in [0, 1).

    Bounds are cast to the dtype first and the product-sum is fused; a value that rounds up
    to ``high`` is replaced by ``low``, as torch does, so the interval stays half-open.
    """
    gen = generator or default_generator
    shape, n = _numel(shape)
    dtype = _float_dtype(dtype)
    if not low <= high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}")
    lo, hi = dtype.type(low), dtype.type(high)
    with np.errstate(over="ignore"):
        if not np.isfinite(hi - lo):
            raise RuntimeError(
                f"uniform_ expects to-from <= the largest {dtype}, but found to={high} and "
                f"from={low} which result in to-from to exceed the limit")
    x = _mul_add(_uniform01(gen, n, dtype), hi - lo, lo)
    return np.where(x == hi, lo, x).reshape(shape)


def rand(
    shape: Shape, dtype: np.dtype | type = np.float32, generator: Generator | None = None
) -> np.ndarray:
    """``torch.rand(shape, dtype=dtype)``: uniform in [0, 1)."""
    return uniform_(shape, 0.0, 1.0, dtype, generator)


# ----------------------------------------------------------------------------------------------
# Normals (DistributionTemplates.h: normal_kernel, normal_fill, NormalFill16)
# ----------------------------------------------------------------------------------------------

# avx_mathfun.h's constants: Cephes' float polynomials, each literal rounded to float32.
_C = np.float32
_LOG_P = tuple(_C(v) for v in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                               -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                               2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = _C(-2.12194440e-4), _C(0.693359375)  # ln 2 split in two parts
_SQRTHF = _C(0.707106781186547524)
_DP = (_C(-0.78515625), _C(-2.4187564849853515625e-4), _C(-3.77489497744594108e-8))  # -pi/4
_SIN_P = (_C(-1.9515295891e-4), _C(8.3321608736e-3), _C(-1.6666654611e-1))
_COS_P = (_C(2.443315711809948e-5), _C(-1.388731625493765e-3), _C(4.166664568298827e-2))
_FOPI = _C(1.27323954473516)  # 4 / pi
_ONE, _HALF = _C(1.0), _C(0.5)


def _log256_ps(x: np.ndarray) -> np.ndarray:
    """log of float32 x in (0, 1], step for step as ``log256_ps``, FMAs where GCC fused them.

    x = m * 2**e with m in [sqrt(1/2), sqrt(2)); log = e ln2 + log(m) by a degree-9 polynomial.
    """
    bits = x.view(np.int32)
    m = ((bits & ~np.int32(0x7F800000)) | _HALF.view(np.int32)).view(np.float32)  # in [.5, 1)
    e = ((bits >> 23) - 127).astype(np.float32) + _ONE
    small = m < _SQRTHF
    e = e - np.where(small, _ONE, _C(0))
    m = (m - _ONE) + np.where(small, m, _C(0))
    z = m * m
    y = np.full_like(m, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma(y, m, p)
    y = _fma(y * m, z, e * _LOG_Q1)  # y*m*z + e*q1: GCC fuses the first product
    y = _fma(z, -_HALF, y)
    return _fma(e, _LOG_Q2, m + y)


def _sincos256_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sin and cos of float32 x >= 0, step for step as ``sincos256_ps`` (Cephes' sinf/cosf).

    x is reduced by the multiple j of pi/4 nearest from below (made even) in three parts; the
    octant picks which polynomial gives sin and which cos, and their signs.
    """
    j = (x * _FOPI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    for dp in _DP:
        x = _fma(y, dp, x)
    z = x * x
    c = _fma(_fma(np.full_like(z, _COS_P[0]), z, _COS_P[1]), z, _COS_P[2])
    c = _fma(c * z, z, -(z * _HALF)) + _ONE
    s = _fma(_fma(np.full_like(z, _SIN_P[0]), z, _SIN_P[1]), z, _SIN_P[2])
    s = _fma(s * z, x, x)
    swap = (j & 2) != 0
    sin, cos = np.where(swap, c, s), np.where(swap, s, c)
    return np.where((j & 4) != 0, -sin, sin), np.where((~(j - 2) & 4) != 0, -cos, cos)


@cache
def _libm_f32() -> tuple[Callable[[float], float], ...] | None:
    """The C library's logf, cosf, sinf, which torch's plain float kernel calls; None if absent."""
    name = ctypes.util.find_library("m") or ctypes.util.find_library("c")
    if name is None:
        return None
    lib = ctypes.CDLL(name)
    funcs = []
    for f in ("logf", "cosf", "sinf"):
        func = getattr(lib, f)
        func.restype, func.argtypes = ctypes.c_float, [ctypes.c_float]
        funcs.append(func)
    return tuple(funcs)


def _elementwise(f: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """Apply a scalar C-library function to each element (exactly what the C++ loop calls)."""
    return np.fromiter(map(f, x.ravel().tolist()), x.dtype, x.size).reshape(x.shape)


def _box_muller16(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """torch's NormalFill16 on rows of 16 uniforms: 8 pairs give 8 cosines then 8 sines.

    u1 = 1 - u[:8] (so the log never sees 0), r = sqrt(-2 log u1), theta = 2 pi u[8:];
    out = fma(r cos theta, std, mean) and fma(r sin theta, std, mean).
    """
    u1, u2 = 1 - u[:, :8], u[:, 8:]
    if u.dtype == _F64:  # the C library's double log/cos/sin, which math calls too
        radius = np.sqrt(-2.0 * _elementwise(math.log, u1))
        theta = 2.0 * math.pi * u2
        cos, sin = _elementwise(math.cos, theta), _elementwise(math.sin, theta)
    elif _CAPABILITY == "avx2":
        radius = np.sqrt(_C(-2.0) * _log256_ps(u1))
        sin, cos = _sincos256_ps(_C(2.0 * math.pi) * u2)
    else:
        libm = _libm_f32()
        theta = (2.0 * math.pi * u2.astype(np.float64)).astype(np.float32)
        if libm is None:  # no C library to call: correctly rounded values, within 1 ulp of it
            radius = np.sqrt(_C(-2.0) * np.log(u1.astype(np.float64)).astype(np.float32))
            cos = np.cos(theta.astype(np.float64)).astype(np.float32)
            sin = np.sin(theta.astype(np.float64)).astype(np.float32)
        else:
            logf, cosf, sinf = libm
            radius = np.sqrt(_C(-2.0) * _elementwise(logf, u1))
            cos, sin = _elementwise(cosf, theta), _elementwise(sinf, theta)
    return np.concatenate([_fma(radius * cos, std, mean), _fma(radius * sin, std, mean)], axis=1)


def _normal_fill(gen: Generator, n: int, mean: float, std: float, dtype: np.dtype) -> np.ndarray:
    """torch's path for 16 or more contiguous values: Box-Muller over whole blocks of 16.

    All n uniforms are drawn first; when n is not a multiple of 16, 16 fresh uniforms are drawn
    and transformed into the last 16 slots, overwriting part of the last whole block.
    """
    mean, std = dtype.type(mean), dtype.type(std)
    out = _uniform01(gen, n, dtype)
    whole = n - n % 16
    out[:whole] = _box_muller16(out[:whole].reshape(-1, 16), mean, std).ravel()
    if n % 16:
        out[n - 16:] = _box_muller16(_uniform01(gen, 16, dtype).reshape(1, 16), mean, std)[0]
    return out


def _normal_serial(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """torch's path for fewer than 16 values: one normal_distribution<double> per element.

    Each pair of float64 uniforms gives r cos theta now and caches r sin theta in the generator
    for the next normal drawn (by any call) until the next manual_seed.
    """
    values: list[float] = []
    if n and gen._next_double_normal is not None:
        values.append(gen._next_double_normal)
        gen._next_double_normal = None
    pairs = (n - len(values) + 1) // 2
    u = _uniform01(gen, 2 * pairs, _F64).tolist()
    for u1, u2 in zip(u[0::2], u[1::2], strict=True):
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        values += (r * math.cos(theta), r * math.sin(theta))
    if len(values) > n:
        gen._next_double_normal = values.pop()
    return _mul_add(np.array(values, np.float64), std, mean)


def normal_(
    shape: Shape,
    mean: float = 0.0,
    std: float = 1.0,
    dtype: np.dtype | type = np.float32,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.empty(shape, dtype).normal_(mean, std)``, bit for bit.

    Fewer than 16 values come one by one from the double-precision Box-Muller with its cache;
    16 or more come in blocks of 16 (see ``_normal_fill``), in float32 with AVX2's own
    log/sin/cos where torch uses them.
    """
    gen = generator or default_generator
    shape, n = _numel(shape)
    dtype = _float_dtype(dtype)
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if n >= 16:
        return _normal_fill(gen, n, mean, std, dtype).reshape(shape)
    return _normal_serial(gen, n, mean, std).astype(dtype).reshape(shape)


def randn(
    shape: Shape, dtype: np.dtype | type = np.float32, generator: Generator | None = None
) -> np.ndarray:
    """``torch.randn(shape, dtype=dtype)``: standard normal values."""
    return normal_(shape, 0.0, 1.0, dtype, generator)


# ----------------------------------------------------------------------------------------------
# Integers (TransformationHelper.h: uniform_int_from_to, uniform_int; TensorFactories.cpp)
# ----------------------------------------------------------------------------------------------


def randint(
    low: int,
    high: int,
    shape: Shape,
    dtype: np.dtype | type = np.int64,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.randint(low, high, shape)``: ``random() % (high - low) + low``.

    A range of 2**28 or more takes ``random64()`` instead of ``random()`` per value; both are
    reduced with ``%``, so, as in torch, the values are very slightly non-uniform.
    """
    gen = generator or default_generator
    shape, n = _numel(shape)
    low, high = operator.index(low), operator.index(high)
    if not low < high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    span = high - low
    raw = gen.random64(n) if span >= 2**28 else gen.random(n).astype(np.uint64)
    values = (raw % np.uint64(span) + np.uint64(low % 2**64)).view(np.int64)  # wraps like C++
    return values.astype(dtype).reshape(shape)


def random_(
    shape: Shape, dtype: np.dtype | type = np.int64, generator: Generator | None = None
) -> np.ndarray:
    """``torch.empty(shape, dtype).random_()``: integers in [0, 2**63) for int64 (the seeds
    DataLoader draws), [0, 2**31) for int32, [0, 2**24] for float32 and [0, 2**53] for float64.
    """
    gen = generator or default_generator
    shape, n = _numel(shape)
    dtype = np.dtype(dtype)
    if dtype == np.int64:
        values = gen.random64(n) % np.uint64(2**63)
    elif dtype == np.int32:
        values = gen.random(n) % np.uint32(2**31)
    elif dtype == _F32:
        values = gen.random(n).astype(np.uint64) % np.uint64(2**24 + 1)
    elif dtype == _F64:
        values = gen.random64(n) % np.uint64(2**53 + 1)
    else:
        raise TypeError(f"random_ supports int64, int32, float32 and float64 here, got {dtype}")
    return values.astype(dtype).reshape(shape)


def randperm(n: int, generator: Generator | None = None) -> np.ndarray:
    """``torch.randperm(n)``: swap position i with i + random() % (n - i), for i = 0 .. n-2."""
    gen = generator or default_generator
    n = operator.index(n)
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    perm = list(range(n))
    offsets = (gen.random(max(n - 1, 0)).astype(np.int64) % np.arange(n, 1, -1)).tolist()
    for i, z in enumerate(offsets):
        perm[i], perm[i + z] = perm[i + z], perm[i]
    return np.array(perm, np.int64)


# ----------------------------------------------------------------------------------------------
# Bernoulli, exponential, multinomial (DistributionTemplates.h; Distributions.cpp)
# ----------------------------------------------------------------------------------------------


def bernoulli_(
    shape: Shape,
    p: float = 0.5,
    dtype: np.dtype | type = np.float32,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.empty(shape, dtype).bernoulli_(p)`` (Dropout's mask with p = 1 - drop rate):
    1 where a float64 uniform is below p, else 0.
    """
    gen = generator or default_generator
    shape, n = _numel(shape)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return (_uniform01(gen, n, _F64) < p).astype(dtype).reshape(shape)


def bernoulli(probs: np.ndarray, generator: Generator | None = None) -> np.ndarray:
    """``torch.bernoulli(probs)``: 1 where a uniform of probs' precision is below probs.

    float64 probabilities are compared with float64 uniforms (``random64()``), float32 ones
    with float32 uniforms (``random()``); the result has probs' dtype and shape.
    """
    gen = generator or default_generator
    probs = np.asarray(probs)
    dtype = _float_dtype(probs.dtype)
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false. "
                           "(bernoulli needs every probability in [0, 1])")
    return (_uniform01(gen, probs.size, dtype) < probs.ravel()).astype(dtype).reshape(probs.shape)


def exponential_(
    shape: Shape,
    lambd: float = 1.0,
    dtype: np.dtype | type = np.float32,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.empty(shape, dtype).exponential_(lambd)``: -log1p(-u) / lambd, u a float64."""
    gen = generator or default_generator
    shape, n = _numel(shape)
    dtype = _float_dtype(dtype)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    u = _uniform01(gen, n, _F64)
    return ((-1.0 / lambd) * np.fromiter(map(math.log1p, (-u).tolist()), np.float64, n)).astype(
        dtype).reshape(shape)


def multinomial(
    probs: np.ndarray,
    num_samples: int = 1,
    replacement: bool = False,
    generator: Generator | None = None,
) -> np.ndarray:
    """``torch.multinomial(probs, num_samples, replacement)`` for 1-D or 2-D weights (int64).

    One sample, or any number without replacement, takes torch's fast path: q ~ Exp(1) per
    weight, then the largest probs / q (argmax, or the top num_samples in order). Several
    samples with replacement invert the row's float cumulative sum with float64 uniforms.
    """
    gen = generator or default_generator
    probs = np.asarray(probs)
    dtype = _float_dtype(probs.dtype)
    num_samples = operator.index(num_samples)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = probs.reshape(-1, probs.shape[-1])
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out_shape = (*probs.shape[:-1], num_samples)
    if not replacement or num_samples == 1:
        keys = rows / exponential_(rows.shape, 1.0, dtype, gen)
        if num_samples == 1:
            return keys.argmax(axis=1).astype(np.int64).reshape(out_shape)
        order = np.argsort(-keys, axis=1, kind="stable")  # torch's topk: ties are not specified
        return order[:, :num_samples].astype(np.int64).reshape(out_shape)
    out = np.empty((rows.shape[0], num_samples), np.int64)
    for i, row in enumerate(rows):
        cum = np.cumsum(row, dtype=dtype)  # sequential, in the weights' precision, like torch
        cum = cum / cum[-1]
        cum[-1] = 1
        out[i] = np.searchsorted(cum.astype(np.float64), _uniform01(gen, num_samples, _F64))
    return out.reshape(out_shape)
