# A bundle made on Linux for Windows, installed offline under Wine: the native cdm
# ($CDM_NATIVE, the native build's, which .ci/windows.sh names) locks a project for
# linux-x86_64 and windows-x86_64 from the loopback mirror and bundles it with this
# cdm.exe; cdm.exe, with downloads off, installs the Windows archive out of it and
# verifies; the bundle's own cdm.exe runs.
. "$TESTS_DIR/win/lib.sh"

if [ ! -x "${CDM_NATIVE:-}" ]; then
  skip_tool "a bundle made on Linux, installed under Wine" "no native cdm to make it (CDM_NATIVE, the native build's cdm)"
  done_testing
  exit 0
fi
. "$TESTS_DIR/cli/lib_mirror.sh"
mirror_up

# the Linux side: its own store, state and config, paths as Linux has them
native() {
  CDM_ROOT=$SCRATCH/linux-store CDM_CONFIG=/dev/null CDM_STATE=$SCRATCH/linux-state.db \
    CDM_FETCH_BASE=$(base ok) "$CDM_NATIVE" "$@"
}
mkdir -p "$SCRATCH/proj"
B=$SCRATCH/proj.cdm-bundle.tar
if native install 9.27 --cuda 13 >/dev/null 2>&1 && native link "$SCRATCH/proj" 9.27 --cuda 13 >/dev/null 2>&1 &&
  native lock "$SCRATCH/proj" --platform windows-x86_64 >/dev/null 2>&1; then
  ok "on Linux: the project installed, linked and locked for windows-x86_64"
else
  not_ok "on Linux: the project installed, linked and locked for windows-x86_64"
fi
check "on Linux: cdm bundle with this cdm.exe" \
  native bundle "$SCRATCH/proj" -o "$B" --platform windows-x86_64 --cdm "windows-x86_64=$CDM_EXE"

OFF=$(wc -l <"$SERVER_LOG")
run_cdm install --from-bundle "$(wpath "$B")" --json
expect_rc 0 "under Wine, offline: cdm.exe install --from-bundle"
check "the Windows archive the lock names is installed" \
  test "$(json 'd["id"], d["from"]')" = "('9.27.0.48-cuda13', '$A927_WIN')"
check "without one request to the mirror" test "$(wc -l <"$SERVER_LOG")" = "$OFF"
run_cdm verify
expect_rc 0 "and verifies"
mkdir -p "$SCRATCH/open"
bsdtar -xf "$B" -C "$SCRATCH/open" bin/windows-x86_64/cdm.exe
check "the bundle's cdm.exe runs" sh -c '"$1" "$2" --version | grep -q "^cdm "' _ "$WINE" "$SCRATCH/open/bin/windows-x86_64/cdm.exe"

done_testing
