# cdm link under Wine. Where junctions can be made (Wine with the junction patches), link,
# switch, rollback and unlink run through real junctions; where they cannot (stock Wine 8),
# cdm must fail with a clear message, not crash and not fall back to something else.
. "$TESTS_DIR/win/lib.sh"

if ! has_command link; then
  skip "cdm link under Wine fails clearly" "cdm link is not in this build (it comes with the junction code, src/link_win32.c)"
  skip "cdm link under Wine leaves the project as it was" "cdm link is not in this build"
  done_testing
  exit
fi

"$WINE" "$CDM_EXE" install "$(wpath "$(fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip)")" >/dev/null 2>&1
proj=$SCRATCH/project
mkdir -p "$proj"
if junctions_work; then
  "$WINE" "$CDM_EXE" install "$(wpath "$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip --version 9.1.0.70)")" >/dev/null 2>&1
  run_cdm link "$(wpath "$proj")" 8.8.0
  expect_rc 0 "cdm link makes the project's junction"
  check "the junction leads into the store's 8.8.0" test -f "$proj/cuda_link/bin/cudnn64_8.dll"
  run_cdm link "$(wpath "$proj")" 9.1.0.70
  expect_rc 0 "a switch retargets it"
  check "to 9.1" test -f "$proj/cuda_link/bin/cudnn64_9.dll"
  run_cdm rollback "$(wpath "$proj")"
  expect_rc 0 "rollback goes back"
  check "to 8.8.0" test -f "$proj/cuda_link/bin/cudnn64_8.dll"
  run_cdm unlink "$(wpath "$proj")"
  expect_rc 0 "unlink removes the junction"
  check "only the pin file is left" test "$(ls -A "$proj")" = .cudnn-version
  check "and the store keeps its files" test -n "$(ls "$CDM_ROOT_POSIX"/8.8.0*/bin/cudnn64_8.dll)"
else
  run_cdm link "$(wpath "$proj")" 8.8.0
  expect_rc 1 "where junctions cannot be made, cdm link fails clearly"
  expect_err "^cdm: cannot .*(junction|reparse|NTFS|not supported)" "with a message about junctions, not a crash"
  check "cdm link leaves the project as it was" test -z "$(ls -A "$proj")"
  check "and no second link kind was made instead" test ! -L "$proj/cuda_link"
fi

done_testing
