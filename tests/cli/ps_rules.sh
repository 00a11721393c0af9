# PowerShell as users run it, where no PowerShell can be run: tests/ps_rules.py checks every
# golden PowerShell text (activation, deactivation, the prompt hook; shell_text.sh keeps them
# equal to what cdm prints), the live hook and the completion script for what a parse cannot
# see: ASCII only, no PowerShell 7 syntax, verbatim strings in data, every variable set
# before it is read (Set-StrictMode -Version Latest). Each rule is seen failing once on a
# text broken on purpose.
. "$TESTS_DIR/cli/lib.sh"

rules() { python3 "$TESTS_DIR/ps_rules.py" "$@" 2>&1; }
for f in "$TESTS_DIR"/golden/*.pwsh "$TESTS_DIR"/golden/*.powershell; do
  case ${f##*/} in activate* | deactivate*) data=--data ;; *) data= ;; esac
  OUT=$(rules $data "$f")
  check "golden/${f##*/} keeps every rule" test -z "$OUT"
  [ -z "$OUT" ] || diag "$OUT"
done
OUT=$("$CDM" hook pwsh | rules -)
check "the live pwsh hook keeps every rule" test -z "$OUT"
OUT=$(rules "$TESTS_DIR/../completions/cdm.ps1")
check "the completion script keeps every rule" test -z "$OUT"
[ -z "$OUT" ] || diag "$OUT"

# broken: RULE TEXT [--data]: the checker names RULE for TEXT
broken() {
  local rule=$1 text=$2
  shift 2
  OUT=$(printf '%s\n' "$text" | rules "$@" -)
  check "a text breaking '$rule' is caught: $text" sh -c 'printf "%s\n" "$1" | grep -q "^$2: "' _ "$OUT" "$rule"
}
broken ascii "\$env:CUDA_PATH = 'C:\\caf$(printf '\303\251')'" --data
broken ps51 "\$x = \$env:CUDA_PATH ?? 'none'"
broken ps51 "cdm activate && cdm doctor"
broken ps51 "\$x = \$env:A ? 'a' : 'b'"
broken balanced "\$env:CUDA_PATH = 'it's'" --data
broken balanced "function f { if (\$true) { 'x' }"
broken verbatim "\$env:CUDA_PATH = \"C:\\\$x\"" --data
broken strict "if (-not \$global:__unset) { 'x' }"
broken strict "\$code = \$global:LASTEXITCODE"
OUT=$(printf '%s\n' "\$x = 'a'" "\$y = \$x" "foreach (\$n in 'p', 'q') { \$n }" | rules -)
check "set before read, a loop variable and quoted text pass" test -z "$OUT"

done_testing
