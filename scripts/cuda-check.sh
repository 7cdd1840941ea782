#!/usr/bin/env bash
# The CUDA leg: on a machine with one NVIDIA GPU, Python with torch (a CUDA build) and CuPy
# already installed, and no network. It runs, each step under its own timeout (10 min at most):
#   1. the engine's cross-check suite (tests/engine) with device="cuda", on both engines;
#   2. compare_with_torch on the GPU (scripts/cuda_compare.py);
#   3. the benchmarks' GPU rows (benchmarks/gpu.py), beside the same rows on the CPU;
# and writes one markdown report: versions, GPU, pass/fail counts, the benchmark table.
#
#   scripts/cuda-check.sh [REPORT]            default REPORT: $OUT/cuda-report.md, else
#                                             _build/cuda-report.md
#   scripts/cuda-check.sh --dry-run [REPORT]  the same steps on the CPU on a tiny subset: how
#                                             tests/test_cuda_check.py tests this script in CI
# PYTHON picks the interpreter (default: python3). miniautograd comes from companion/src (no
# install). Test packages missing on that Python (pytest, hypothesis, threadpoolctl, mygrad,
# autograd) are installed from a local wheel folder, CUDA_CHECK_WHEELS (default _build/wheels),
# never from the network; fill it beforehand on a machine with network:
#   pip download --only-binary=:all: --python-version 3.12 -d _build/wheels \
#       pytest hypothesis threadpoolctl mygrad autograd
# Exit status: 0 all passed; 1 a step failed; 2 no GPU, no CuPy or a missing package (at once).
set -uo pipefail
cd "$(dirname "$0")/.."

DRY_RUN=0
if [ "${1:-}" = "--dry-run" ]; then DRY_RUN=1; shift; fi
PYTHON=${PYTHON:-python3}
REPORT=${1:-${OUT:-_build}/cuda-report.md}
WHEELS=${CUDA_CHECK_WHEELS:-_build/wheels}
export PYTHONPATH="$PWD/companion/src:$PWD${PYTHONPATH:+:$PYTHONPATH}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
if [ "$DRY_RUN" = 1 ]; then
  DEVICE=cpu
  ENGINE_TESTS=(tests/engine/test_ops.py -k "cpu and (exp or matmul)")
  COMPARE_ARGS=(--device cpu)
  BENCH_ARGS=(--device cpu --quick --repeats 1)
else
  DEVICE=cuda
  ENGINE_TESTS=(tests/engine -k cuda)
  COMPARE_ARGS=(--device cuda)
  BENCH_ARGS=(--device cuda)
fi
mkdir -p "$(dirname "$REPORT")"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

fail_fast() {
  echo "cuda-check: $*" >&2
  { echo "# CUDA check: not run"; echo; echo "$*"; } >"$REPORT"
  exit 2
}

# ---- 0. preflight: the GPU, CuPy, torch's CUDA build, the test packages -----------------------
command -v "$PYTHON" >/dev/null || fail_fast "PYTHON=$PYTHON not found"
missing=$(timeout 30 "$PYTHON" - <<'PY'
import importlib.util
names = ["numpy", "torch", "pytest", "hypothesis", "threadpoolctl", "mygrad", "autograd"]
print(" ".join(n for n in names if importlib.util.find_spec(n) is None))
PY
) || fail_fast "$PYTHON could not look up its packages"
if [ -n "$missing" ] && [ -d "$WHEELS" ]; then
  echo "== installing from $WHEELS (no network): $missing"
  # shellcheck disable=SC2086 # one word per package
  timeout 60 "$PYTHON" -m pip install --no-index --find-links "$WHEELS" $missing >&2 \
    || fail_fast "could not install $missing from $WHEELS"
  missing=""
fi
[ -z "$missing" ] || fail_fast "missing on $PYTHON: $missing (put their wheels in $WHEELS)"

timeout 30 "$PYTHON" - "$DEVICE" >"$WORK/versions.md" 2>"$WORK/preflight.err" <<'PY'
import platform, sys
import numpy, torch
import miniautograd
device = sys.argv[1]
lines = [f"- Python {platform.python_version()}, numpy {numpy.__version__}, "
         f"torch {torch.__version__} (CUDA {torch.version.cuda}), "
         f"miniautograd {miniautograd.__version__}"]
try:
    import cupy
    lines.append(f"- CuPy {cupy.__version__} (CUDA runtime "
                 f"{cupy.cuda.runtime.runtimeGetVersion()}, driver "
                 f"{cupy.cuda.runtime.driverGetVersion()})")
except Exception as error:  # noqa: BLE001 - any failure to load CuPy means no GPU leg
    lines.append(f"- CuPy: not usable ({type(error).__name__}: {error})")
if device == "cuda":
    if not torch.cuda.is_available():
        sys.exit("torch sees no CUDA GPU (a CPU build of torch, or no driver)")
    if not miniautograd.cuda.is_available():
        sys.exit("miniautograd sees no CUDA GPU: CuPy is missing or finds no device")
    lines.append(f"- GPU: {torch.cuda.get_device_name(0)} "
                 f"({torch.cuda.get_device_properties(0).total_memory / 2**30:.0f} GiB)")
else:
    lines.append("- Device: cpu (dry run: the script's steps on a tiny subset, no GPU)")
print("\n".join(lines))
PY
[ $? -eq 0 ] || fail_fast "$(tail -1 "$WORK/preflight.err")"

# ---- the steps --------------------------------------------------------------------------------
status=0
summary=()
run_step() {  # name, seconds, log, command...
  local name=$1 seconds=$2 log=$3
  shift 3
  echo "== $name (limit ${seconds}s)"
  local start=$SECONDS
  timeout "$seconds" "$@" >"$log" 2>&1
  local rc=$?
  local took=$((SECONDS - start))
  if [ $rc -eq 124 ]; then
    summary+=("| $name | TIMED OUT after ${seconds}s | ${took}s |")
    status=1
  elif [ $rc -ne 0 ]; then
    summary+=("| $name | FAILED (exit $rc) | ${took}s |")
    status=1
  else
    summary+=("| $name | passed | ${took}s |")
  fi
  tail -3 "$log"
}

run_step "1. engine cross-checks, device=$DEVICE" 300 "$WORK/engine.log" \
  env MINIAUTOGRAD_TEST_DEVICES="$DEVICE" "$PYTHON" -m pytest "${ENGINE_TESTS[@]}" -q \
  -p no:cacheprovider -o addopts="" --junitxml="$WORK/engine.xml"
run_step "2. compare_with_torch, device=$DEVICE" 60 "$WORK/compare.log" \
  "$PYTHON" scripts/cuda_compare.py "${COMPARE_ARGS[@]}"
run_step "3. benchmark GPU rows" 120 "$WORK/bench.log" \
  "$PYTHON" benchmarks/gpu.py "${BENCH_ARGS[@]}"

counts=$("$PYTHON" - "$WORK/engine.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    suite = ET.parse(sys.argv[1]).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    get = lambda key: int(suite.get(key, 0))
    failed = get("failures") + get("errors")
    print(f"{get('tests') - failed - get('skipped')} passed, {failed} failed, "
          f"{get('skipped')} skipped or expected failures (xfail)")
except Exception as error:  # noqa: BLE001
    print(f"no test report ({type(error).__name__})")
PY
)

{
  echo "# CUDA check"
  echo
  cat "$WORK/versions.md"
  echo
  echo "| step | result | time |"
  echo "|---|---|---|"
  printf '%s\n' "${summary[@]}"
  echo
  echo "## 1. Engine cross-checks (tests/engine, device=$DEVICE, both engines)"
  echo
  echo "$counts"
  echo
  echo '```'
  grep -E "^(FAILED|ERROR)" "$WORK/engine.log" | head -40
  tail -1 "$WORK/engine.log"
  echo '```'
  echo
  echo "## 2. compare_with_torch (device=$DEVICE)"
  echo
  cat "$WORK/compare.log"
  echo
  echo "## 3. Benchmarks: GPU rows"
  echo
  cat "$WORK/bench.log"
} >"$REPORT"

echo "cuda-check: report in $REPORT"
[ $status -eq 0 ] && echo "cuda-check: all steps passed" || echo "cuda-check: FAILED (see the report)"
exit $status
