#!/bin/bash
# What cdm exec's sitecustomize.py (Windows: src/engine/programs/exec_python.c) costs a
# Python start: python3 -c pass with cdm's folder first on PYTHONPATH and a folder in
# CDM_DLL_DIRECTORIES, against the same start without it. Run on Linux, where
# os.add_dll_directory is missing: it measures reading cdm's file and looking up the
# sitecustomize it hides (Debian's own), which is the cost on Windows less the
# add_dll_directory calls themselves.
# Usage: tests/bench/exec_python.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
mkdir -p "$work/python"
# the file exactly as cdm writes it: the C string literal, read back
python3 - "$here/../../src/engine/programs/exec_python.c" "$work/python/sitecustomize.py" <<'PY'
import ast, re, sys
src = open(sys.argv[1]).read()
body = src[src.index("static const char sitecustomize[] ="):].split(";\n", 1)[0]
text = "".join(ast.literal_eval(s) for s in re.findall(r'"(?:[^"\\]|\\.)*"', body))
open(sys.argv[2], "w").write(text)
PY
if ! command -v hyperfine >/dev/null; then
  echo "hyperfine is missing: apt-get install hyperfine" >&2
  exit 1
fi
python3 "$here/turns.py" "env python3 -c pass" \
  "env PYTHONPATH=$work/python CDM_DLL_DIRECTORIES=$work python3 -c pass" >"$work/turns"
{
  IFS=$'\t' read -r _ t
  IFS=$'\t' read -r _ e er el eh
} <"$work/turns"
printf 'python3 -c pass                      %8.2f ms\n' "$t"
printf 'with cdm exec'"'"'s sitecustomize.py    %8.2f ms  (%.3fx, rounds %.3fx to %.3fx)\n' "$e" "$er" "$el" "$eh"
