# cdm link under Wine. Where junctions can be made (Wine with the junction patches), link,
# switch, rollback and unlink run through real junctions; where they cannot (stock Wine 8,
# which makes no symbolic link either), cdm goes on without a link and says why once
# (tests/win/fallback.sh runs the rest of that case).
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
  run_cdm link "$(wpath "$proj")" 9.1.0.70
  run_cdm link "$(wpath "$proj")" 8.8.0 --also
  expect_rc 0 "link --also puts 8.8.0 beside 9.1"
  check "one junction leads to a view with both majors' DLLs" \
    test -f "$proj/cuda_link/bin/cudnn64_9.dll" -a -f "$proj/cuda_link/bin/cudnn64_8.dll"
  check "each the store's own file" \
    test "$(cmp -s "$proj/cuda_link/bin/cudnn64_8.dll" "$CDM_ROOT_POSIX"/8.8.0*/bin/cudnn64_8.dll && echo same)" = same
  run_cdm unlink "$(wpath "$proj")"
  expect_rc 0 "unlink removes the junction"
  check "only the pin file is left" test "$(ls -A "$proj")" = .cudnn-version
  check "and the store keeps its files" test -n "$(ls "$CDM_ROOT_POSIX"/8.8.0*/bin/cudnn64_8.dll)"

  # The exact text people read, byte for byte: a garbled path or id (bytes of freed memory,
  # a '-' turned '/') or a line too many fails here. Run from the top of a git work tree
  # that does not hold the project: walking up from 'Z:\...' once went on from 'Z:' to
  # '.', the current folder, and claimed the project was in that work tree.
  top=$SCRATCH/repo
  mkdir -p "$top/.git" "$SCRATCH/p5"
  p5=$(wpath "$SCRATCH/p5")
  store=$CDM_ROOT
  in_top() { # run_cdm ARGS... from the work tree's top
    local here=$PWD
    cd "$top" && run_cdm "$@"
    cd "$here" || exit 1
  }
  text_is() { # WANT DESCRIPTION: stderr is WANT exactly, stdout empty, status 0
    if [ "$RC" = 0 ] && [ -z "$OUT" ] && [ "$ERR" = "$1" ]; then ok "$2"; else
      not_ok "$2"
      diag "status $RC, stdout '$OUT', stderr:" "$(printf '%s' "$ERR" | od -c | head -8)"
    fi
  }
  in_top link --dry-run "$p5" 9.1.0.70
  text_is "would change '$p5\cuda_link' from no link to 9.1.0.70-cuda12; changed nothing (--dry-run)" \
    "cdm link --dry-run says exactly what it would do"
  in_top link "$p5" 9.1.0.70
  text_is "linked '$p5\cuda_link' -> 9.1.0.70-cuda12 (generation 1)" \
    "cdm link says exactly what it did, with no git hint for a project outside the work tree"
  in_top link "$p5" 9.1.0.70
  text_is "'$p5\cuda_link' -> 9.1.0.70-cuda12 already; nothing to do" \
    "a link that stands already says so exactly"
  zip=$(fixture cudnn-windows-x86_64-9.2.0.82_cuda12-archive.zip)
  in_top install "$(wpath "$zip")"
  text_is "installed 9.2.0.82-cuda12 into '$store\9.2.0.82-cuda12'" "cdm install says exactly where it put the install"
  in_top install "$(wpath "$zip")"
  text_is "9.2.0.82-cuda12 is already installed from this archive; nothing to do" \
    "and a second install of the same archive says so exactly"
else
  run_cdm link "$(wpath "$proj")" 8.8.0
  expect_rc 0 "where no junction or symbolic link can be made, cdm link goes on without a link"
  expect_err "^cdm: warning: junctions and symbolic links cannot be made on .*: the project has no link; activation points at the store directly" \
    "and says why, once"
  check "cdm link leaves only the pin in the project" test "$(ls -A "$proj")" = .cudnn-version
  check "and no half-made link of either kind" test ! -L "$proj/cuda_link"
fi

done_testing
