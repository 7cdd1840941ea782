#!/usr/bin/env bash
# Print the path of a working Python X.Y interpreter, or nothing (exit 1) if there is none.
# Looks on PATH (python3.12), then in pyenv's and the usual install prefixes: a pyenv shim on
# PATH is not enough, since it fails unless that version is selected. A Python that cannot make
# a venv with pip (Debian's without python3.X-venv: no ensurepip) counts as none.
# Usage: find-python.sh 3.12
set -uo pipefail
version=${1:?usage: find-python.sh X.Y}
shopt -s nullglob
for candidate in "$(command -v "python$version")" \
                 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/"python$version" \
                 /usr/local/bin/"python$version" /usr/bin/"python$version"; do
  [ -n "$candidate" ] && [ -x "$candidate" ] || continue
  if "$candidate" -c "import ensurepip, sys, venv; sys.exit(sys.version_info[:2] != tuple(map(int, '$version'.split('.'))))" \
      >/dev/null 2>&1; then
    echo "$candidate"
    exit 0
  fi
done
exit 1
