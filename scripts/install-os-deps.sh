#!/usr/bin/env bash
# Install the OS programs the book needs, when absent, with Debian's apt-get:
#   graphviz  -> `dot`, which renders the autograd graphs in the notebooks, and the
#                Liberation fonts its drawings use (fonts-liberation2)
#   chromium  -> /usr/bin/chromium, the browser of tests/book/test_browser.py, and a Chinese
#                font (fonts-noto-cjk) for the Chinese edition's pages that it shows
#   npm       -> npm (and Node.js), which installs MathJax from package-lock.json
# Usage: scripts/install-os-deps.sh [graphviz] [chromium] [npm]   (default: all three)
set -euo pipefail

wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(graphviz chromium npm)

missing=()
for package in "${wanted[@]}"; do
  case "$package" in
    # The drawings' font (Helvetica, Arial) must resolve to Liberation Sans: dot sizes every
    # node from the font's metrics, and the stored SVGs are compared byte for byte.
    graphviz) command -v dot >/dev/null 2>&1 || missing+=(graphviz)
              fc-match Helvetica 2>/dev/null | grep -q "Liberation Sans" ||
                missing+=(fonts-liberation2) ;;
    chromium) [ -x /usr/bin/chromium ] || missing+=(chromium)
              fc-list :lang=zh 2>/dev/null | grep -q . || missing+=(fonts-noto-cjk) ;;
    npm) command -v npm >/dev/null 2>&1 || missing+=(npm) ;;
    *) echo "install-os-deps.sh: unknown package '$package' (expected graphviz, chromium or npm)" >&2
       exit 2 ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing OS packages: ${missing[*]}. This machine has no apt-get: install them with" >&2
  echo "your system's package manager (Graphviz's 'dot', Chromium as /usr/bin/chromium, npm)." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "Missing OS packages: ${missing[*]}. Installing them needs root; run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "Installing OS packages: ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
