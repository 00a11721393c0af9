# cdm link under Wine: Wine 8 has no junctions, so cdm must fail with a clear message,
# not crash and not fall back to something else. Junction creation and retargeting
# themselves are tested on Windows (see the README's Windows section).
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
run_cdm link "$(wpath "$proj")" 8.8.0
expect_rc 1 "cdm link under Wine fails clearly"
expect_err "^cdm: cannot .*(junction|reparse|NTFS|not supported)" "with a message about junctions, not a crash"
check "cdm link under Wine leaves the project as it was" test -z "$(ls -A "$proj")"
check "and no second link kind was made instead" test ! -L "$proj/cuda_link"

done_testing
