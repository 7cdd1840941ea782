#!/usr/bin/env bash
# `make test`'s run of the chapters on the other supported Python: strict nbval in
# .venv-<version> (built by `make setup-other-python`), when that Python is installed here;
# otherwise it says so and passes. Usage: scripts/python-leg.sh VERSION PYTEST_ARG...
set -uo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: python-leg.sh VERSION PYTEST_ARG...}
shift
if ! interpreter=$(scripts/find-python.sh "$version"); then
  echo "Python $version is not installed here: the chapters were NOT run on it (skipped)."
  exit 0
fi
echo "Python $version: $interpreter"
make --no-print-directory setup-other-python OTHER_PYTHON_VERSION="$version" || exit 1
# Its own copy of the chapters: a chapter writes files beside itself (the guided build's
# myautograd.py), which must not race the main run's nbval of the same chapter.
copies=$(mktemp -d)
trap 'rm -rf "$copies"' EXIT
args=()
for arg in "$@"; do
  if [[ $arg == *.ipynb ]]; then
    cp "$arg" "$copies/" && args+=("$copies/$(basename "$arg")")
  else
    args+=("$arg")
  fi
done
".venv-$version/bin/python" -m pytest -p no:cacheprovider -c pytest.ini --rootdir . "${args[@]}"
