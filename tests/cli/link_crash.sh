# Link switches interrupted by kill -9, crashes left in the index, and concurrent links.
. "$TESTS_DIR/cli/lib.sh" || exit 1

for v in 9.1.0.70 9.2.0.82 9.3.0.75; do
  run_cdm install "$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz")"
done
A=9.1.0.70-cuda12 B=9.2.0.82-cuda12 C=9.3.0.75-cuda12
P=$SCRATCH/project
mkdir -p "$P"
P=$(cd "$P" && pwd -P)
DB=$STATE_DB
sql() { sql_on "$DB" "$1"; }
valid_link() {
  local t
  t=$(readlink "$P/cuda_link") || return 1
  { [ "$t" = "$CDM_ROOT/$A" ] || [ "$t" = "$CDM_ROOT/$B" ]; } && [ -f "$P/cuda_link/include/cudnn_version.h" ]
}
consistent() { # the index's current generation names what the link points to
  local w
  w=$("$CDM" which "$P" --json 2>/dev/null) || return 1
  printf '%s' "$w" | grep -q '"drift":false' &&
    [ "$(sql "SELECT COUNT(*) FROM generations WHERE state <> 'ok'")" = 0 ] &&
    ! ls -A "$P" | grep -q '\.tmp$'
}

run_cdm link "$P" 9.1
expect_rc 0 "start linked to 9.1"

# ---- crashes at each step, made by hand in the index ----------------------------------------
# 1. killed after recording the generation, before switching: the change did not happen.
n=$(sql "SELECT MAX(generation) FROM generations")
sql "INSERT INTO generations (project, generation, install_id, action, link_name, time, state, store) VALUES ('$P', $((n + 1)), '$B', 'link', 'cuda_link', 0, 'pending', '$CDM_ROOT')" >/dev/null
ln -s "$CDM_ROOT/$B" "$P/cuda_link.cdm-4242.tmp"
echo mine >"$P/cuda_link.cdm-1.tmp.txt"
run_cdm which "$P" --json
check "a reader still sees the old link" test "$(json 'd["id"]')" = "$A"
expect_err "cleaned up 1 leftover" "the reader settled the interrupted change (no writer held the lock)"
run_cdm gc --json
expect_rc 0 "gc after a crash before the switch"
check "drops the pending generation" test "$(sql "SELECT COUNT(*) FROM generations")" -eq "$n"
check "removes the temporary link it left" test ! -L "$P/cuda_link.cdm-4242.tmp"
check "leaves other files alone" test "$(cat "$P/cuda_link.cdm-1.tmp.txt")" = mine
rm "$P/cuda_link.cdm-1.tmp.txt"
check "the link and the index agree" consistent
check "gc found nothing left to do" test "$(json 'd["removed"]')" -eq 0

# 2. killed after the switch, before marking the generation done: the change happened.
sql "INSERT INTO generations (project, generation, install_id, action, link_name, time, state, store) VALUES ('$P', $((n + 1)), '$B', 'link', 'cuda_link', 0, 'pending', '$CDM_ROOT')" >/dev/null
ln -sfn "$CDM_ROOT/$B" "$P/cuda_link"
run_cdm link "$P" 9.2 --json
expect_rc 0 "the next link after a crash past the switch"
check "finds the change made: generation $((n + 1)) is kept and current" \
  test "$(json 'd["generation"], d["id"], d["changed"]')" = "($((n + 1)), '$B', False)"
check "the pin was brought up to date" test "$(cat "$P/.cudnn-version")" = "$B"
check "the link and the index agree" consistent

# 3. an unlink killed before removing the link: did not happen.
sql "INSERT INTO generations (project, generation, install_id, action, link_name, time, state, store) VALUES ('$P', $((n + 2)), NULL, 'unlink', 'cuda_link', 0, 'pending', '$CDM_ROOT')" >/dev/null
run_cdm gc
check "a pending unlink whose link is still there is dropped" \
  test "$(sql "SELECT COUNT(*) FROM generations WHERE generation = $((n + 2))")" -eq 0
check "and the link stays" valid_link

# ---- kill -9 at random moments of real switches -----------------------------------------------
rounds=30 killed=0 invalid=0 inconsistent=0
for i in $(seq 1 $rounds); do
  if [ $((i % 2)) -eq 0 ]; then v=9.1; else v=9.2; fi
  # (a sanitized cdm checks no leaks here: a kill that lands during LeakSanitizer's check
  # at exit makes it report that it cannot stop the dying thread)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$CDM" link "$P" "$v" -q 2>/dev/null &
  pid=$!
  sleep "0.0$((RANDOM % 6))$((RANDOM % 10))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ $? -eq 137 ] && killed=$((killed + 1))
  valid_link || { invalid=$((invalid + 1)); diag "round $i: link is '$(readlink "$P/cuda_link")'"; }
  "$CDM" gc -q 2>/dev/null
  "$CDM" which "$P" --json 2>/dev/null | grep -q '"drift":false' ||
    { inconsistent=$((inconsistent + 1)); diag "round $i: index and link disagree"; }
done
diag "$killed of $rounds links were killed before they finished"
check "after every kill -9 the link points to the old or the new version" test "$invalid" -eq 0
check "and the next writer leaves link and index in agreement" test "$inconsistent" -eq 0
check "with nothing pending and no temporary files" consistent
if [ "$killed" -gt 0 ]; then ok "some links were really killed midway ($killed)"; else skip "some links were really killed midway" "every link finished before its kill on this machine"; fi

# ---- concurrent links ------------------------------------------------------------------------
before=$(sql "SELECT MAX(generation) FROM generations WHERE project = '$P'")
pids=()
for i in $(seq 1 8); do
  case $((i % 3)) in 0) v=9.1 ;; 1) v=9.2 ;; 2) v=9.3 ;; esac
  "$CDM" link "$P" "$v" -q 2>"$SCRATCH/concurrent.$i" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
check "eight concurrent links all succeed" test "$failed" -eq 0
numbers=$(sql "SELECT generation FROM generations WHERE project = '$P' ORDER BY generation" | tr '\n' ' ')
check "the generations are numbered without gaps or duplicates" \
  test "$numbers" = "$(seq 1 "$(sql "SELECT MAX(generation) FROM generations WHERE project = '$P'")" | tr '\n' ' ')"
after=$(sql "SELECT MAX(generation) FROM generations WHERE project = '$P'")
check "each change was recorded (between 1 and 8 new generations)" test $((after - before)) -ge 1 -a $((after - before)) -le 8
run_cdm which "$P" --json
check "one winner: the link is the current generation's version" \
  test "$(json 'd["id"] == d["index_id"] and d["id"] in ("'$A'", "'$B'", "'$C'") and not d["drift"]')" = True
check "and nothing is pending" consistent

done_testing
