#!/usr/bin/env bash
# Everything `make test` checks, after set-up (README.md, "What make test runs"). Every step
# runs even when an earlier one failed, so one CI run reports all problems; the exit status is
# non-zero if any failed. The long legs run alongside the rest on the second core, and their
# logs are printed at the end: the Colab leg (Colab's versions, its Python), and, one after the
# other, the chapters on the other supported Python and the two ends of the supported torch
# range (Colab's release and the newest).
set -uo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
OTHER_PYTHON_VERSION=${OTHER_PYTHON_VERSION:-3.12}
COLAB_TEST=tests/book/test_colab_bootstrap.py
COLAB_LOG=_build/colab-test.log
PYTHON_LOG=_build/python-$OTHER_PYTHON_VERSION.log
TORCH_LOG=_build/torch-range.log
# The two ends of the torch range: Colab's release on Colab's Python, the newest on ours.
COLAB_TORCH=$(sed -n 's/^torch==//p' tests/colab-requirements.txt)
COLAB_PYTHON=$(sed -n 's/^# python: //p' tests/colab-requirements.txt)
NEWEST_TORCH=$(sed -n 's/^torch==//p' tests/newest-torch.txt)
MAIN_PYTHON=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
shopt -s nullglob
chapters=(book/chapters/*.ipynb)
# Strict nbval (never --nbval-lax): each chapter re-run, its outputs compared with the stored ones.
nbval=(--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
       --nbval-cell-timeout=600 --nbval-kernel-startup-timeout=300)
status=0
mkdir -p _build
# Each step's wall time, for README.md's "CI timing": took NAME START_SECONDS.
took() { printf '   (%s: %d min %02d s)\n' "$1" $(((SECONDS - $2) / 60)) $(((SECONDS - $2) % 60)); }
# Hypothesis: the same examples on every run, CI or not (tests/conftest.py).
export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}

# Disk: the venvs built below hold CUDA builds of torch from PyPI (run on the CPU): .venv-3.12
# 6.5 GB, _build/colab-venv and each .venv-torch-<version> about 7 GB, and pip briefly holds
# their wheels too. Say so before pip fails halfway with "No space left on device".
need_gb=0
[ -e ".venv-$OTHER_PYTHON_VERSION/.requirements.stamp" ] ||
  ! scripts/find-python.sh "$OTHER_PYTHON_VERSION" >/dev/null || need_gb=$((need_gb + 8))
[ -e _build/colab-venv/bin/python ] || need_gb=$((need_gb + 8))
for version in "$COLAB_TORCH" "$NEWEST_TORCH"; do
  [ -e ".venv-torch-$version/.requirements.stamp" ] || need_gb=$((need_gb + 8))
done
free_gb=$(df -Pk . | awk 'NR == 2 { print int($4 / 1048576) }')
echo "== disk: $free_gb GB free; the venvs still to build need about $need_gb GB"
[ "$free_gb" -ge "$need_gb" ] || echo "WARNING: too little disk space; free at least $need_gb GB, or expect pip to fail with 'No space left on device'"

echo "== The Colab leg: started in the background (log: $COLAB_LOG)"
{ start=$SECONDS; "$PY" -m pytest -p no:cacheprovider "$COLAB_TEST"; result=$?
  took "the Colab leg" "$start"; exit "$result"; } >"$COLAB_LOG" 2>&1 &
colab=$!
echo "== Chapters on Python $OTHER_PYTHON_VERSION: started in the background (log: $PYTHON_LOG)"
echo "   then torch $COLAB_TORCH and torch $NEWEST_TORCH (log: $TORCH_LOG)"
(
  start=$SECONDS
  { scripts/python-leg.sh "$OTHER_PYTHON_VERSION" "${chapters[@]}" "${nbval[@]}"
    python_status=$?; took "Python $OTHER_PYTHON_VERSION" "$start"; } >"$PYTHON_LOG" 2>&1
  {
    echo "-- torch $COLAB_TORCH (Colab's), Python $COLAB_PYTHON: cross-checks (the chapters ran in the Colab leg)"
    start=$SECONDS
    scripts/torch-leg.sh "$COLAB_TORCH" "$COLAB_PYTHON"
    colab_status=$?
    took "torch $COLAB_TORCH" "$start"
    echo "-- torch $NEWEST_TORCH (the newest), Python $MAIN_PYTHON: cross-checks and chapters"
    start=$SECONDS
    scripts/torch-leg.sh "$NEWEST_TORCH" "$MAIN_PYTHON" --chapters
    newest_status=$?
    took "torch $NEWEST_TORCH" "$start"
  } >"$TORCH_LOG" 2>&1
  [ "$python_status" -eq 0 ] && [ "$colab_status" -eq 0 ] && [ "$newest_status" -eq 0 ]
) &
other_legs=$!
trap 'kill "$colab" "$other_legs" 2>/dev/null || true' INT TERM

echo "== ruff check"
"$PY" -m ruff check . || status=1

echo "== book build (-W -n)"
start=$SECONDS
"$PY" scripts/build_book.py || status=1
took "book build" "$start"

echo "== pytest: unit, cross-checks, book tests, strict nbval of ${#chapters[@]} chapter(s)"
start=$SECONDS
"$PY" -m pytest tests "${chapters[@]}" --ignore="$COLAB_TEST" "${nbval[@]}" || status=1
took "pytest" "$start"

echo "== strict nbval again, with the numeric kernels of another CPU class"
start=$SECONDS
(
  eval "$(scripts/other-cpu-env.sh)"
  echo "   ($AUTOGRAD_BOOK_KERNELS)"
  "$PY" -m pytest -p no:cacheprovider "${chapters[@]}" "${nbval[@]}" -q
) || status=1
took "strict nbval, other kernels" "$start"

start=$SECONDS
wait "$other_legs" || status=1
took "then waiting for the legs alongside" "$start"
echo "== Chapters on Python $OTHER_PYTHON_VERSION (ran alongside)"
cat "$PYTHON_LOG"
echo "== The two ends of the torch range (ran alongside)"
cat "$TORCH_LOG"

echo "== publishing: the companion's sdist and wheel, twine check, workflow schemas (README.md)"
"$PY" scripts/check_publishing.py || status=1

start=$SECONDS
wait "$colab" || status=1
took "then waiting for the Colab leg" "$start"
echo "== The Colab leg (ran alongside)"
cat "$COLAB_LOG"
took "make test's checks in all" 0

[ "$status" -eq 0 ] && echo "make test: all checks passed" || echo "make test: FAILED (see above)"
exit "$status"
