# cdm link where junctions cannot be made: a directory symbolic link where one can be made,
# else a project without a link whose pin and history record the install and whose
# activation points at the store's folder itself. And the warning for a project inside a
# OneDrive folder.
#
# Where the project lives: on a FAT file system (an image made by mkfs.vfat, mounted with
# fusefat; Wine reaches it through Z:), which refuses junctions and symbolic links alike,
# as a FAT or exFAT drive on Windows does. Stock Wine 8 cannot make either anywhere (its
# CreateSymbolicLinkW reports success and makes nothing), so there the scratch folder does.
. "$TESTS_DIR/win/lib.sh"

"$WINE" "$CDM_EXE" install "$(wpath "$(fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip)")" >/dev/null 2>&1
"$WINE" "$CDM_EXE" install "$(wpath "$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip --version 9.1.0.70)")" >/dev/null 2>&1
store88=$CDM_ROOT\\8.8.0.121-cuda11
store91=$CDM_ROOT\\9.1.0.70-cuda12

# fat_mount: a FAT image mounted at $SCRATCH/fat; false (with $why) where it cannot be.
fat=$SCRATCH/fat
fat_mount() {
  local tool
  for tool in mkfs.vfat fusefat fusermount; do
    command -v "$tool" >/dev/null || { why="no $tool (packages dosfstools, fusefat, fuse)"; return 1; }
  done
  # From here a fact of the machine, not a missing package: a plain skip even in CI (the
  # stock-Wine run still takes the path without a link)
  machine=1
  [ -e /dev/fuse ] || { why="no /dev/fuse"; return 1; }
  # shellcheck disable=SC2015 # the fallback is meant to run when any step fails
  truncate -s 32M "$SCRATCH/fat.img" && mkfs.vfat "$SCRATCH/fat.img" >/dev/null 2>&1 &&
    mkdir -p "$fat" && fusefat -o rw+ "$SCRATCH/fat.img" "$fat" >/dev/null 2>&1 ||
    { why="fusefat cannot mount a FAT image here"; return 1; }
  # lazily: the wineserver may still hold a folder there open, which would keep the fusefat
  # process alive long after the test: it is ended too; then the scratch folder goes
  fat_pid=$(pgrep -n -f "fusefat .*$SCRATCH/fat.img")
  trap 'fusermount -u -z "$fat" 2>/dev/null; [ -z "$fat_pid" ] || kill "$fat_pid" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
}

if fat_mount; then
  base=$fat
  where="on a FAT file system"
elif ! junctions_work; then
  base=$SCRATCH
  where="under stock Wine"
else
  base=
fi

if [ -z "$base" ]; then
  for t in "cdm link records a project without a link" "and its which, activate, doctor, switch, rollback, unlink"; do
    if [ -n "${machine-}" ]; then
      skip "$t" "$why, and this Wine makes junctions in the scratch folder"
    else
      skip_tool "$t" "$why, and this Wine makes junctions in the scratch folder"
    fi
  done
else
  proj=$base/proj
  mkdir -p "$proj"
  P=$(wpath "$proj")
  run_cdm link "$P" 8.8.0
  expect_rc 0 "cdm link $where succeeds without a link"
  expect_err "junctions and symbolic links cannot be made on .*\(a junction: .*; a symbolic link: .*\): the project has no link; activation points at the store directly" \
    "and says once why the project has no link and where activation points"
  check "no link, nor a half-made one, is left in the project" test "$(ls -A "$proj")" = .cudnn-version
  check "the pin records the install" test "$(tr -d '\r\n' <"$proj/.cudnn-version")" = 8.8.0.121-cuda11
  expect_err "recorded '.*proj' -> 8.8.0.121-cuda11 without a link; activation points at '.*8\.8\.0\.121-cuda11' \(generation 1\)" \
    "and the change says it was recorded without a link"

  run_cdm link "$P" 8.8.0
  expect_rc 0 "linking the same version again"
  expect_err "already '.*' -> 8.8.0.121-cuda11 recorded without a link" "says it is so already"
  run_cdm history "$P"
  check "and records no second generation" test "$(printf '%s\n' "$OUT" | grep -c 8.8.0.121)" = 1

  run_cdm which "$P"
  expect_rc 0 "cdm which of the project without a link"
  check "says it has none, and why" sh -c 'printf "%s" "$1" | grep -q "^link        none (junctions and symbolic links cannot be made on"' _ "$OUT"
  check "and names the store's folder as its target" sh -c 'printf "%s" "$1" | grep -qF "target      $2"' _ "$OUT" "$store88"
  check "with no warning of a link that disagrees" test -z "$ERR"
  run_cdm --json which "$P"
  check "cdm which --json carries no_link and the store's folder" \
    test "$(json 'd["no_link"] is not None and d["id"] == "8.8.0.121-cuda11" and d["drift"] is False')" = True

  run_cdm activate --shell cmd "$P"
  expect_rc 0 "cdm activate --shell cmd of the project without a link"
  check "sets CUDA_PATH to the store's folder of 8.8.0" sh -c 'printf "%s" "$1" | grep -qF "CUDA_PATH=$2\""' _ "$OUT" "$store88"
  check "and puts the store's bin folder on PATH" sh -c 'printf "%s" "$1" | grep -qF "PATH=$2\\bin;"' _ "$OUT" "$store88"

  run_cdm doctor "$P"
  check "cdm doctor says the project has no link and why" \
    sh -c 'printf "%s" "$1" | grep -q "the project has no link: junctions and symbolic links cannot be made"' _ "$OUT$ERR"

  run_cdm link "$P" 9.1.0.70
  expect_rc 0 "a switch of the project without a link"
  check "changes the pin" test "$(tr -d '\r\n' <"$proj/.cudnn-version")" = 9.1.0.70-cuda12
  run_cdm activate --shell cmd "$P"
  check "and activation follows it to the store's 9.1 folder" sh -c 'printf "%s" "$1" | grep -qF "CUDA_PATH=$2\""' _ "$OUT" "$store91"
  run_cdm rollback "$P"
  expect_rc 0 "a rollback of it"
  check "puts the pin back" test "$(tr -d '\r\n' <"$proj/.cudnn-version")" = 8.8.0.121-cuda11
  run_cdm which "$P"
  check "and which says 8.8.0 again" sh -c 'printf "%s" "$1" | grep -q "^id          8.8.0.121-cuda11"' _ "$OUT"
  run_cdm unlink "$P"
  expect_rc 0 "an unlink of it"
  run_cdm which "$P"
  check "leaves it using nothing" sh -c 'printf "%s" "$1" | grep -q "^id          -"' _ "$OUT"
  check "keeps the pin, and makes nothing" test "$(ls -A "$proj")" = .cudnn-version
  run_cdm activate --shell cmd "$P"
  expect_rc 1 "and activation then refuses"
  run_cdm history "$P"
  check "four generations: link, link, rollback, unlink" \
    test "$(printf '%s\n' "$OUT" | grep -cE '^[* ] *[0-9]+ ')" = 4
  check "and the store keeps its files" test -n "$(ls "$CDM_ROOT_POSIX"/8.8.0*/bin/cudnn64_8.dll)"

  # Killed once the change is recorded without a link, before the pin is written: the next
  # cdm finds the change made (no link is what it looks like), keeps it, and writes the pin.
  mkdir -p "$base/killed"
  K=$(wpath "$base/killed")
  run_cdm link "$K" 8.8.0
  CDM_CRASH_AT=link-switched run_cdm link "$K" 9.1.0.70
  check "a switch killed after its record" test "$RC" != 0 -a "$(tr -d '\r\n' <"$base/killed/.cudnn-version")" = 8.8.0.121-cuda11
  run_cdm which "$K"
  check "is settled as made by the next cdm" sh -c 'printf "%s" "$1" | grep -q "^id          9.1.0.70-cuda12"' _ "$OUT"
  check "which writes the pin" test "$(tr -d '\r\n' <"$base/killed/.cudnn-version")" = 9.1.0.70-cuda12
fi

# OneDrive: the variable its client sets names a folder above the project.
sync="$SCRATCH/OneDrive - Contoso"
mkdir -p "$sync/work/p"
export OneDriveCommercial
OneDriveCommercial=$(wpath "$sync")
run_cdm link "$(wpath "$sync/work/p")" 8.8.0
expect_rc 0 "cdm link of a project under %OneDriveCommercial%"
expect_err "is inside the OneDrive folder '.*OneDrive - Contoso' \(%OneDriveCommercial%\): sync clients do not follow junctions and may upload or delete" \
  "warns that the sync client may upload or delete through the link"
run_cdm doctor "$(wpath "$sync/work/p")"
check "and the doctor says so" sh -c 'printf "%s" "$1" | grep -q "the project is inside the OneDrive folder"' _ "$OUT$ERR"
mkdir -p "$SCRATCH/elsewhere"
run_cdm link "$(wpath "$SCRATCH/elsewhere")" 8.8.0
check "a project outside that folder gets no such warning" sh -c '! printf "%s" "$1" | grep -q OneDrive' _ "$ERR"
unset OneDriveCommercial

# cdm's own directory symbolic links, where this Wine makes them (with the junction
# patches): read, switched and removed as cdm's links; a relative one is not cdm's.
mklink_d() { "$WINE" cmd /c mklink /D "$1" "$2" >/dev/null 2>&1; }
s=$SCRATCH/sym
mkdir -p "$s"
if mklink_d "$(wpath "$s/cuda_link")" "$store88" && [ -L "$s/cuda_link" ]; then
  run_cdm which "$(wpath "$s")"
  check "a directory symbolic link into the store reads as the project's link" \
    sh -c 'printf "%s" "$1" | grep -q "^id          8.8.0.121-cuda11"' _ "$OUT"
  run_cdm link "$(wpath "$s")" 9.1.0.70
  expect_rc 0 "cdm link switches it"
  check "to 9.1" test -f "$s/cuda_link/bin/cudnn64_9.dll"
  run_cdm unlink "$(wpath "$s")"
  expect_rc 0 "and unlink removes it"
  check "leaving the store's files" test -f "$CDM_ROOT_POSIX/9.1.0.70-cuda12/bin/cudnn64_9.dll"
  mkdir -p "$SCRATCH/rel"
  mklink_d "$(wpath "$SCRATCH/rel/cuda_link")" "..\\sym"
  run_cdm link "$(wpath "$SCRATCH/rel")" 9.1.0.70
  expect_rc 1 "a relative symbolic link is not cdm's: link refuses it"
  check "and leaves it" test -L "$SCRATCH/rel/cuda_link"
else
  for t in "a directory symbolic link reads as the project's link" "cdm link switches it" \
    "unlink removes it" "a relative one is refused"; do
    skip "$t" "this Wine makes no directory symbolic links (Wine 8 without the junction patches)"
  done
fi

done_testing
