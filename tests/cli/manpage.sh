# The man page cdm(1): generated from the option rows, so it names every command and every
# option that `cdm help` shows; scdoc formats it; the build installs it where scdoc is.
. "$TESTS_DIR/cli/lib.sh" || exit 1

run_cdm help --man
expect_rc 0 "cdm help --man prints the page's scdoc source"
MAN=$OUT
commands=$("$CDM" help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
check "the overview lists commands" test -n "$commands"
unesc() { printf '%s\n' "$1" | sed 's/\\\(.\)/\1/g'; }
plain=$(unesc "$MAN")
for c in $commands; do
  section=$(printf '%s\n' "$plain" | awk -v c="## $c" '$0 == c { on = 1; next } /^## / { on = 0 } on')
  if [ -z "$section" ]; then not_ok "the man page has a section for '$c'"; continue; fi
  missing=
  for o in $("$CDM" help "$c" | grep -oE '^  (-[a-z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'); do
    printf '%s\n' "$section" | grep -q -- "\*$o\*" || missing="$missing $o"
  done
  check "the man page's '$c' section has every option of 'cdm help $c'${missing:+ (missing:$missing)}" \
    test -z "$missing"
done
for o in $("$CDM" help | sed -n '/^global options:/,/^$/p' | grep -oE -- '--[a-z0-9-]+'); do
  printf '%s\n' "$plain" | sed -n '/^# GLOBAL OPTIONS/,/^# COMMANDS/p' | grep -q -- "\*$o\*" ||
    not_ok "the man page lists the global option $o"
done
ok "the global options are all listed"
if command -v scdoc >/dev/null; then
  check "scdoc formats it" sh -c 'printf "%s\n" "$1" | scdoc >/dev/null' _ "$MAN"
  check "the build made cdm.1 (installed by meson install)" test -s "$BUILD_DIR/cdm.1"
else
  skip_tool "scdoc formats it" "scdoc is not installed (.ci/run installs it)"
fi

done_testing
