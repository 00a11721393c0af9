# Concurrency soak: eight cdm processes at once, for SOAK_SECONDS (default 20), each looping
# over a random mix of install, install --force, link, rollback, unlink, remove, remove --force and gc on one
# store and four projects. A command may fail for a reason of the moment (remove refused
# while a project links the version, a link to a version just removed), but never crash,
# hang or report a broken store. Afterwards the index and the disk must agree, verify must
# pass and each project's generations must be numbered without gaps.
. "$TESTS_DIR/cli/lib.sh"

seconds=${SOAK_SECONDS:-20}
versions=(9.1 9.2 9.3)
archives=()
for a in 9.1.0.70 9.2.0.82 9.3.0.75; do
  archives+=("$(fixture "cudnn-linux-x86_64-${a}_cuda12-archive.tar.xz")")
done
projects=()
for i in 1 2 3 4; do
  mkdir -p "$SCRATCH/p$i"
  projects+=("$SCRATCH/p$i")
done
"$CDM" install -q "${archives[0]}" || not_ok "the first install"

# worker N: run commands until the deadline; log "command|status" lines, keep stderr of
# failures, count statuses above 1 (a crash, a signal, a sanitizer's exit) apart.
worker() {
  local n=$1 deadline=$2 log=$SCRATCH/worker.$1
  RANDOM=$((n * 7919))
  : >"$log"
  while [ "$(date +%s)" -lt "$deadline" ]; do
    local p=${projects[RANDOM % 4]} v=${versions[RANDOM % 3]} a=${archives[RANDOM % 3]}
    local cmd
    case $((RANDOM % 11)) in
    0 | 1) cmd=(install -q "$a") ;;
    2) cmd=(install -q --force "$a") ;;
    3 | 4 | 5) cmd=(link -q "$p" "$v") ;;
    6) cmd=(rollback -q "$p") ;;
    7) cmd=(unlink -q "$p") ;;
    8) cmd=(remove -q "$v") ;;
    9) cmd=(gc -q) ;;
    10) cmd=(remove -q --force "$v") ;;
    esac
    timeout 120 "$CDM" "${cmd[@]}" >/dev/null 2>"$log.err"
    local rc=$?
    echo "${cmd[0]} ${cmd[1]}|$rc" >>"$log"
    [ "$rc" -le 1 ] || { echo "== ${cmd[*]}: status $rc" >>"$log.bad"; cat "$log.err" >>"$log.bad"; }
    [ "$rc" -ne 1 ] || cat "$log.err" >>"$log.fail"
  done
}

deadline=$(($(date +%s) + seconds))
pids=()
for n in 1 2 3 4 5 6 7 8; do
  worker "$n" "$deadline" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

total=$(cat "$SCRATCH"/worker.? | wc -l)
succeeded=$(cat "$SCRATCH"/worker.? | grep -c '|0$')
diag "$total commands in ${seconds}s, $succeeded succeeded; by command (ok/all):"
diag "$(cat "$SCRATCH"/worker.? | awk -F'|' '{split($1, c, " "); all[c[1]]++; if ($2 == 0) ok[c[1]]++}
  END {for (k in all) printf "%s %d/%d  ", k, ok[k], all[k]}')"
check "eight processes ran at least 40 commands" test "$total" -ge 40
for kind in install link gc; do
  check "some $kind succeeded" grep -q "^$kind .*|0$" "$SCRATCH"/worker.?
done
# A rollback or a remove may be refused every time in a short, slow run (nothing to go back
# to, every version linked): then the mix did not exercise them, which is said, not failed.
for kind in rollback remove; do
  if grep -q "^$kind .*|0$" "$SCRATCH"/worker.?; then
    ok "some $kind succeeded"
  else
    skip "some $kind succeeded" "each of this run's $(grep -c "^$kind " "$SCRATCH"/worker.? | awk -F: '{n += $2} END {print n}') attempts was refused"
  fi
done
if cat "$SCRATCH"/worker.?.bad >/dev/null 2>&1; then
  not_ok "no command crashed, hung or exited with a status above 1"
  diag "$(cat "$SCRATCH"/worker.?.bad | head -40)"
else
  ok "no command crashed, hung or exited with a status above 1"
fi
# A failure must be one of the expected refusals, never a sign of a broken store.
broken=$(cat "$SCRATCH"/worker.?.fail 2>/dev/null |
  grep -Ei 'database|sqlite|malformed|corrupt|locked|busy|cannot (create|delete|rename|put)|missing|no such' |
  grep -Evi 'not installed|is not installed' | head -20)
diag "the failures, by message:" "$(cat "$SCRATCH"/worker.?.fail 2>/dev/null | sed -E "s|$SCRATCH|S|g; s/[0-9]+/N/g" | sort | uniq -c | sort -rn | head -12)"
check "every failure was a refusal, none a sign of a broken store" test -z "$broken"
[ -z "$broken" ] || diag "$broken"

# ---- the store afterwards ---------------------------------------------------------------------
run_cdm gc -q
expect_rc 0 "gc afterwards"
run_cdm verify
expect_rc 0 "verify passes"
run_cdm list --json
expect_rc 0 "list --json"
listed=$(json '" ".join(sorted(i["id"] for i in d))')
on_disk=$(cd "$CDM_ROOT" && for f in *; do [ -d "$f" ] && [ -f "$f/include/cudnn_version.h" ] && echo "$f"; done | sort | tr '\n' ' ' | sed 's/ $//')
diag "listed: $listed" "on disk: $on_disk"
check "the installs listed are exactly the version folders on disk" test "$listed" = "$on_disk"
check "no work left in .staging" empty_dir "$CDM_ROOT/.staging"
check "nothing is left pending in the index" test "$(json 'all(i.get("state", "ok") == "ok" for i in d)')" = True

sql() { sql_on "$STATE_DB" "$1"; }
gaps=0 wrong=0
for p in "${projects[@]}"; do
  real=$(cd "$p" && pwd -P)
  numbers=$(sql "SELECT generation FROM generations WHERE project = '$real' ORDER BY generation" | tr '\n' ' ')
  max=$(sql "SELECT MAX(generation) FROM generations WHERE project = '$real'")
  if [ -n "$max" ] && [ "$max" != None ] && [ "$numbers" != "$(seq 1 "$max" | tr '\n' ' ')" ]; then
    gaps=$((gaps + 1))
    diag "$p: generations $numbers"
  fi
  # the link on disk leads where the project's last generation says
  run_cdm which "$p" --json
  if [ -L "$p/cuda_link" ]; then
    # shellcheck disable=SC2015 # wrong when either test fails
    [ -f "$p/cuda_link/include/cudnn_version.h" ] && [ "$RC" -eq 0 ] || {
      wrong=$((wrong + 1))
      diag "$p: link $(readlink "$p/cuda_link"), which: $OUT $ERR"
    }
  fi
done
check "each project's generations are numbered without gaps" test "$gaps" -eq 0
check "each project's link leads to an installed version that which reports" test "$wrong" -eq 0

done_testing
