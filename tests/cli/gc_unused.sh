# cdm gc --unused, as a property: in rounds of random projects (linked, or unlinked with a
# cudnn.lock), attached environments, a default and --keep, the installs it removes are
# exactly those nothing uses (never one in use, every other one), each kept one says why,
# the bytes it reports are those of the folders that went, and what stays verifies.
. "$TESTS_DIR/cli/lib.sh"

SPECS=(9.1.0.70_cuda12 9.2.0.82_cuda12 9.3.0.75_cuda12 8.9.7.29_cuda12 9.19.0.56_cuda13
  9.5.1.17_cuda12)
ids=()
for spec in "${SPECS[@]}"; do
  fixture "cudnn-linux-x86_64-${spec}-archive.tar.xz" --version "${spec%_*}" >/dev/null
  ids+=("${spec%_*}-cuda${spec##*cuda}")
done

PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=
venvs=true
if [ -z "$PY" ] || ! "$PY" -m venv --without-pip "$SCRATCH/probe" >/dev/null 2>&1; then
  venvs=false
  skip "attached environments in the rounds" "python3 -m venv is not available here"
fi

# venv DIR: an environment holding the nvidia-cudnn-cu13 wheel's files (attach.sh's shape)
venv() {
  "$PY" -m venv --without-pip "$1" || return 1
  local sp f
  sp=$(echo "$1"/lib/python3*/site-packages)
  mkdir -p "$sp/nvidia/cudnn/lib" "$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info"
  for f in libcudnn.so.9 libcudnn_graph.so.9; do
    head -c 3000 /dev/urandom >"$sp/nvidia/cudnn/lib/$f"
  done
  printf 'Metadata-Version: 2.1\nName: nvidia-cudnn-cu13\nVersion: 9.19.0.56\n' \
    >"$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA"
  (cd "$sp" && find nvidia -type f | sed 's/$/,,/') >"$sp/nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD"
}

# bytes DIR: the bytes of its regular files (what cdm counts as an install's size)
bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

RANDOM=${CDM_GC_SEED:-4021}
diag "seed ${CDM_GC_SEED:-4021} (CDM_GC_SEED repeats a round)"
for round in 1 2 3 4 5 6; do
  R=$SCRATCH/round$round
  mkdir -p "$R"
  export CDM_ROOT=$R/store CDM_STATE=$R/state/state.db
  for spec in "${SPECS[@]}"; do
    "$CDM" install -q "$SCRATCH/archives/cudnn-linux-x86_64-${spec}-archive.tar.xz" || not_ok "round $round: install $spec"
  done
  declare -A used=()
  for p in 1 2 3; do # linked projects, or unlinked ones that keep a cudnn.lock
    [ $((RANDOM % 3)) = 0 ] && continue
    id=${ids[RANDOM % ${#ids[@]}]}
    mkdir -p "$R/p$p"
    "$CDM" link -q "$R/p$p" "$id"
    used[$id]=1
    if [ $((RANDOM % 2)) = 0 ]; then
      if ! "$CDM" lock -q "$R/p$p" >/dev/null 2>&1 || ! "$CDM" unlink -q "$R/p$p"; then
        not_ok "round $round: lock then unlink p$p"
      fi
    fi
  done
  if [ $((RANDOM % 2)) = 0 ]; then
    id=${ids[RANDOM % ${#ids[@]}]}
    "$CDM" default -q "$id" && used[$id]=1
  fi
  if $venvs && [ $((RANDOM % 2)) = 0 ]; then # an environment attached, its project unlinked
    mkdir -p "$R/pa"
    "$CDM" link -q "$R/pa" 9.19.0.56-cuda13
    venv "$R/env" && "$CDM" attach -q "$R/env" "$R/pa" 2>/dev/null && used[9.19.0.56-cuda13]=1
    [ $((RANDOM % 2)) = 0 ] && "$CDM" unlink -q "$R/pa" 2>/dev/null
  fi
  keep=$((RANDOM % 2))
  unused=()
  for id in "${ids[@]}"; do [ -z "${used[$id]:-}" ] && unused+=("$id"); done

  run_cdm gc --unused --dry-run --keep "$keep" --json
  expect_rc 0 "round $round: --dry-run"
  dry=$(json '" ".join(sorted(i["id"] for i in d["installs"] if i["removed"]))')
  diag "round $round keeps: $(json '"; ".join(i["id"] + ": " + i["kept_because"].split(" (")[0].split(" \x27")[0] for i in d["installs"] if not i["removed"])')"
  check "round $round: --dry-run removes nothing" test "$(ls "$CDM_ROOT" | grep -c cuda)" = "${#ids[@]}"
  check "round $round: every kept install says why" \
    test "$(json 'sum(1 for i in d["installs"] if not i["removed"] and not i["kept_because"])')" = 0
  declare -A before=()
  for id in "${ids[@]}"; do before[$id]=$(bytes "$CDM_ROOT/$id"); done

  run_cdm gc --unused --keep "$keep" --json
  expect_rc 0 "round $round: gc --unused"
  removed=$(json '" ".join(sorted(i["id"] for i in d["installs"] if i["removed"]))')
  reported=$(json 'sum(i["size"] for i in d["installs"] if i["removed"])')
  check "round $round: it removes what --dry-run said" test "$removed" = "$dry"
  in_use=0 gone_bytes=0 wrong=
  for id in "${ids[@]}"; do
    if [ -n "${used[$id]:-}" ]; then
      [ -d "$CDM_ROOT/$id" ] || wrong+=" $id(used, gone)"
    elif [ -d "$CDM_ROOT/$id" ]; then
      in_use=$((in_use + 1)) # kept: only --keep may keep an unused one
    else
      gone_bytes=$((gone_bytes + before[$id]))
    fi
  done
  check "round $round: no install in use is removed${wrong}" test -z "$wrong"
  check "round $round: of ${#unused[@]} unused, --keep $keep keeps that many" \
    test "$in_use" = "$((keep < ${#unused[@]} ? keep : ${#unused[@]}))"
  check "round $round: it reports the bytes that went ($reported of $gone_bytes, within 1%)" \
    awk -v r="$reported" -v g="$gone_bytes" 'BEGIN { d = r - g; if (d < 0) d = -d; exit !(d <= g / 100) }'
  run_cdm verify
  expect_rc 0 "round $round: what stays verifies"
  unset used before
done
export CDM_ROOT=$SCRATCH/store CDM_STATE=$SCRATCH/state/state.db

run_cdm gc --keep 1
expect_rc 2 "--keep without --unused is a usage error"
done_testing
