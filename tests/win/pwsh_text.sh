# cdm.exe's own PowerShell text, for a project (and a store, which the default's activation
# names) whose path holds Latin, Cyrillic and CJK letters, quotes, '$', backticks and spaces,
# linked through a junction: it keeps the rules
# tests/ps_rules.py holds every PowerShell text to (ASCII only, verbatim strings, nothing
# PowerShell 5.1 lacks, nothing read before it is set); decoded as Windows PowerShell would
# decode a native program's output (code pages 437, 850 and 1252: Out-String reads it with
# [Console]::OutputEncoding) it is the same text each time, and its strings, evaluated as
# PowerShell evaluates them, give the project's paths back exactly. No PowerShell runs here.
. "$TESTS_DIR/win/lib.sh"

if ! junctions_work; then
  skip "cdm.exe's PowerShell text for a non-ASCII project" \
    "junctions cannot be made here (stock Wine 8), so no project can be activated"
  done_testing
  exit
fi
name=$'proj \'q\' $x `b` caf\xc3\xa9 \xd0\x96\xd1\x83\xd0\xba \xe6\x97\xa5\xe6\x9c\xac'
P=$SCRATCH/$name
mkdir -p "$P"
# the store under such a name too: the default's activation names it
# shellcheck disable=SC2155 # wpath only prints
export CDM_ROOT=$(wpath "$SCRATCH/store $name")
run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip)")"
expect_rc 0 "9.1 installs"
run_cdm link "$(wpath "$P")" 9.1.0.70
expect_rc 0 "a project named with é, Cyrillic, CJK, quotes, \$ and a backtick links"
"$WINE" "$CDM_EXE" activate --shell pwsh -- "$(wpath "$P")" >"$SCRATCH/activate.raw" 2>"$SCRATCH/activate.err"
check "cdm.exe activate --shell pwsh prints the activation" test -s "$SCRATCH/activate.raw"
OUT=$(python3 "$TESTS_DIR/ps_rules.py" --data "$SCRATCH/activate.raw")
check "it keeps every rule of tests/ps_rules.py" test -z "$OUT"
[ -z "$OUT" ] || diag "$OUT"
OUT=$("$WINE" "$CDM_EXE" hook pwsh | python3 "$TESTS_DIR/ps_rules.py" -)
check "so does cdm.exe's prompt hook" test -z "$OUT"

# Each $env: line evaluated as PowerShell does: '...' verbatim (a doubled quote is one),
# [char]0xNNNN one UTF-16 unit, [IO.Path]::PathSeparator ';', joined by +.
# decoded RAW WANT: RAW read as each code page is the same text, whose CUDA_PATH is WANT and
# whose PATH starts with WANT's bin folder
decoded() {
  python3 - "$1" "$2" <<'EOF'
import re, sys
raw = open(sys.argv[1], "rb").read()
texts = {cp: raw.decode(cp) for cp in ("cp437", "cp850", "cp1252")}
if len(set(texts.values())) != 1:
    sys.exit("the text differs between code pages")
term = re.compile(r"\s*(?:'((?:[^']|'')*)'|\[char\]0x([0-9A-Fa-f]{4})|(\[IO\.Path\]::PathSeparator))\s*")
values = {}
for line in texts["cp437"].splitlines():
    m = re.match(r"\$env:(\w+) = (.*)$", line)
    if not m:
        continue
    expr, out, pos = m.group(2).strip(), "", 0
    if expr.startswith("(") and ")" in expr:  # ('' + ... ) + [IO.Path]::PathSeparator + '...'
        expr = expr.replace("(", "", 1).replace(")", "", 1)
    for part in expr.split(" + "):
        t = term.fullmatch(part)
        if not t:
            sys.exit("cannot read %r in %s" % (part, line))
        out += t.group(1).replace("''", "'") if t.group(1) is not None else \
            chr(int(t.group(2), 16)) if t.group(2) else ";"
    values[m.group(1)] = out
want = sys.argv[2]
if values.get("CUDA_PATH") != want:
    sys.exit("CUDA_PATH %r, want %r" % (values.get("CUDA_PATH"), want))
if not values.get("PATH", "").startswith(want + "\\bin;"):
    sys.exit("PATH starts %r" % values.get("PATH", "")[:200])
EOF
}
check "decoded as code page 437, 850 or 1252 it is the same text, and CUDA_PATH is the project's link, every letter intact" \
  decoded "$SCRATCH/activate.raw" "$(wpath "$P")\\cuda_link"

# Outside projects, the default: CUDA_PATH is the install's folder in the store, whose path
# holds the same letters.
run_cdm default 9.1.0.70
expect_rc 0 "a default in a store named with them"
(cd "$SCRATCH" && "$WINE" "$CDM_EXE" activate --shell pwsh) >"$SCRATCH/default.raw" 2>"$SCRATCH/default.err"
check "the default's text keeps the rules" test -z "$(python3 "$TESTS_DIR/ps_rules.py" --data "$SCRATCH/default.raw")"
check "decoded as code page 437, 850 or 1252, CUDA_PATH is the store's folder, every letter intact" \
  decoded "$SCRATCH/default.raw" "$CDM_ROOT\\9.1.0.70-cuda12"

done_testing
