# cdm install and list, on archives of every layout (docs/sources.md).
. "$TESTS_DIR/cli/lib.sh"

linux9=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
run_cdm install "$linux9" --json
expect_rc 0 "layout C tar.xz installs"
check "install --json names id, version, cuda, path, sha256, changed" \
  test "$(json 'd["id"], d["version"], d["cuda"], d["changed"]')" = "('9.1.0.70-cuda12', '9.1.0.70', 12, True)"
check "the recorded sha256 is the archive's" \
  test "$(json 'd["sha256"]')" = "$(sha256sum "$linux9" | cut -d' ' -f1)"
store9="$CDM_ROOT/9.1.0.70-cuda12"
check "the top folder is stripped" test -f "$store9/include/cudnn_version.h"
check "the .so chain stays a chain of links" \
  test "$(readlink "$store9/lib/libcudnn.so")" = libcudnn.so.9 -a "$(readlink "$store9/lib/libcudnn.so.9")" = libcudnn.so.9.1.0
check "libraries keep their executable bit" test -x "$store9/lib/libcudnn.so.9.1.0"
check "nothing is left in .staging" empty_dir "$CDM_ROOT/.staging"

run_cdm install "$linux9" --json
expect_rc 0 "the same archive again succeeds"
check "and reports changed: false" test "$(json 'd["changed"]')" = False
run_cdm install "$linux9"
expect_err "already installed" "the text output says already installed"

old=$(fixture cudnn-11.3-linux-x64-v8.2.1.32.tgz)
run_cdm install "$old" --json
expect_rc 0 "layout A (old cuda/ tgz) installs"
check "layout A keeps lib64" test -L "$CDM_ROOT/8.2.1.32-cuda11/lib64/libcudnn.so.8"

trans=$(fixture cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive.tar.xz)
run_cdm install "$trans" --json
expect_rc 0 "layout B (8.3.2, cuda11.5 in the name) installs as cuda11"
check "id uses the CUDA major" test -d "$CDM_ROOT/8.3.2.44-cuda11"

win=$(fixture cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip)
if command -v bsdtar >/dev/null; then
  check "the 8.8.0 Windows zip fixture has the 31 real entries" \
    test "$(bsdtar -tf "$win" | wc -l)" -eq 31
else
  skip_tool "the 8.8.0 Windows zip fixture has the 31 real entries" "bsdtar is not installed (libarchive-tools)"
fi
run_cdm install "$win"
expect_rc 1 "a Windows zip is refused on Linux"
expect_err "is for windows-x86_64 but this store is for linux-x86_64" "naming both platforms"
check "and leaves no folder" test ! -e "$CDM_ROOT/8.8.0.121-cuda11"
run_cdm install "$win" --platform windows-x86_64 --json
expect_rc 0 "--platform windows-x86_64 fills a store for Windows"
run_cdm list --json
check "the zip's layout is recorded: bin, lib/x64" \
  test "$(json '[(i["bin_dir"], i["lib_dir"], i["layout"]) for i in d if i["id"] == "8.8.0.121-cuda11"][0]')" = "('bin', 'lib/x64', 'C')"
check "all 7 DLLs are in bin" test "$(ls "$CDM_ROOT/8.8.0.121-cuda11/bin" | grep -c 'dll$')" -eq 7

win918=$(fixture cudnn-windows-x86_64-9.18.0.20_cuda13-archive.zip)
run_cdm install "$win918" --platform windows-x86_64
expect_rc 0 "9.18 Windows zip installs"
run_cdm list --json
check "9.18 records bin/x64" \
  test "$(json '[i["bin_dir"] for i in d if i["id"] == "9.18.0.20-cuda13"][0]')" = bin/x64

winlib=$(fixture cudnn-windows-x86_64-9.6.0.74_cuda12-archive.zip --lib-dir lib)
run_cdm install "$winlib" --platform windows-x86_64
run_cdm list --json
check "a zip with lib\\ instead of lib\\x64 is accepted and recorded" \
  test "$(json '[i["lib_dir"] for i in d if i["id"] == "9.6.0.74-cuda12"][0]')" = lib

v7=$(fixture cudnn-10.2-windows10-x64-v7.6.5.32.zip)
run_cdm install "$v7" --platform windows-x86_64
expect_rc 0 "cuDNN 7 (version in cudnn.h) installs"

run_cdm list --json
check "list --json has every install with the documented keys" \
  test "$(json 'len(d), set(["id","version","cuda","platform","path","size","sha256","official","installed_at","projects"]) <= set(d[0])')" = "(7, True)"
check "list is ordered by version" \
  test "$(json '[i["version"] for i in d]')" = "['7.6.5.32', '8.2.1.32', '8.3.2.44', '8.8.0.121', '9.1.0.70', '9.6.0.74', '9.18.0.20']"
run_cdm list
expect_rc 0 "list as a table"
check "the table shows each id" sh -c 'printf "%s" "$1" | grep -q "9.1.0.70-cuda12" && printf "%s" "$1" | grep -q "7.6.5.32-cuda10"' _ "$OUT"

# A different archive with the same id: refused, then --force replaces it atomically.
other=$SCRATCH/other/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz
mkdir -p "$(dirname "$other")"
"$MAKE_FIXTURE" "$other" --pad 100
run_cdm install "$other"
expect_rc 1 "the same id from another archive is refused"
expect_err "pass --force" "and says to pass --force"
before=$(tree_digest "$store9")
check "the refused install left the old folder as it was" test "$before" = "$(tree_digest "$store9")"
run_cdm install "$other" --force --json
expect_rc 0 "--force replaces it"
check "with the new archive's hash" test "$(json 'd["sha256"]')" = "$(sha256sum "$other" | cut -d' ' -f1)"
check "and the new content" test "$(stat -c %s "$store9/lib/libcudnn.so.9.1.0")" -eq 164

# Checksums beside the archive.
sumdir=$SCRATCH/sums
mkdir -p "$sumdir"
a=$("$MAKE_FIXTURE" "$sumdir/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz" && echo "$sumdir/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz")
run_cdm install "$a" --sha256 0000000000000000000000000000000000000000000000000000000000000000
expect_rc 1 "a wrong --sha256 is refused"
expect_err "checksum mismatch" "naming the mismatch"
check "and installs nothing" test ! -e "$CDM_ROOT/9.2.0.82-cuda12"
run_cdm install "$a" --sha256 nothex
expect_rc 2 "a malformed --sha256 is a usage error"
echo "0000000000000000000000000000000000000000000000000000000000000000  $(basename "$a")" >"$sumdir/SHA256SUMS"
run_cdm install "$a"
expect_rc 1 "a SHA256SUMS line that does not match is refused"
expect_err "SHA256SUMS" "naming the SHA256SUMS file"
(cd "$sumdir" && sha256sum "$(basename "$a")" >SHA256SUMS)
echo "1111111111111111111111111111111111111111111111111111111111111111" >"$a.sha256"
run_cdm install "$a"
expect_rc 1 "a wrong .sha256 file beside it is refused"
expect_err "\\.sha256" "naming the .sha256 file"
sha256sum "$a" | cut -d' ' -f1 >"$a.sha256"
run_cdm install "$a" --sha256 "$(sha256sum "$a" | cut -d' ' -f1 | tr a-f A-F)"
expect_rc 0 "matching --sha256 (any case), .sha256 and SHA256SUMS install"

# Name and header must agree.
bad=$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz --header 9.2.0)
run_cdm install "$bad"
expect_rc 1 "a header that disagrees with the name is refused"
expect_err "name says cuDNN 9.3.0 but its header says 9.2.0" "naming both versions"
nohdr=$(fixture cudnn-linux-x86_64-9.4.0.58_cuda12-archive.tar.xz --evil no-header)
run_cdm install "$nohdr"
expect_rc 1 "an archive without a version header is refused"
wrongos=$(fixture cudnn-windows-x86_64-9.5.0.50_cuda12-archive.zip --evil so-in-windows)
run_cdm install "$wrongos" --platform windows-x86_64
expect_rc 1 "a windows-named archive holding .so files is refused"
expect_err "holds linux libraries" "saying what it holds"
cp "$linux9" "$SCRATCH/archives/renamed.tar.xz"
run_cdm install "$SCRATCH/archives/renamed.tar.xz"
expect_rc 1 "a renamed archive is refused"
expect_err "keep NVIDIA's file name" "asking for the original name"
run_cdm install "$SCRATCH/nope.tar.xz"
expect_rc 1 "a missing file is an error"
expect_err "no such archive file" "saying so"
run_cdm install 9.1 --cuda x
expect_rc 2 "a bad --cuda is a usage error"
run_cdm install
expect_rc 2 "install without an argument is a usage error"
run_cdm list --json --root "$SCRATCH/empty-store"
check "listing a store that does not exist prints []" test "$OUT" = "[]"
check "and does not create it" test ! -e "$SCRATCH/empty-store"

# Progress: on a terminal only (script(1) gives cdm one), never with --quiet or --json.
big=$(fixture cudnn-linux-x86_64-9.8.0.87_cuda12-archive.tar.xz --pad 3000000)
if command -v script >/dev/null; then
  script -qec "'$CDM' install '$big'" /dev/null >"$SCRATCH/tty.out" 2>&1
  check "progress on a terminal shows bytes, percent, rate and time left" \
    grep -Eq 'MiB / .*MiB +100%  .*/s  0m00s left' "$SCRATCH/tty.out"
  check "and its final line once" test "$(grep -o '100%' "$SCRATCH/tty.out" | wc -l)" -eq 1
  check "after a line naming the phase" grep -q "^cdm: unpacking and checking 'cudnn-linux-x86_64-9.8.0.87_cuda12-archive.tar.xz'" "$SCRATCH/tty.out"
  "$CDM" remove 9.8 >/dev/null 2>&1
  script -qec "'$CDM' --quiet install '$big'" /dev/null >"$SCRATCH/tty.out" 2>&1
  check "--quiet prints nothing, also on a terminal" test ! -s "$SCRATCH/tty.out"
else
  skip_tool "progress on a terminal" "script(1) from util-linux is missing"
  skip_tool "--quiet on a terminal" "script(1) from util-linux is missing"
fi
"$CDM" remove 9.8 >/dev/null 2>&1
run_cdm install "$big"
check "no progress when stderr is not a terminal" test "$(printf '%s' "$ERR" | grep -c '%')" -eq 0
run_cdm install "$big" --verbose --force
check "--verbose adds the layout" sh -c 'printf "%s" "$1" | grep -q "layout C, bin .., lib .lib."' _ "$ERR"

# Writers serialise on the store lock: parallel installs all land, the index stays whole.
for v in 9.10.0.1 9.10.1.2 9.10.2.3 9.11.0.4; do
  f=$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz" --pad 200000)
  "$CDM" install "$f" >/dev/null 2>"$SCRATCH/par-$v.err" &
done
wait
run_cdm list --json
check "4 parallel installs all landed" \
  test "$(json 'len([i for i in d if i["version"].startswith(("9.10.", "9.11."))])')" = 4
check "and the index passes SQLite's integrity check" \
  test "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma integrity_check").fetchone()[0])' "$CDM_ROOT/cdm.db")" = ok

run_cdm --version
check "--version" test "$OUT" = "cdm 0.1.0"
run_cdm help install
check "help install shows the usage" sh -c 'printf "%s" "$1" | grep -q "usage: cdm install"' _ "$OUT"
run_cdm frobnicate
expect_rc 2 "an unknown command is a usage error"

# --verbose: the archive and the layout, each on its own line (not an escaped line break).
run_cdm --verbose install "$(fixture cudnn-linux-x86_64-9.4.0.58_cuda12-archive.tar.xz)"
expect_rc 0 "install --verbose"
check "says the archive and the layout on lines of their own" \
  sh -c '! printf "%s" "$1" | grep -q x0a && printf "%s\n" "$1" | grep -q "^  layout " && printf "%s\n" "$1" | grep -q "^  archive "' _ "$ERR"

# make_fixture --file: a real file's bytes in place of a stand-in (the Windows doctor
# scenario puts DLLs built by mingw-w64 there).
printf 'real bytes\n' >"$SCRATCH/real.dll"
withfile=$(mkdir -p "$SCRATCH/withfile" && "$MAKE_FIXTURE" \
  "$SCRATCH/withfile/cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip" \
  --file "bin/cudnn64_8.dll=$SCRATCH/real.dll" && echo ok)
if command -v bsdtar >/dev/null; then
  check "make_fixture --file puts the file's bytes at that entry" test "$withfile" = ok -a \
    "$(bsdtar -xOf "$SCRATCH/withfile/cudnn-windows-x86_64-8.8.0.121_cuda11-archive.zip" \
       cudnn-windows-x86_64-8.8.0.121_cuda11-archive/bin/cudnn64_8.dll)" = "real bytes"
else
  skip_tool "make_fixture --file puts the file's bytes at that entry" "bsdtar is not installed (libarchive-tools)"
fi
"$MAKE_FIXTURE" "$SCRATCH/withfile/x-windows-x86_64-8.8.0.121_cuda11-archive.zip" \
  --file "bin/nope.dll=$SCRATCH/real.dll" 2>/dev/null
check "make_fixture --file for an entry the archive lacks fails" test $? -eq 2

done_testing
