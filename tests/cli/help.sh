# Help, usage lines and completion all come from one table of options per command: they
# agree with each other, and the text fits a terminal.
. "$TESTS_DIR/cli/lib.sh"

run_cdm help
expect_rc 0 "cdm help shows the overview"
commands=$(printf '%s\n' "$OUT" | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
check "the overview lists the commands" test "$(printf '%s\n' "$commands" | wc -l)" -ge 16
check "the overview lists the global options with their short names" \
  sh -c 'printf "%s" "$1" | grep -q "^  -q, --quiet"' _ "$OUT"

long=$(printf '%s\n' "$OUT" | awk 'length > 79')
for c in $commands; do
  run_cdm help "$c"
  [ "$RC" -eq 0 ] || not_ok "cdm help $c exits 0 (status $RC)"
  long="$long$(printf '%s\n' "$OUT" | awk 'length > 79')"
  help_text=$OUT
  # the options section, the usage line and completion name the same options
  in_help=$(printf '%s\n' "$help_text" | sed -n '/^options:/,$p' | grep -o -- '^  \(-., \)\?--[a-z0-9-]*' | sed 's/.*--/--/' | sort)
  in_usage=$(printf '%s\n' "$help_text" | sed -n '1,/^$/p' | grep -o -- '[[ ]--[a-z][a-z0-9-]*' | tr -d '[ ' | sort)
  run_cdm complete --current=-- -- "$c"
  offered=$(printf '%s\n' "$OUT" | grep -vx -- '--root\|--config\|--json\|--quiet\|--verbose\|--version\|--help' | sort)
  if [ "$in_help" = "$in_usage" ] && [ "$in_help" = "$offered" ]; then
    ok "$c: help, usage line and completion name the same options"
  else
    not_ok "$c: help, usage line and completion name the same options"
    diag "help: $in_help" "usage: $in_usage" "completion: $offered"
  fi
  run_cdm "$c" --help
  check "cdm $c --help prints what cdm help $c does" test "$OUT" = "$help_text"
done
check "no line of help is wider than 79 columns" test -z "$long"
[ -z "$long" ] || diag "$long"

run_cdm help nosuch
expect_rc 2 "help for an unknown command is a usage error"
expect_err "no command 'nosuch'" "naming it"

# A usage error ends with the command's usage line, the one help shows.
run_cdm detach
expect_rc 2 "detach without an environment is a usage error"
expect_err "^cdm: missing VENV$" "naming what is missing"
expect_err "^usage: cdm detach <VENV>$" "followed by the generated usage line"
run_cdm remove
expect_rc 2 "remove with neither a version nor --all is a usage error"
expect_err "^usage: cdm remove \\[VERSION\\] \\[--cuda N\\] \\[--force\\] \\[--all\\]" "followed by its usage line"
run_cdm rollback p --to 0
expect_err "--to takes a generation number \\(see 'cdm history'\\), not '0'" \
  "a whole-number option says what it takes"
run_cdm link p --cuda=
expect_rc 2 "an empty --cuda= is a usage error"
expect_err "--cuda takes a CUDA major version such as 12, not ''" "saying what --cuda takes"
run_cdm --json=yes list
expect_rc 2 "a flag given a value is a usage error"
expect_err "option '--json' takes no value" "naming the flag"
run_cdm list --root
expect_rc 2 "a global option without its value is a usage error"
expect_err "option '--root' needs a value" "naming the option"
run_cdm -q list
expect_rc 0 "-q is --quiet"
check "and says nothing" test -z "$ERR"

done_testing
