#!/bin/sh
# The launcher CMake writes for a Python worker (build/pipette-worker-RUNTIME) starts the
# worker, which answers hello as RUNTIME; PIPETTE_PYTHON replaces the interpreter.
# Usage: launcher_test.sh LAUNCHER PYTHON RUNTIME
set -eu
launcher=$1 python=$2 runtime=$3
hello='{"id":1,"op":"hello"}'
reply=$(echo "$hello" | "$launcher")
case "$reply" in
  *'"runtime":"'"$runtime"'"'*) ;;
  *) echo "launcher_test: hello answered: $reply" >&2; exit 1 ;;
esac
reply=$(echo "$hello" | PIPETTE_PYTHON="$python" "$launcher")
case "$reply" in
  *'"runtime":"'"$runtime"'"'*) ;;
  *) echo "launcher_test: with PIPETTE_PYTHON, hello answered: $reply" >&2; exit 1 ;;
esac
if echo "$hello" | PIPETTE_PYTHON=/nonexistent/python "$launcher" 2>/dev/null; then
  echo "launcher_test: PIPETTE_PYTHON=/nonexistent/python was not used" >&2
  exit 1
fi
