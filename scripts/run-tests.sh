#!/usr/bin/env bash
# Everything `make test` checks, after set-up (README.md, "What make test runs"). Every step
# runs even when an earlier one failed, so one CI run reports all problems; the exit status is
# non-zero if any failed. Two long legs that mostly wait on pip and kernels run alongside the
# rest on the second core: the Colab bootstrap test, and the chapters on the other supported
# Python; their logs are printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
OTHER_PYTHON_VERSION=${OTHER_PYTHON_VERSION:-3.12}
COLAB_TEST=tests/book/test_colab_bootstrap.py
COLAB_LOG=_build/colab-test.log
PYTHON_LOG=_build/python-$OTHER_PYTHON_VERSION.log
shopt -s nullglob
chapters=(book/chapters/*.ipynb)
# Strict nbval (never --nbval-lax): each chapter re-run, its outputs compared with the stored ones.
nbval=(--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
       --nbval-cell-timeout=600 --nbval-kernel-startup-timeout=300)
status=0
mkdir -p _build
# Hypothesis: the same examples on every run, CI or not (tests/conftest.py).
export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}

# Disk: the two venvs built below take ~9 GB (.venv-3.12 6.5 GB, _build/colab-venv 2.3 GB) and
# pip briefly holds their wheels too; measured peak ~11 GB beyond .venv. Say so before pip
# fails halfway with "No space left on device".
need_gb=0
[ -e ".venv-$OTHER_PYTHON_VERSION/.requirements.stamp" ] ||
  ! scripts/find-python.sh "$OTHER_PYTHON_VERSION" >/dev/null || need_gb=$((need_gb + 8))
[ -e _build/colab-venv/bin/python ] || need_gb=$((need_gb + 3))
free_gb=$(df -Pk . | awk 'NR == 2 { print int($4 / 1048576) }')
echo "== disk: $free_gb GB free; the venvs still to build need about $need_gb GB"
[ "$free_gb" -ge "$need_gb" ] || echo "WARNING: too little disk space; free at least $need_gb GB, or expect pip to fail with 'No space left on device'"

echo "== Colab bootstrap test: started in the background (log: $COLAB_LOG)"
"$PY" -m pytest -p no:cacheprovider "$COLAB_TEST" >"$COLAB_LOG" 2>&1 &
colab=$!
echo "== Chapters on Python $OTHER_PYTHON_VERSION: started in the background (log: $PYTHON_LOG)"
scripts/python-leg.sh "$OTHER_PYTHON_VERSION" "${chapters[@]}" "${nbval[@]}" >"$PYTHON_LOG" 2>&1 &
other_python=$!
trap 'kill "$colab" "$other_python" 2>/dev/null || true' INT TERM

echo "== ruff check"
"$PY" -m ruff check . || status=1

echo "== book build (-W -n)"
"$PY" scripts/build_book.py || status=1

echo "== pytest: unit, cross-checks, book tests, strict nbval of ${#chapters[@]} chapter(s)"
"$PY" -m pytest tests "${chapters[@]}" --ignore="$COLAB_TEST" "${nbval[@]}" || status=1

echo "== strict nbval again, with the numeric kernels of another CPU class"
(
  eval "$(scripts/other-cpu-env.sh)"
  echo "   ($AUTOGRAD_BOOK_KERNELS)"
  "$PY" -m pytest -p no:cacheprovider "${chapters[@]}" "${nbval[@]}" -q
) || status=1

wait "$other_python" || status=1
echo "== Chapters on Python $OTHER_PYTHON_VERSION (ran alongside)"
cat "$PYTHON_LOG"

echo "== publishing: the companion's sdist and wheel, twine check, workflow schemas (README.md)"
"$PY" scripts/check_publishing.py || status=1

wait "$colab" || status=1
echo "== Colab bootstrap test (ran alongside)"
cat "$COLAB_LOG"

[ "$status" -eq 0 ] && echo "make test: all checks passed" || echo "make test: FAILED (see above)"
exit "$status"
