#!/usr/bin/env bash
# `make test`'s run on another torch release than the pinned one: the engine's cross-checks
# against that torch (tests/engine, the build steps' checks, the compatibility suite, the
# random-number and graph tests) and, with --chapters, every chapter executed top to bottom
# with its verification cells (their claims must hold; outputs are not compared: strict nbval
# does that on the pinned release). It runs in .venv-torch-<version>, built from
# requirements.txt and constraints.txt with only torch changed, on Python <python>.
# Usage: scripts/torch-leg.sh TORCH_VERSION PYTHON_VERSION [--chapters]
set -uo pipefail
cd "$(dirname "$0")/.."
torch=${1:?usage: torch-leg.sh TORCH_VERSION PYTHON_VERSION [--chapters]}
python_version=${2:?usage: torch-leg.sh TORCH_VERSION PYTHON_VERSION [--chapters]}
chapters=${3:-}
if ! interpreter=$(scripts/find-python.sh "$python_version"); then
  echo "Python $python_version is not installed here; install it (e.g. pyenv install $python_version)."
  exit 1
fi
venv=.venv-torch-$torch
stamp=$venv/.requirements.stamp
wanted=$(cat requirements.txt constraints.txt companion/pyproject.toml <(echo "$interpreter") |
         sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "Building $venv: torch $torch on Python $python_version ($interpreter)"
  rm -rf "$venv"
  "$interpreter" -m venv "$venv" || exit 1
  pins=$(mktemp -d)
  trap 'rm -rf "$pins"' EXIT
  sed -E "s/^torch==.*/torch==$torch/; s#^-c constraints.txt#-c $pins/constraints.txt#;
          s#^-e \./companion#-e $PWD/companion#" requirements.txt >"$pins/requirements.txt"
  grep -v '^torch==' constraints.txt >"$pins/constraints.txt"
  "$venv/bin/python" -m pip install --quiet --no-compile -r "$pins/requirements.txt" || exit 1
  echo "$wanted" >"$stamp"
fi
status=0
"$venv/bin/python" -c 'import sys, torch; print(f"torch {torch.__version__}, Python {sys.version.split()[0]}")'
echo "-- the engine's cross-checks against this torch"
"$venv/bin/python" -m pytest -p no:cacheprovider -q tests/engine tests/test_steps.py tests/compat \
  tests/test_graph.py tests/test_random.py || status=1
if [ "$chapters" = --chapters ]; then
  echo "-- every chapter executed, verification cells included (outputs not compared)"
  # Copies: a chapter writes files beside itself (the guided build's myautograd.py).
  copies=$(mktemp -d)
  cp book/chapters/*.ipynb "$copies/"
  "$venv/bin/python" scripts/execute_notebooks.py --check "$copies"/*.ipynb || status=1
  rm -rf "$copies"
fi
exit "$status"
