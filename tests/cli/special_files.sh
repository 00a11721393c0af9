# Files that are not what they seem: checksum files, pin files and link names that are
# fifos, devices, folders, links to nothing, huge or unreadable. Checksum files fail closed
# (an install never goes on unverified); the prompt hook never blocks on them.
. "$TESTS_DIR/cli/lib.sh" || exit 1

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
id=9.1.0.70-cuda12
sha=$(sha256sum "$a" | cut -d' ' -f1)
D=$(dirname "$a")
T=10 # seconds: a command that blocks on a fifo is killed, and fails the check

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
  OUT=$(timeout "$T" "$CDM" "$@" 2>"$SCRATCH/stderr")
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

done_testing
