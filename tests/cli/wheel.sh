# cdm install of NVIDIA's cuDNN wheels (nvidia-cudnn-cuNN): the layout, the dist-info, the
# RECORD's hashes, hostile wheels refused with nothing left, one id for one set of bytes,
# and NVIDIA's real wheels (Linux and win_amd64) from the package registry.
. "$TESTS_DIR/cli/lib.sh"
. "$TESTS_DIR/cli/lib_real_cudnn.sh"

PY=$(command -v python3) || { skip_tool "wheels" "no python3 to write wheels"; done_testing; exit; }
mkdir -p "$SCRATCH/wheels"
whl=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu12 9.1.0.70)

run_cdm install "$whl" --json
expect_rc 0 "a Linux wheel installs"
check "its id comes from METADATA's version and the -cu12 of its name" \
  test "$(json 'd["id"], d["source"], d["changed"]')" = "('9.1.0.70-cuda12', 'wheel', True)"
check "the recorded sha256 is the wheel's" \
  test "$(json 'd["sha256"]')" = "$(sha256sum "$whl" | cut -d' ' -f1)"
store=$CDM_ROOT/9.1.0.70-cuda12
check "nvidia/cudnn/ becomes the install: include/ and lib/" \
  test -f "$store/include/cudnn_version.h" -a -f "$store/lib/libcudnn_graph.so.9"
check "Python's package markers and the dist-info stay out" \
  test -z "$(find "$store" -name '__init__.py' -o -name '*.dist-info')"
check "nothing is left in .staging" empty_dir "$CDM_ROOT/.staging"
run_cdm list --json
check "list says where it came from" \
  test "$(json '[(i["source"], i["archive"], i["lib_dir"]) for i in d][0]')" = "('wheel', '$(basename "$whl")', 'lib')"
run_cdm verify
expect_rc 0 "verify passes on the wheel's install"
run_cdm install "$whl"
expect_err "already installed from this wheel" "the same wheel again: nothing to do"

# The wheel's name need not be NVIDIA's: what it says of itself is in its dist-info.
cp "$whl" "$SCRATCH/wheels/renamed.whl"
run_cdm install "$SCRATCH/wheels/renamed.whl" --json
expect_rc 0 "a renamed copy of the same wheel is the same install"
check "and changes nothing" test "$(json 'd["changed"]')" = False

# One id, one set of bytes: NVIDIA's archive of the same libraries is the same install.
repack() { # repack WHEEL NAME [CHANGE]: the wheel's files as NVIDIA's archive NAME
  local top=$SCRATCH/repack/${2%.tar.xz}
  rm -rf "$SCRATCH/repack" && mkdir -p "$top"
  "$PY" - "$1" "$top" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith("nvidia/cudnn/") and not n.endswith("__init__.py"):
        z.extract(n, sys.argv[2] + "/x")
PY
  mv "$top/x/nvidia/cudnn/"* "$top/" && rm -rf "$top/x"
  # the archive's chain of links: libcudnn.so.9 -> libcudnn.so.9.1.0
  mv "$top/lib/libcudnn.so.9" "$top/lib/libcudnn.so.9.1.0" && ln -s libcudnn.so.9.1.0 "$top/lib/libcudnn.so.9"
  echo "NVIDIA's licence" >"$top/LICENSE"
  [ -z "${3-}" ] || printf 'x' >>"$top/lib/$3"
  tar -C "$SCRATCH/repack" -cJf "$SCRATCH/archives/$2" "${2%.tar.xz}"
  printf '%s\n' "$SCRATCH/archives/$2"
}
mkdir -p "$SCRATCH/archives"
same=$(repack "$whl" cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
run_cdm install "$same" --json
expect_rc 0 "NVIDIA's archive holding the wheel's libraries installs as the same id"
check "as the same install, unchanged" test "$(json 'd["changed"], d["source"]')" = "(False, 'wheel')"
run_cdm install "$same"
expect_err "is already installed \\(from wheel '$(basename "$whl")'\\), with the same library bytes" \
  "saying which file it came from"
other=$(repack "$whl" cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz libcudnn_ops.so.9)
before=$(tree_digest "$store")
run_cdm install "$other"
expect_rc 1 "an archive whose libraries differ by one byte is refused"
expect_err "its 'lib/libcudnn_ops.so.9' has other bytes; pass --force" "naming the file that differs"
check "the install is as it was" test "$(tree_digest "$store")" = "$before"
check "and nothing is left in .staging" empty_dir "$CDM_ROOT/.staging"
run_cdm install "$other" --force --json
expect_rc 0 "--force replaces the install with the other build"
check "which is then recorded from the archive" test "$(json 'd["source"]')" = archive

# Hostile wheels: each refused, with nothing installed and nothing left behind.
variant() { # variant NAME PYTHON: a copy of the wheel changed by PYTHON (files: name -> bytes)
  "$PY" - "$whl" "$SCRATCH/wheels/$1" "$2" <<'PY'
import base64, hashlib, sys, zipfile
src, out, change = sys.argv[1:4]
z = zipfile.ZipFile(src)
files = {i.filename: z.read(i) for i in z.infolist()}
modes = {i.filename: i.external_attr for i in z.infolist()}
info = [n for n in files if n.endswith(".dist-info/RECORD")][0]
def record(files):
    rows = []
    for n, d in files.items():
        if n == info:
            continue
        h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        rows.append(f"{n},sha256={h},{len(d)}")
    return ("\n".join(rows) + f"\n{info},,\n").encode()
exec(change)
with zipfile.ZipFile(out, "w") as w:
    for n, d in files.items():
        e = zipfile.ZipInfo(n, date_time=(2025, 1, 1, 0, 0, 0))
        e.external_attr = modes.get(n, 0o100644 << 16)
        w.writestr(e, d)
PY
  printf '%s\n' "$SCRATCH/wheels/$1"
}
refused() { # refused WHEEL "message" "description"
  rm_store "$CDM_ROOT" "$SCRATCH/evil"
  run_cdm install "$1"
  expect_rc 1 "$3 is refused"
  expect_err "$2" "$3: the message says why"
  check "$3: nothing is installed" test ! -e "$CDM_ROOT/9.1.0.70-cuda12" -a ! -e "$SCRATCH/evil"
  check "$3: nothing is left in .staging" test ! -e "$CDM_ROOT/.staging" -o -z "$(ls -A "$CDM_ROOT/.staging" 2>/dev/null)"
}
lib=nvidia/cudnn/lib/libcudnn_ops.so.9
refused "$(variant lying.whl "files['$lib'] = files['$lib'][:-1] + b'x'")" \
  "'$lib' does not match its RECORD" "a wheel whose RECORD lies about a library"
refused "$(variant unlisted.whl "files['nvidia/cudnn/lib/extra.so.9'] = b'x'")" \
  "'nvidia/cudnn/lib/extra.so.9' is not in its RECORD" "a wheel with a file its RECORD does not list"
refused "$(variant missing.whl "del files['$lib']")" \
  "its RECORD lists '$lib', which the wheel does not hold" "a wheel missing a file of its RECORD"
refused "$(variant dotdot.whl "files['nvidia/cudnn/lib/../../../evil'] = b'x'; files[info] = record(files)")" \
  "goes up with '..'" "a wheel with a '..' path"
refused "$(variant outside.whl "files['../evil'] = b'x'; files[info] = record(files)")" \
  "goes up with '..'" "a wheel with a path leaving it, outside nvidia/cudnn"
refused "$(variant absolute.whl "files['/tmp/evil'] = b'x'; files[info] = record(files)")" \
  "is an absolute path" "a wheel with an absolute path"
refused "$(variant link.whl "files['nvidia/cudnn/lib/libcudnn_evil.so.9'] = b'/etc/passwd'; modes['nvidia/cudnn/lib/libcudnn_evil.so.9'] = 0o120777 << 16; files[info] = record(files)")" \
  "points to an absolute path" "a wheel with an absolute link"
refused "$(variant numpy.whl "m = [n for n in files if n.endswith('METADATA')][0]; files[m] = files[m].replace(b'nvidia-cudnn-cu12', b'numpy'); files[info] = record(files)")" \
  "it is 'numpy', not NVIDIA's cuDNN" "a wheel that is not cuDNN"
refused "$(variant twice.whl "files[info] = record(files) + b'$lib,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\\n'")" \
  "its RECORD names '$lib' twice, with two hashes" "a wheel whose RECORD gives a library two hashes"
# pip appends its own INSTALLER row to the RECORD of a wheel it installed (uv's says "uv"):
# rows of the dist-info twice are no matter
rm_store "$CDM_ROOT"
run_cdm install "$(variant installer.whl "files[info] = record(files) + (info.replace('RECORD', 'INSTALLER') + ',sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\\n' + info.replace('RECORD', 'INSTALLER') + ',sha256=n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg,3\\n').encode()")"
expect_rc 0 "a RECORD with a dist-info row twice, with two hashes, installs"
refused "$(variant badsize.whl "files[info] = record(files).replace(b',3000', b',3001')")" \
  "does not match its RECORD" "a wheel whose RECORD gives a wrong size"
refused "$(variant header.whl "h = 'nvidia/cudnn/include/cudnn_version.h'; files[h] = files[h].replace(b'MINOR 1', b'MINOR 2'); files[info] = record(files)")" \
  "its METADATA says cuDNN 9.1.0 but its header says 9.2.0" "a wheel whose header disagrees with its METADATA"

# A Windows wheel fills a store for Windows: bin/, include/, lib/x64.
rm_store "$CDM_ROOT"
winwhl=$("$PY" "$TESTS_DIR/make_wheel.py" "$SCRATCH/wheels" nvidia-cudnn-cu13 9.14.0.64 --windows)
run_cdm install "$winwhl"
expect_rc 1 "a win_amd64 wheel is refused on Linux"
expect_err "is for windows-x86_64 but this store is for linux-x86_64" "naming both platforms"
run_cdm install "$winwhl" --platform windows-x86_64 --json
expect_rc 0 "with --platform windows-x86_64 it installs"
check "as a CUDA 13 build (the -cu13 of its name)" test "$(json 'd["id"]')" = 9.14.0.64-cuda13
check "its DLLs in bin/" test "$(ls "$CDM_ROOT/9.14.0.64-cuda13/bin" | grep -c 'dll$')" -eq 8

# NVIDIA's real wheels (nvidia-cudnn-cu12 9.1.0.70) from the package registry.
for tag in manylinux2014_x86_64 win_amd64; do
  real=$(real_wheel $tag 2>"$SCRATCH/real.err")
  if [ -z "$real" ]; then
    skip_tool "NVIDIA's real $tag wheel installs" "$(tail -1 "$SCRATCH/real.err")"
    continue
  fi
  rm_store "$CDM_ROOT"
  platform=()
  [ $tag = win_amd64 ] && platform=(--platform windows-x86_64)
  run_cdm install "$real" "${platform[@]}" --json
  expect_rc 0 "NVIDIA's real $tag wheel installs"
  run_cdm verify
  expect_rc 0 "and passes verify ($tag)"
  if [ $tag = win_amd64 ]; then
    check "its 8 DLLs are in bin/, its import libraries in lib/x64" \
      test "$(ls "$CDM_ROOT/9.1.0.70-cuda12/bin" | grep -c 'dll$')" -eq 8 -a -f "$CDM_ROOT/9.1.0.70-cuda12/lib/x64/cudnn.lib"
    continue
  fi
  mkdir -p "$SCRATCH/project"
  run_cdm link "$SCRATCH/project" 9.1.0.70
  # as activation gives it: cudnnGetVersion opens libcudnn_graph.so.9 by name (under
  # AddressSanitizer's dlopen the library's own RUNPATH is not enough)
  LD_LIBRARY_PATH=$SCRATCH/project/cuda_link/lib run_cdm doctor "$SCRATCH/project"
  check "the doctor loads the real library of the wheel's install" \
    grep -q '^ok *library.load ' <<<"$OUT"
  check "and reads its version as installed" grep -q '^ok *library.version .*90100' <<<"$OUT"
  check "with every library the install needs inside it" \
    grep -q '^ok *same.libcudnn_graph.so.9 ' <<<"$OUT"
done

done_testing
