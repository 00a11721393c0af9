# cdm.exe under Wine: `cdm install --from-store`, the way a Windows machine takes one version
# from a store it cannot link into (a share: junctions cannot point there), into its own.
. "$TESTS_DIR/win/lib.sh"

if ! has_command install || ! "$WINE" "$CDM_EXE" help install 2>/dev/null | grep -q -- --from-store; then
  skip "install --from-store" "this cdm.exe has no --from-store"
  done_testing
  exit 0
fi

OTHER_POSIX=$SCRATCH/other-store
OTHER=$(wpath "$OTHER_POSIX")
win918=$(fixture cudnn-windows-x86_64-9.18.0.20_cuda13-archive.zip)
run_cdm --root "$OTHER" install "$(wpath "$win918")"
expect_rc 0 "the other store gets 9.18"

run_cdm install --from-store "$OTHER" 9.18 --json
expect_rc 0 "install --from-store copies it into this store"
check "reported as changed, the same id" \
  test "$(json 'd["changed"], d["id"]')" = "(True, '9.18.0.20-cuda13')"
check "a Windows path in this store" test "$(json 'd["path"]')" = "$CDM_ROOT\\9.18.0.20-cuda13"
check "the copy is the same tree (names and sizes)" \
  test "$(cd "$OTHER_POSIX/9.18.0.20-cuda13" && find . -printf '%y %p %s\n' | sort)" = \
  "$(cd "$CDM_ROOT_POSIX/9.18.0.20-cuda13" && find . -printf '%y %p %s\n' | sort)"
run_cdm verify 9.18
expect_rc 0 "and it verifies against this store's record"
run_cdm install --from-store "$OTHER" 9.18 --json
check "a second time changes nothing" test "$(json 'd["changed"]')" = False

# a file of the other store changed since its record: refused, nothing left here
run_cdm remove 9.18
dll=$(find "$OTHER_POSIX/9.18.0.20-cuda13" -name '*.dll' | head -1)
printf 'X' | dd of="$dll" bs=1 seek=3 conv=notrunc 2>/dev/null
run_cdm install --from-store "$OTHER" 9.18
expect_rc 1 "a file that no longer matches the other store's record is refused"
expect_err "does not match the record of its store" "saying which file and why"
check "and nothing of the version is left in this store" \
  test ! -e "$CDM_ROOT_POSIX/9.18.0.20-cuda13" -a -z "$(ls -A "$CDM_ROOT_POSIX/.staging" 2>/dev/null)"

run_cdm install --from-store "$(wpath "$SCRATCH/nowhere")" 9.18
expect_rc 1 "a folder that is no store is refused"
expect_err "is no cdm store" "saying so"

done_testing
