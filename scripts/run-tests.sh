#!/usr/bin/env bash
# Everything `make test` checks, after set-up (README.md, "What make test runs"). Every step
# runs even when an earlier one failed, so one CI run reports all problems; the exit status is
# non-zero if any failed. The Colab bootstrap test, long and mostly waiting on pip and kernels,
# runs alongside the rest on the second core; its log is printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
COLAB_TEST=tests/book/test_colab_bootstrap.py
COLAB_LOG=_build/colab-test.log
shopt -s nullglob
chapters=(book/chapters/*.ipynb)
status=0
mkdir -p _build

echo "== Colab bootstrap test: started in the background (log: $COLAB_LOG)"
"$PY" -m pytest -p no:cacheprovider "$COLAB_TEST" >"$COLAB_LOG" 2>&1 &
colab=$!
trap 'kill "$colab" 2>/dev/null || true' INT TERM

echo "== ruff check"
"$PY" -m ruff check . || status=1

echo "== book build (-W -n)"
"$PY" scripts/build_book.py || status=1

echo "== pytest: unit, cross-checks, book tests, strict nbval of ${#chapters[@]} chapter(s)"
"$PY" -m pytest tests "${chapters[@]}" --ignore="$COLAB_TEST" \
  --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
  --nbval-cell-timeout=600 || status=1

echo "== publishing: the companion's sdist and wheel, twine check, workflow schemas (README.md)"
"$PY" scripts/check_publishing.py || status=1

wait "$colab" || status=1
echo "== Colab bootstrap test (ran alongside)"
cat "$COLAB_LOG"

[ "$status" -eq 0 ] && echo "make test: all checks passed" || echo "make test: FAILED (see above)"
exit "$status"
