# Every global option in every position, under Wine's heap checks (run_cdm, lib.sh): the
# front end takes the options out of the argument list in place, and the Windows entry
# point frees what it converted from UTF-16, each once. --json, -q, --verbose, --root and
# --config before the command, after it, between its arguments and last; and the prompt
# hook's own line (activate --hook-state --quiet --shell pwsh -- DIR). The output is the
# same wherever an option stands.
. "$TESTS_DIR/win/lib.sh"

run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip)")"
expect_rc 0 "an install to list"
run_cdm --json list
want_json=$OUT
run_cdm list
want_text=$OUT

# each option (one word, or a pair) in each position of a command line
opts=("--json" "-q" "--verbose" "--root|$CDM_ROOT" "--config|$CDM_CONFIG")
for o in "${opts[@]}"; do
  IFS='|' read -r -a opt <<<"$o"
  for cmd in "list" "which 9.1" "help link"; do
    read -r -a words <<<"$cmd"
    n=${#words[@]}
    for pos in $(seq 0 "$n"); do
      line=("${words[@]:0:pos}" "${opt[@]}" "${words[@]:pos}")
      run_cdm "${line[@]}"
      check "cdm ${line[*]}: exits as it should" test "$RC" -lt 2
      if [ "$cmd" = list ] && [ "${opt[0]}" = --json ]; then
        check "  and prints what --json list prints first" test "$OUT" = "$want_json"
      elif [ "$cmd" = list ] && [ "${opt[0]}" != -q ]; then
        check "  and prints what list prints" test "$OUT" = "$want_text"
      fi
    done
  done
done
mkdir -p "$SCRATCH/dir"
for line in "activate --hook-state --quiet --shell pwsh -- $(wpath "$SCRATCH/dir")" \
  "--quiet activate --hook-state --shell pwsh -- $(wpath "$SCRATCH/dir")" \
  "activate --quiet --shell pwsh --hook-state -- $(wpath "$SCRATCH/dir")"; do
  read -r -a words <<<"$line"
  run_cdm "${words[@]}"
  check "cdm $line: ends without a crash" test "$RC" -lt 128
done

done_testing
