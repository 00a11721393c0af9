# A kill -9 at any moment of an install or a remove leaves the whole version or none, and
# the next cdm command that writes (or `cdm gc`) cleans up.
. "$TESTS_DIR/cli/lib.sh"

v1=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
mkdir -p "$SCRATCH/v2"
v2=$SCRATCH/v2/$(basename "$v1")
"$MAKE_FIXTURE" "$v2" --pad 4000
id=9.1.0.70-cuda12
dir=$CDM_ROOT/$id

# expected content of each archive, as installed into a throw-away store
digest_of() {
  local root
  root=$SCRATCH/expect-$(basename "$(dirname "$1")")
  CDM_ROOT=$root "$CDM" install "$1" >/dev/null 2>&1
  tree_digest "$root/$id"
}
want1=$(digest_of "$v1")
want2=$(digest_of "$v2")
check "the two archives differ in content" test "$want1" != "$want2"

state() { # the installed content: none, v1, v2, or broken
  local listed
  listed=$("$CDM" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
  if [ "$listed" = 0 ] && [ ! -e "$dir" ]; then echo none; return; fi
  local d
  d=$(tree_digest "$dir")
  if [ "$listed" = 1 ] && [ "$d" = "$want1" ]; then echo v1
  elif [ "$listed" = 1 ] && [ "$d" = "$want2" ]; then echo v2
  else echo "broken (listed $listed)"; fi
}
staging_empty() { [ -z "$(ls -A "$CDM_ROOT/.staging")" ]; }

# crash_case POINT SETUP COMMAND... WANT: crash at POINT, then `cdm gc` must reach WANT
crash_case() {
  local point=$1 setup=$2 want=$3
  shift 3
  rm_store "$CDM_ROOT"
  case $setup in
    empty) ;;
    v1) "$CDM" install "$v1" >/dev/null 2>&1 ;;
  esac
  CDM_CRASH_AT=$point "$CDM" "$@" >/dev/null 2>&1
  local rc=$?
  check "crash at '$point' during '$1' kills cdm (status 137)" test $rc -eq 137
  "$CDM" gc >/dev/null 2>&1
  local got
  got=$(state)
  if [ "$got" = "$want" ]; then ok "after the crash at '$point' and gc: $want"; else
    not_ok "after the crash at '$point' and gc: $got, want $want"; fi
  check "after the crash at '$point': .staging is empty" staging_empty
}

crash_case extracted empty none install "$v1"
crash_case recorded empty v1 install "$v1"
crash_case renamed empty v1 install "$v1"
crash_case extracted v1 v1 install "$v2" --force
crash_case recorded v1 v2 install "$v2" --force
crash_case moved-aside v1 v2 install "$v2" --force
crash_case renamed v1 v2 install "$v2" --force
crash_case remove-moved v1 v1 remove "$id"
crash_case remove-recorded v1 none remove "$id"

# Leftovers are also cleaned by the next install, not only by gc.
rm_store "$CDM_ROOT"
CDM_CRASH_AT=extracted "$CDM" install "$v1" >/dev/null 2>&1
check "a crash leaves work in .staging" test -n "$(ls -A "$CDM_ROOT/.staging")"
run_cdm install "$v1"
expect_rc 0 "the next install succeeds"
expect_err "cleaned up 1 leftover" "and says it cleaned up"
check "and .staging is empty again" staging_empty

# Each command runs the recovery of what it touches only: a link changes a project's link
# and the user's state, never an install, so an install a kill interrupted (its record
# pending, its folder ready in .staging/) waits for a command that reads or writes installs.
rm_store "$CDM_ROOT"
"$CDM" install "$v1" >/dev/null 2>&1
v3=$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)
CDM_CRASH_AT=recorded "$CDM" install "$v3" >/dev/null 2>&1
ready=$CDM_ROOT/.staging/9.3.0.75-cuda12.ready
check "a crash after the record leaves the install's folder ready in .staging" test -d "$ready"
mkdir -p "$SCRATCH/proj"
run_cdm link "$SCRATCH/proj" 9.1
expect_rc 0 "cdm link meanwhile links another version"
check "without running the install's recovery: the folder is still in .staging" test -d "$ready"
check "and the install is not in place" test ! -e "$CDM_ROOT/9.3.0.75-cuda12"
check "and the link said nothing of leftovers" sh -c '! printf "%s" "$1" | grep -q leftover' _ "$ERR"
run_cdm list --json
expect_err "cleaned up 1 leftover" "cdm list, which reads installs, finishes it"
check "the install is in place and listed" \
  test "$(json 'sorted(i["id"] for i in d)')" = "['9.1.0.70-cuda12', '9.3.0.75-cuda12']"
check ".staging is empty again" staging_empty
# but a link to the very install a kill interrupted touches it: it settles that first
"$CDM" remove --force 9.3 >/dev/null 2>&1
CDM_CRASH_AT=recorded "$CDM" install "$v3" >/dev/null 2>&1
check "(the interrupted install is in .staging again)" test -d "$ready"
run_cdm link "$SCRATCH/proj" 9.3
expect_rc 0 "a link to the interrupted install finishes it and links it"
expect_err "cleaned up 1 leftover" "saying it cleaned up"
check "the project links it" test "$(readlink "$SCRATCH/proj/cuda_link")" = "$CDM_ROOT/9.3.0.75-cuda12"
check ".staging is empty" staging_empty

# Real kill -9 at arbitrary moments of a slower install (a 300 MB library of zeros).
mkdir -p "$SCRATCH/big"
big=$SCRATCH/big/cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz
"$MAKE_FIXTURE" "$big" --zeros 300000000
bigdir=$CDM_ROOT/9.3.0.75-cuda12
seen_none=0 seen_whole=0
for delay in 0.02 0.05 0.1 0.2 0.3 0.5 0.8 1.2 2 4; do
  rm_store "$CDM_ROOT"
  "$CDM" install "$big" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  "$CDM" gc >/dev/null 2>&1
  n=$("$CDM" list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
  if [ "$n" = 0 ] && [ ! -e "$bigdir" ] && staging_empty; then
    seen_none=$((seen_none + 1))
  elif [ "$n" = 1 ] && [ "$(stat -c %s "$bigdir/lib/libcudnn_zeros.so.9" 2>/dev/null)" = 300000000 ] && staging_empty; then
    seen_whole=$((seen_whole + 1))
  else
    not_ok "kill -9 after ${delay}s left a partial state (listed $n)"
    ls -la "$CDM_ROOT" "$CDM_ROOT/.staging" 2>&1 | sed 's/^/# /'
  fi
done
check "10 kills at arbitrary moments each left the whole version or none ($seen_none none, $seen_whole whole)" \
  test $((seen_none + seen_whole)) -eq 10
check "some kills landed mid-install" test "$seen_none" -gt 0

done_testing
