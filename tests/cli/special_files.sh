# Files that are not what they seem: checksum files, pin files and link names that are
# fifos, devices, folders, links to nothing, huge or unreadable. Checksum files fail closed
# (an install never goes on unverified); the prompt hook never blocks on them.
. "$TESTS_DIR/cli/lib.sh" || exit 1

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
id=9.1.0.70-cuda12
sha=$(sha256sum "$a" | cut -d' ' -f1)
D=$(dirname "$a")
LIMIT=10 # seconds: a command that blocks on a fifo is killed, and fails the check

not_installed() { [ ! -e "$CDM_ROOT/$id" ] && ! "$CDM" list 2>/dev/null | grep -q "$id"; }

# ---- checksum files: followed when links, an error when there but unreadable -----------
sums_case() { # DESCRIPTION FILE: FILE is in place; the install must fail naming it
  run_cdm_t install "$a"
  if [ "$RC" -eq 1 ] && printf '%s' "$ERR" | grep -q "'$2'.*fix or delete it, nothing was installed"; then
    ok "$1 is an error naming it"
  else
    not_ok "$1 is an error naming it (status $RC)"
    diag "$ERR"
  fi
  check "and nothing was installed" not_installed
}
run_cdm_t() { # run_cdm under a time limit
  OUT=$(timeout -k 3 "$LIMIT" "$CDM" "$@" 2>"$SCRATCH/stderr")
  RC=$?
  ERR=$(cat "$SCRATCH/stderr")
}

for f in "$a.sha256" "$D/SHA256SUMS"; do
  what=$(basename "$f")
  ln -s "$SCRATCH/nothing-here" "$f"
  sums_case "$what as a link to nothing" "$f"
  rm -f "$f"
  mkfifo "$f"
  sums_case "$what as a fifo" "$f"
  rm -f "$f"
  ln -s /dev/zero "$f"
  sums_case "$what as a link to a device" "$f"
  rm -f "$f"
  mkdir "$f"
  sums_case "$what as a folder" "$f"
  rmdir "$f"
  if [ "$(id -u)" = 0 ]; then
    skip "$what unreadable" "running as root, who reads every file"
  else
    echo "$sha  $(basename "$a")" >"$f"
    chmod 000 "$f"
    sums_case "$what unreadable" "$f"
    rm -f "$f"
  fi
done

echo "$sha  $(basename "$a")" >"$SCRATCH/good.sha256"
ln -s "$SCRATCH/good.sha256" "$a.sha256"
run_cdm install "$a"
expect_rc 0 "a .sha256 that is a link to a good file is followed"
run_cdm remove "$id"
echo "0000000000000000000000000000000000000000000000000000000000000000  x" >"$SCRATCH/good.sha256"
run_cdm install "$a"
expect_rc 1 "and a link to a wrong hash fails"
expect_err "checksum mismatch" "as a mismatch"
rm -f "$a.sha256"

# ---- the prompt hook: pin files and link names that could block ------------------------
run_cdm install "$a"
P=$SCRATCH/proj
mkdir -p "$P"
run_cdm link "$P" "$id"
expect_rc 0 "a linked project"
hook() { # the prompt hook's call, in the project, from a shell where another is active
  OUT=$(cd "$P" && CDM_ACTIVE=other timeout "$LIMIT" "$CDM" activate --auto --shell bash 2>"$SCRATCH/stderr")
  RC=$?
  ERR=$(cat "$SCRATCH/stderr")
}
pin_case() { # DESCRIPTION: the pin is in place
  hook
  local warnings
  warnings=$(printf '%s\n' "$ERR" | grep -c "ignoring the pin file: cannot read '$P/.cudnn-version'")
  if [ "$RC" -ne 124 ] && [ "$warnings" -eq 1 ]; then
    ok "a pin file that is $1: the hook does not block and warns once"
  else
    not_ok "a pin file that is $1: the hook does not block and warns once (status $RC, $warnings warnings)"
    diag "$ERR"
  fi
  check "and still activates the link" sh -c 'printf "%s" "$1" | grep -q "^export CDM_ACTIVE=.$2.$"' _ "$OUT" "$id"
}
pin=$P/.cudnn-version
rm -f "$pin" && mkfifo "$pin"
pin_case "a fifo"
rm -f "$pin" && mkfifo "$SCRATCH/fifo" && ln -s "$SCRATCH/fifo" "$pin"
pin_case "a link to a fifo"
rm -f "$pin" && ln -s /dev/zero "$pin"
pin_case "a link to an endless device"
rm -f "$pin" && ln -s "$SCRATCH/nothing-here" "$pin"
pin_case "a link to nothing"
rm -f "$pin" && mkdir "$pin"
pin_case "a folder"
rmdir "$pin"
{ echo "$id"; head -c 5000000 /dev/zero; } >"$pin"
pin_case "5 MB long"
rm -f "$pin"
if [ "$(id -u)" = 0 ]; then
  skip "an unreadable pin file" "running as root, who reads every file"
else
  echo "$id" >"$pin" && chmod 000 "$pin"
  pin_case "unreadable"
  rm -f "$pin"
fi
mkfifo "$pin"
OUT=$(cd "$SCRATCH" && timeout "$LIMIT" "$CDM" link "$P" 2>&1)
check "cdm link with a fifo for a pin does not block either" test $? -ne 124
rm -f "$pin"

# A link name that is a fifo, or a link to one: nothing opens it.
rm -f "$P/cuda_link" && mkfifo "$P/cuda_link"
hook
check "a fifo where the link should be: the hook does not block" test "$RC" -ne 124
OUT=$(timeout "$LIMIT" "$CDM" activate "$P" --shell bash 2>&1)
check "nor does activate, which says what is wrong" \
  sh -c 'printf "%s" "$1" | grep -q "is not a link cdm made"' _ "$OUT"
rm -f "$P/cuda_link" && ln -s "$SCRATCH/fifo" "$P/cuda_link"
hook
check "a link to a fifo: the hook does not block" test "$RC" -ne 124
rm -f "$P/cuda_link"

# ---- other files a user or a repository controls: read only when regular ------------------
F=$SCRATCH/fifo2
mkfifo "$F"
CDM_CONFIG=$F run_cdm_t list
check "a config that is a fifo: cdm does not block" test "$RC" -ne 124
expect_err "cannot read config '$F': it is no regular file" "and says what it is"
ln -s "$F" "$SCRATCH/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz"
run_cdm_t install "$SCRATCH/cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz"
check "an archive that is a link to a fifo: install does not block" test "$RC" -ne 124 -a "$RC" -ne 137 -a "$RC" -ne 0
# a Python environment whose dist-info METADATA files are fifos (the doctor reads them)
V=$SCRATCH/venv
sp=$V/lib/python3.11/site-packages
mkdir -p "$sp/torch-2.11.0.dist-info" "$sp/nvidia/cudnn/lib" "$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info"
echo "home = /usr/bin" >"$V/pyvenv.cfg"
mkfifo "$sp/torch-2.11.0.dist-info/METADATA" "$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA"
OUT=$(VIRTUAL_ENV=$V timeout -k 3 "$LIMIT" "$CDM" doctor 2>&1)
RC=$?
check "a dist-info METADATA that is a fifo: the doctor does not block" test "$RC" -ne 124 -a "$RC" -ne 137

# ---- projects and the store inside each other --------------------------------------------
mkdir -p "$CDM_ROOT/inner"
run_cdm link "$CDM_ROOT/inner" "$id"
expect_rc 2 "a project inside the store is refused"
expect_err "it is inside the store" "saying so"
check "and nothing was made there" test ! -e "$CDM_ROOT/inner/cuda_link"
mkdir -p "$SCRATCH/outer/real"
ln -s real "$SCRATCH/outer/via"
CDM_ROOT=$SCRATCH/outer/via/store run_cdm install "$a"
CDM_ROOT=$SCRATCH/outer/via/store run_cdm link "$SCRATCH/outer" "$id" --name via
expect_rc 2 "a link whose path holds the store is refused"
expect_err "the store '.*/outer/via/store' is reached through that path" "saying so"
check "and the store's way stays" test -L "$SCRATCH/outer/via"

done_testing
