# cdm modulefiles with Debian's Lmod (and its Tcl reader): `module use DIR; module load
# cudnn/ID` sets what the modulefile says, `module load cudnn` takes the default (the
# newest), loading another version swaps (one cudnn at a time), `module unload` gives the
# variables back exactly; files cdm did not write are left alone.
. "$TESTS_DIR/cli/lib.sh" || exit 1

LMOD_INIT=/usr/share/lmod/lmod/init/bash
if [ ! -f "$LMOD_INIT" ]; then
  skip_tool "cdm modulefiles under Lmod" "Lmod is not installed (Debian's lmod)"
  done_testing
  exit
fi
for spec in 9.1.0.70_cuda12 9.19.0.56_cuda13; do
  run_cdm install "$(fixture "cudnn-linux-x86_64-${spec}-archive.tar.xz" --version "${spec%_*}")"
done
M=$SCRATCH/modules
run_cdm modulefiles --into "$M" --json
expect_rc 0 "cdm modulefiles --into DIR"
check "one modulefile per install, and the newest as default" \
  test "$(json 'd["files"], d["default"]')" = "(2, '9.19.0.56-cuda13')"
check "Lmod's Lua files" test -f "$M/cudnn/9.1.0.70-cuda12.lua" -a -f "$M/cudnn/9.19.0.56-cuda13.lua"

# in_lmod CMDS: a bash with Lmod loaded and DIR on MODULEPATH, printing what CMDS print
in_lmod() {
  env -i HOME="$HOME" PATH=/usr/bin:/bin LD_LIBRARY_PATH=/orig/lib CPATH= bash -c \
    ". $LMOD_INIT >/dev/null 2>&1; module use '$M'; $1" 2>"$SCRATCH/lmod.err"
}
vars='echo "CUDNN_PATH=$CUDNN_PATH|LD_LIBRARY_PATH=$LD_LIBRARY_PATH|CDM_ACTIVE=$CDM_ACTIVE|CPATH=$CPATH"'
I=$CDM_ROOT/9.1.0.70-cuda12
OUT=$(in_lmod "module load cudnn/9.1.0.70-cuda12; $vars")
check "module load cudnn/ID sets the install's variables" \
  test "$OUT" = "CUDNN_PATH=$I|LD_LIBRARY_PATH=$I/lib:/orig/lib|CDM_ACTIVE=9.1.0.70-cuda12|CPATH=$I/include"
OUT=$(in_lmod "module load cudnn; $vars")
check "module load cudnn takes the default, the newest" \
  sh -c 'printf "%s" "$1" | grep -q "CDM_ACTIVE=9.19.0.56-cuda13"' _ "$OUT"
OUT=$(in_lmod "module load cudnn/9.1.0.70-cuda12; module unload cudnn; $vars")
check "module unload gives the variables back as they were" \
  test "$OUT" = "CUDNN_PATH=|LD_LIBRARY_PATH=/orig/lib|CDM_ACTIVE=|CPATH="
OUT=$(in_lmod "module load cudnn/9.1.0.70-cuda12; module load cudnn/9.19.0.56-cuda13; $vars; module list 2>&1")
check "loading another cudnn swaps: one version at a time" \
  sh -c 'printf "%s" "$1" | grep -q "LD_LIBRARY_PATH=$2/lib:/orig/lib|CDM_ACTIVE=9.19.0.56-cuda13"' _ "$OUT" "$CDM_ROOT/9.19.0.56-cuda13"
[ "$FAILED" -eq 0 ] || diag "$OUT" "$(cat "$SCRATCH/lmod.err")"

# Tcl modulefiles, read by Lmod's Tcl reader
TCL=$SCRATCH/tcl
run_cdm modulefiles --into "$TCL" --tcl
expect_rc 0 "cdm modulefiles --tcl"
M=$TCL
OUT=$(in_lmod "module load cudnn/9.1.0.70-cuda12; $vars")
check "a Tcl modulefile sets the same" \
  test "$OUT" = "CUDNN_PATH=$I|LD_LIBRARY_PATH=$I/lib:/orig/lib|CDM_ACTIVE=9.1.0.70-cuda12|CPATH=$I/include"

# again: nothing changes; a file cdm did not write is refused
run_cdm modulefiles --into "$TCL" --tcl --json
check "written again: nothing changed" test "$(json 'd["written"]')" = 0
echo '#%Module1.0' >"$TCL/cudnn/9.19.0.56-cuda13"
run_cdm modulefiles --into "$TCL" --tcl
expect_rc 1 "a modulefile cdm did not write is not replaced"
expect_err "cannot write '$TCL/cudnn/9.19.0.56-cuda13': something cdm did not write is there" "naming it"
run_cdm modulefiles
expect_rc 2 "without --into: a usage error"

# A store path that is code in Tcl or Lua if written as it is: quoted for each language, so
# that each reads back the path, and nothing in it runs.
weird="$SCRATCH/st} [exec touch $SCRATCH/pwned-tcl] {\$HOME \" \\ ]] os.execute('touch $SCRATCH/pwned-lua')"
mkdir -p "$weird"
CDM_ROOT=$weird run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
CDM_ROOT=$weird run_cdm modulefiles --into "$SCRATCH/mtcl" --tcl
expect_rc 0 "modulefiles --tcl for a store whose path holds } [ ] \$ \" and \\"
CDM_ROOT=$weird run_cdm modulefiles --into "$SCRATCH/mlua"
expect_rc 0 "and the Lua files"
if command -v tclsh >/dev/null; then
  OUT=$(printf '%s\n' 'proc setenv {n v} { puts "$n=$v" }' 'proc prepend-path {n v} { puts "$n=$v" }' \
    'proc module-whatis {args} {}' 'proc conflict {args} {}' "source {$SCRATCH/mtcl/cudnn/9.1.0.70-cuda12}" | tclsh 2>&1)
  check "Tcl reads the store path back as it is" \
    sh -c 'printf "%s\n" "$1" | grep -qxF "CUDNN_PATH=$2"' _ "$OUT" "$weird/9.1.0.70-cuda12"
  check "and runs nothing of it" test ! -e "$SCRATCH/pwned-tcl"
else
  skip_tool "Tcl reads cdm's quoting" "no tclsh"
fi
LUA=$(command -v lua5.3 || command -v lua || true)
if [ -n "$LUA" ]; then
  OUT=$("$LUA" -e 'function setenv(n, v) print(n .. "=" .. v) end prepend_path = setenv
    function whatis() end function family() end' "$SCRATCH/mlua/cudnn/9.1.0.70-cuda12.lua" 2>&1)
  check "Lua reads the store path back as it is" \
    sh -c 'printf "%s\n" "$1" | grep -qxF "CUDNN_PATH=$2"' _ "$OUT" "$weird/9.1.0.70-cuda12"
  check "and runs nothing of it" test ! -e "$SCRATCH/pwned-lua"
else
  skip_tool "Lua reads cdm's quoting" "no lua"
fi
# DIR/cudnn made a link to elsewhere: not written through.
mkdir -p "$SCRATCH/linked" "$SCRATCH/elsewhere"
ln -s "$SCRATCH/elsewhere" "$SCRATCH/linked/cudnn"
CDM_ROOT=$weird run_cdm modulefiles --into "$SCRATCH/linked"
expect_rc 1 "an --into whose cudnn/ is a link is refused"
expect_err "is not a folder \(a link\?\); cdm does not write through it" "saying so"
check "and nothing is written where the link leads" test -z "$(ls -A "$SCRATCH/elsewhere")"
# A site's own modulefile that mentions cdm's mark words, not on its first line, is not cdm's.
mkdir -p "$SCRATCH/site/cudnn"
printf '%s\n' 'whatis("the site module")' '-- not written by cdm modulefiles, whatever this says' \
  >"$SCRATCH/site/cudnn/9.1.0.70-cuda12.lua"
CDM_ROOT=$weird run_cdm modulefiles --into "$SCRATCH/site"
expect_rc 1 "a site's file holding the mark words elsewhere is not replaced"
check "and is as it was" test "$(head -1 "$SCRATCH/site/cudnn/9.1.0.70-cuda12.lua")" = 'whatis("the site module")'

done_testing
