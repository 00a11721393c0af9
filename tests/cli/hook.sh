# The prompt hooks decide in the shell, with builtins, whether anything cdm activate --auto
# reads could have changed, and start cdm only then. Each change below is made from another
# process between two prompts (as from another terminal: the hook learns of it from the files
# alone), and the next prompt must show it; with nothing changed, strace must see no execve
# between prompts. bash and zsh run interactive on a fifo; fish, which draws no prompt when
# reading one, emits fish_prompt where a prompt would be.
. "$TESTS_DIR/cli/lib.sh"

PATH="$(dirname "$CDM"):$PATH"
export PATH XDG_CONFIG_HOME="$HOME/.config"
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
run_cdm install "$(fixture cudnn-11.3-linux-x64-v8.2.1.32.tgz)"
V9=9.1.0.70-cuda12 V8=8.2.1.32-cuda11
P=$SCRATCH/w/proj OUTSIDE=$SCRATCH/w/outside PINNED=$SCRATCH/w/pinned
mkdir -p "$P/sub/deep" "$OUTSIDE" "$PINNED"
"$CDM" link "$P" $V9 >/dev/null 2>&1
echo $V9 >"$PINNED/.cudnn-version"
export P OUTSIDE PINNED

# DUMP FILE: what a child process sees, written whole (the test waits for the file).
DUMP=$SCRATCH/dump
cat >"$DUMP" <<'SH'
#!/bin/sh
printf '%s|%s\n' "${CDM_ACTIVE-none}" "${CDM_PROJECT-none}" >"$1.tmp" && mv "$1" "$1.old" 2>/dev/null
mv "$1.tmp" "$1"
SH
chmod +x "$DUMP"
export DUMP

have() { command -v "$1" >/dev/null 2>&1; }
STRACE=
if have strace && strace -f -o /dev/null true 2>/dev/null; then STRACE=strace; fi

# shellcheck disable=SC2153 # STATE_DB is set by lib.sh
STATE_DIR=$(dirname "$STATE_DB")
# What each step makes, and what a child then sees: the script a shell runs is these steps,
# one command a line; between lines the test changes things from outside.
# KIND:WHAT|CDM_ACTIVE|CDM_PROJECT|check: cd to WHAT, run the line WHAT in the shell, or run
# WHAT outside it (ext); then a line that does nothing (its prompt runs the hook) and a dump.
steps=(
  "cd:$P|$V9|$P|cd into a project activates it"
  "ext:$CDM link $P $V8|$V8|$P|a switch from another terminal, same folder, shows at the next prompt"
  "line:cdm link . $V9 >/dev/null 2>&1|$V9|$P|a switch from this shell (cdm link . VERSION) shows"
  "cd:$P/sub/deep|$V9|$P|cd into a subfolder keeps it"
  "ext:$CDM link $P $V8|$V8|$P|a switch from another terminal while in a subfolder shows"
  "ext:$CDM rollback $P|$V9|$P|a rollback from another terminal shows"
  "ext:ln -s $CDM_ROOT/$V8 $P/cuda_link.new && mv -T $P/cuda_link.new $P/cuda_link|$V8|$P|a link switched by hand, its pin untouched, shows"
  "ext:ln -s $CDM_ROOT/$V9 $P/cuda_link.new && mv -T $P/cuda_link.new $P/cuda_link|$V9|$P|and switched back"
  "ext:echo $V8 >$P/sub/.cudnn-version|none|none|a pin file written above the folder makes a project there (it has no link)"
  "ext:$CDM link $P/sub|$V8|$P/sub|linking it from another terminal activates it"
  "ext:$CDM unlink $P/sub; rm $P/sub/.cudnn-version|$V9|$P|unlinking it and removing its pin returns to the outer project"
  "cd:$OUTSIDE|none|none|leaving the project deactivates (no default)"
  "ext:$CDM default $V8|$V8|$STATE_DIR|a default set from another terminal activates outside projects"
  "ext:$CDM default $V9|$V9|$STATE_DIR|a default change from another terminal shows"
  "cd:$PINNED|none|none|a project with a pin and no link deactivates"
  "ext:: >$PINNED/.cudnn-version|$V9|$STATE_DIR|a pin edited to nothing is no project: the default comes back"
  "ext:echo $V8 >$PINNED/.cudnn-version|none|none|and a pin written again makes it a project again"
  "ext:$CDM default --unset|none|none|a default unset from another terminal shows"
)

# run_steps SHELL: drive the shell through the steps, checking a dump after each; then
# twenty prompts with nothing changed, between two marks in the trace.
run_steps() {
  local sh=$1 i=0 kind what want_id want_project name
  for s in "${steps[@]}"; do
    i=$((i + 1))
    kind=${s%%:*} s=${s#*:}
    IFS='|' read -r what want_id want_project name <<<"$s"
    case $kind in
    cd) say "cd '$what'" ;;
    line) say "$what" ;;
    ext) sync_shell "x$i"; bash -c "$what" >/dev/null 2>&1 ;;
    esac
    say ":"
    dump_now "d$i"
    expect_dump "$sh" "$D/d$i" "$want_id|$want_project" "$name"
  done
  say "cd '$P'"
  say ":"
  dump_now settle
  say ": >'$D/mark1'"
  for i in $(seq 20); do say ":"; done
  say ": >'$D/mark2'"
  dump_now end
}

expect_dump() { # SHELL FILE WANT WHAT
  if [ "$(cat "$2" 2>/dev/null)" = "$3" ]; then ok "$1 hook: $4"
  else not_ok "$1 hook: $4"; diag "got: $(cat "$2" 2>/dev/null)" "want: $3"; fi
}
wait_file() { local i; for i in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }
sync_shell() { say "\"\$DUMP\" '$D/$1'"; wait_file "$D/$1"; }
dump_now() { say "\"\$DUMP\" '$D/$1'"; wait_file "$D/$1"; }

# execs_between: the execve calls in the trace between the two marks' openat calls
execs_between() {
  awk -v a="$D/mark1" -v b="$D/mark2" 'index($0, a) && /openat/ {on = 1; next}
    index($0, b) && /openat/ {on = 0} on && /execve\(/' "$D/trace"
}

check_quiet() { # SHELL
  if [ -z "$STRACE" ]; then
    skip_tool "$1 hook: no process started by 20 prompts with nothing changed" "no strace, or ptrace is not allowed"
    return
  fi
  local n
  n=$(execs_between | wc -l)
  if [ -s "$D/trace" ] && grep -q "mark2" "$D/trace" && [ "$n" = 0 ]; then
    ok "$1 hook: no process started by 20 prompts with nothing changed"
  else
    not_ok "$1 hook: no process started by 20 prompts with nothing changed ($n execve)"
    diag "$(execs_between | head -5)"
  fi
  n=$(grep -c 'execve(".*/cdm"' "$D/trace")
  check "$1 hook: cdm started only where something changed ($n times for ${#steps[@]} changes)" \
    test "$n" -le $((2 * ${#steps[@]} + 4))
}

for sh in bash zsh; do
  if ! have $sh; then
    skip_tool "$sh hook: follows changes made elsewhere" "$sh is not installed"
    continue
  fi
  D=$SCRATCH/$sh
  mkdir -p "$D"
  export D
  mkfifo "$D/in"
  case $sh in
  bash) cmd=(bash --norc --noprofile -i) ;;
  zsh) cmd=(zsh -f -i) ;;
  esac
  # (LeakSanitizer cannot run under ptrace: a sanitized cdm checks no leaks in these shells)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    ${STRACE:+strace -f -o "$D/trace" -e trace=execve,openat} "${cmd[@]}" <"$D/in" >/dev/null 2>"$D/err" &
  pid=$!
  exec 3>"$D/in"
  say() { printf '%s\n' "$*" >&3; }
  say "eval \"\$(cdm hook $sh)\""
  run_steps $sh
  say "exit"
  exec 3>&-
  wait $pid
  check_quiet $sh
  if [ "$(grep -c "cdm link $PINNED" "$D/err")" = 1 ]; then ok "$sh hook: a pin without a link is reported once"
  else not_ok "$sh hook: a pin without a link is reported once"; diag "$(cat "$D/err")"; fi
done

# fish: one script; the changes are made by child processes between emitted prompts.
if have fish; then
  D=$SCRATCH/fish
  mkdir -p "$D"
  export D
  i=0
  {
    echo 'cdm hook fish | source'
    echo 'function p; emit fish_prompt; end'
    for s in "${steps[@]}"; do
      i=$((i + 1)) kind=${s%%:*} s=${s#*:}
      what=${s%%|*}
      case $kind in
      cd) echo "cd '$what'; p" ;;
      line) echo "$what; p" ;;
      ext) echo "bash -c '$what' >/dev/null 2>&1; p" ;;
      esac
      echo "\$DUMP '$D/d$i'"
    done
    echo "cd '$P'; p; \$DUMP '$D/settle'"
    echo "echo >'$D/mark1'"
    for i in $(seq 20); do echo p; done
    echo "echo >'$D/mark2'"
  } >"$D/script.fish"
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    ${STRACE:+strace -f -o "$D/trace" -e trace=execve,openat} fish --no-config "$D/script.fish" \
    >/dev/null 2>"$D/err"
  i=0
  for s in "${steps[@]}"; do
    i=$((i + 1)) s=${s#*:}
    IFS='|' read -r what want_id want_project name <<<"$s"
    expect_dump fish "$D/d$i" "$want_id|$want_project" "$name"
  done
  check_quiet fish
else
  skip_tool "fish hook: follows changes made elsewhere" "fish is not installed"
fi

# A shell started inside a project: its first prompt starts cdm (it knows nothing yet), its
# next prompts none, since `cdm hook` gave the snippet the files the first cdm reads.
# Before, the second prompt started cdm again (--quiet) for the same folder.
LOGGED=$SCRATCH/logged
mkdir -p "$LOGGED"
printf '#!/bin/sh\necho "$*" >>"%s/calls"\nexec "%s" "$@"\n' "$LOGGED" "$CDM" >"$LOGGED/cdm"
chmod +x "$LOGGED/cdm"
for sh in bash zsh; do
  have $sh || continue
  : >"$LOGGED/calls"
  printf 'eval "$(cdm hook %s)"\n:\n:\n:\n' $sh |
    (cd "$P" && PATH="$LOGGED:$PATH" $sh -i >/dev/null 2>&1)
  n=$(grep -c '^activate' "$LOGGED/calls")
  check "$sh hook: a shell started in a project starts cdm once for three prompts ($n)" test "$n" = 1
done

# A shell that cds into a project by a path through a link: cdm answers for the real path
# (getcwd), which the hook then walks too, so the prompts after the cd start no cdm. Before,
# the next prompt started cdm again (--quiet) for the same folder by its other name, and fish
# also once more at its first prompt. Each shell starts cdm twice: where it starts, and at cd.
ln -s "$P" "$SCRATCH/w/via"
for sh in bash zsh fish; do
  have $sh || continue
  : >"$LOGGED/calls"
  rm -f "$LOGGED/active"
  case $sh in
  fish)
    printf 'cdm hook fish | source\nfunction p; emit fish_prompt; end\np\ncd %s\np; p; p\n' \
      "$SCRATCH/w/via/sub" >"$LOGGED/via.fish"
    cmd=(fish --no-config "$LOGGED/via.fish") ;;
  *)
    printf 'eval "$(cdm hook %s)"\ncd %s\n:\n:\n:\n' $sh "$SCRATCH/w/via/sub" >"$LOGGED/via.$sh"
    cmd=("$sh" -i) ;;
  esac
  printf 'echo "$CDM_ACTIVE" >%s\n' "$LOGGED/active" >>"$LOGGED/via.$sh"
  if [ $sh = fish ]; then (cd "$OUTSIDE" && PATH="$LOGGED:$PATH" "${cmd[@]}" >/dev/null 2>&1)
  else (cd "$OUTSIDE" && PATH="$LOGGED:$PATH" "${cmd[@]}" <"$LOGGED/via.$sh" >/dev/null 2>&1); fi
  n=$(grep -c '^activate' "$LOGGED/calls")
  check "$sh hook: cd into a project through a link starts cdm once there ($n in all)" test "$n" = 2
  check "$sh hook: and activates the project" test "$(cat "$LOGGED/active" 2>/dev/null)" = $V9
done

done_testing
