#!/usr/bin/env bash
# Installs Arize Phoenix from PyPI into a venv of its own under ~/.cache/vigil-engines/phoenix (once;
# reused while its .installed names the pinned version) and prints that venv's python, for
# BenchmarkOTLPPhoenix. A benchmark-time tool only: no test needs it, CI does not install it.
set -euo pipefail
PHOENIX_VERSION=20.26.1
VENV="${VIGIL_ENGINES_DIR:-$HOME/.cache/vigil-engines}/phoenix"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.installed" 2>/dev/null)" != "$PHOENIX_VERSION" ]; then
  py=""
  for p in python3.11 python3 python3.12 python3.13; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then py="$p"; break; fi
  done
  [ -n "$py" ] || { echo "phoenix.sh: Phoenix needs Python 3.10 or newer" >&2; exit 1; }
  rm -rf "$VENV"
  "$py" -m venv "$VENV" >&2
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" -m pip install --quiet --prefer-binary --no-input \
    "arize-phoenix==$PHOENIX_VERSION" >&2
  echo "$PHOENIX_VERSION" >"$VENV/.installed"
fi
echo "$VENV/bin/python"
