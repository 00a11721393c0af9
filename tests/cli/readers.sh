# Readers after a kill -9: whatever moment of `cdm remove`, `cdm remove --force` or
# `cdm install --force` a kill cut, the next command of any kind (list, verify, which,
# activate, the prompt hook's activate --auto) shows a consistent state: no install without
# its folder, no activation of a link to a missing folder. A reader finishes the work when
# no writer holds the store's lock, and says "in progress" when one does.
. "$TESTS_DIR/cli/lib.sh" || exit 1

v1=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
mkdir -p "$SCRATCH/v2"
v2=$SCRATCH/v2/$(basename "$v1")
"$MAKE_FIXTURE" "$v2" --pad 4000
id=9.1.0.70-cuda12
W=$SCRATCH/w
export CDM_ROOT=$W/store
export CDM_STATE=$W/state.db # the user's state goes with the store each setup makes anew
P=$W/project

# setup KIND: a fresh store with v1, and a project linked to it when KIND is "linked"
setup() {
  rm -rf "$W"
  mkdir -p "$P"
  "$CDM" install "$v1" >/dev/null 2>&1 || echo "# setup: install failed"
  if [ "$1" = linked ]; then
    "$CDM" link "$P" "$id" >/dev/null 2>&1 || echo "# setup: link failed"
  fi
}

# Consistency as a user sees it, after one reader ran on the crashed state.
listed_ok() { # every listed install has its folder, and none is half done
  local out
  out=$("$CDM" list --json 2>/dev/null) || return 1
  case $out in *'"state":"installing"'* | *'"state":"removing"'* | *'"state":"missing"'*) return 1 ;; esac
  case $out in *"\"id\":\"$id\""*) [ -f "$CDM_ROOT/$id/include/cudnn_version.h" ] ;; esac
}
staging_empty() { [ -z "$(ls -A "$CDM_ROOT/.staging" 2>/dev/null)" ]; }
# An activation is fine when it fails, or when the folder it exports holds the install.
activation_sound() { # OUTPUT RC
  [ "$2" -ne 0 ] && return 0
  local cuda
  cuda=$(printf '%s\n' "$1" | sed -n "s/^export CUDA_PATH='\\(.*\\)'\$/\\1/p")
  [ -z "$cuda" ] && return 0 # nothing exported (already current)
  [ -f "$cuda/include/cudnn_version.h" ]
}

# reader_case POINT SETUP COMMAND...: crash there, then run each reader on a copy of the
# crashed state and judge what it showed.
reader_case() {
  local point=$1 kind=$2
  shift 2
  setup "$kind"
  CDM_CRASH_AT=$point "$CDM" "$@" >/dev/null 2>&1
  local rc=$?
  check "crash at '$point' during '$*' kills cdm (status 137)" test $rc -eq 137
  rm -rf "$SCRATCH/snap"
  cp -a "$W" "$SCRATCH/snap"
  local reader
  for reader in list verify which activate auto; do
    rm -rf "$W"
    cp -a "$SCRATCH/snap" "$W"
    case $reader in
      list) run_cdm list --json ;;
      verify) run_cdm verify ;;
      which) run_cdm which "$P" ;;
      activate) run_cdm activate "$P" --shell bash ;;
      auto) OUT=$(cd "$P" && env -u CDM_ACTIVE "$CDM" activate --auto --shell bash 2>"$SCRATCH/stderr"); RC=$?; ERR=$(cat "$SCRATCH/stderr") ;;
    esac
    local what="after the crash at '$point' of '$1', $reader"
    case $reader in
      verify) check "$what passes" test "$RC" -eq 0 ;;
      which) check "$what names no missing folder" eval '! printf "%s" "$ERR" | grep -q "missing\|not installed"' ;;
      activate | auto) check "$what exports no missing folder" activation_sound "$OUT" "$RC" ;;
      list) check "$what succeeds" test "$RC" -eq 0 ;;
    esac
    [ "$RC" -ne 0 ] && [ "$reader" != activate ] && [ "$reader" != auto ] && diag "$ERR"
    check "$what: every listed install is whole" listed_ok
    check "$what: the interrupted work was finished (.staging empty)" staging_empty
  done
}

reader_case remove-moved plain remove "$id"
reader_case remove-recorded plain remove "$id"
reader_case link-recorded linked remove --force "$id"
reader_case link-switched linked remove --force "$id"
reader_case remove-unlinked linked remove --force "$id"
reader_case remove-moved linked remove --force "$id"
reader_case remove-recorded linked remove --force "$id"
reader_case extracted linked install --force "$v2"
reader_case recorded linked install --force "$v2"
reader_case moved-aside linked install --force "$v2"
reader_case renamed linked install --force "$v2"

# ---- a writer at work: readers say so and touch nothing ---------------------------------
# The store's lock held by another process (flock(1) takes the same lock as cdm; the
# process that sleeps holds it, so killing it releases it), over
# the state a kill left halfway through a reinstall and a remove.
hold_lock() { # COMMAND...: run it while another process holds the store's lock
  (
    exec 9>"$CDM_ROOT/.lock"
    flock 9 && echo held >"$SCRATCH/held" && exec sleep 30
  ) &
  local holder=$! i=0
  while [ ! -s "$SCRATCH/held" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  "$@"
  kill "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
  rm -f "$SCRATCH/held"
}
if ! command -v flock >/dev/null; then
  skip "readers while a writer holds the lock" "no flock(1) (util-linux)"
else
  setup linked
  CDM_CRASH_AT=moved-aside "$CDM" install --force "$v2" >/dev/null 2>&1
  hold_lock run_cdm activate "$P" --shell bash
  expect_rc 1 "a reinstall under way: activate refuses"
  expect_err "another cdm is installing $id; try again" "and says another cdm is installing it"
  check "and exports nothing" test -z "$OUT"
  hold_lock run_cdm list --json
  check "list shows the install as being installed" test "$(json 'd[0]["state"]')" = installing
  hold_lock run_cdm verify
  expect_err "$id not verified: another cdm is installing it" "verify says it skipped it"
  check "the reader left the work for the writer" test -d "$CDM_ROOT/.staging/$id.old"
  run_cdm activate "$P" --shell bash
  expect_rc 0 "once the writer is gone, activate finishes the work and activates"
  expect_err "cleaned up" "and says it cleaned up"
  check "the folder is back in place" test -f "$CDM_ROOT/$id/include/cudnn_version.h"

  setup plain
  CDM_CRASH_AT=remove-moved "$CDM" remove "$id" >/dev/null 2>&1
  hold_lock run_cdm list --json
  check "a remove under way: list shows it as being removed" test "$(json 'd[0]["state"]')" = removing
  run_cdm list --json
  check "once the writer is gone, list puts the folder back" test "$(json 'd[0]["state"]')" = ok
fi

# A folder deleted by hand is no interrupted work: it is reported missing.
setup linked
rm_tree "${CDM_ROOT:?}/$id"
run_cdm activate "$P" --shell bash
expect_rc 1 "a folder deleted by hand: activate refuses"
expect_err "the folder '.*$id' of $id is missing; run 'cdm install --force" "and names the missing folder"
run_cdm list --json
check "list shows it as missing" test "$(json 'd[0]["state"]')" = missing
run_cdm which "$P"
expect_err "store folder of $id is missing" "which says the folder is missing"

done_testing
