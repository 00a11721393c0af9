# activate, deactivate and the cd hooks in real shells: bash, zsh, dash (as sh), fish.
# Each shell evaluates cdm's output; a child process (env) shows what it exported.
. "$TESTS_DIR/cli/lib.sh"

PATH="$(dirname "$CDM"):$PATH"
export PATH
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
run_cdm install "$(fixture cudnn-11.3-linux-x64-v8.2.1.32.tgz)"

# A project folder with every awkward character: space, both quotes, $ % ^ & backtick ;
# backslash and non-ASCII (é, a typographic quote, ü).
awk_name=$'a b\'c"d$e%f^g&h`i;j\\k \xc3\xa9\xe2\x80\x99\xc3\xbc'
mkdir -p "$SCRATCH/w/$awk_name" "$SCRATCH/w/two/sub" "$SCRATCH/w/pinned" "$SCRATCH/w/none"
P1=$(cd "$SCRATCH/w/$awk_name" && pwd -P)
P2=$(cd "$SCRATCH/w/two" && pwd -P)
P3=$(cd "$SCRATCH/w/pinned" && pwd -P)
NONE=$(cd "$SCRATCH/w/none" && pwd -P)
ln -s "$CDM_ROOT/9.1.0.70-cuda12" "$P1/cuda_link"
echo 9.1.0.70-cuda12 >"$P1/.cudnn-version"
ln -s "$CDM_ROOT/8.2.1.32-cuda11" "$P2/cuda_link"
echo 8.2.1.32-cuda11 >"$P2/.cudnn-version"
echo 9.1.0.70-cuda12 >"$P3/.cudnn-version"
"$CDM" link "$P2" 8.2.1.32-cuda11 >/dev/null 2>&1 # its first generation, for rollback
export P1 P2 P3 NONE

# dump FILE: what a child process sees
DUMP="$SCRATCH/dump"
cat >"$DUMP" <<'SH'
#!/bin/sh
env | grep -E '^(CUDA_PATH|CUDNN_PATH|CUDNN_ROOT|CUDNN_ROOT_DIR|LD_LIBRARY_PATH|CDM_ACTIVE|CDM_PROJECT|CDM_PATH_ENTRY|CDM_SAVED_[A-Z_]*)=' | LC_ALL=C sort >"$1"
SH
chmod +x "$DUMP"
export DUMP

expected() { # expected STAGE: the dump a correct shell produces
  case $1 in
  one) printf '%s\n' "CDM_ACTIVE=9.1.0.70-cuda12" "CDM_PATH_ENTRY=$P1/cuda_link/lib" \
    "CDM_PROJECT=$P1" "CDM_SAVED_CUDA_PATH=unset" "CDM_SAVED_CUDNN_PATH=set:" \
    "CDM_SAVED_LD_LIBRARY_PATH=set:/orig/x" "CUDA_PATH=$P1/cuda_link" "CUDNN_PATH=$P1/cuda_link" \
    "CDM_SAVED_CUDNN_ROOT=unset" "CDM_SAVED_CUDNN_ROOT_DIR=unset" \
    "CUDNN_ROOT=$P1/cuda_link" "CUDNN_ROOT_DIR=$P1/cuda_link" \
    "LD_LIBRARY_PATH=$P1/cuda_link/lib:/orig/x" ;;
  two) printf '%s\n' "CDM_ACTIVE=8.2.1.32-cuda11" "CDM_PATH_ENTRY=$P2/cuda_link/lib64" \
    "CDM_PROJECT=$P2" "CDM_SAVED_CUDA_PATH=unset" "CDM_SAVED_CUDNN_PATH=set:" \
    "CDM_SAVED_LD_LIBRARY_PATH=set:/orig/x" "CUDA_PATH=$P2/cuda_link" "CUDNN_PATH=$P2/cuda_link" \
    "CDM_SAVED_CUDNN_ROOT=unset" "CDM_SAVED_CUDNN_ROOT_DIR=unset" \
    "CUDNN_ROOT=$P2/cuda_link" "CUDNN_ROOT_DIR=$P2/cuda_link" \
    "LD_LIBRARY_PATH=$P2/cuda_link/lib64:/orig/x" ;;
  two91) printf '%s\n' "CDM_ACTIVE=9.1.0.70-cuda12" "CDM_PATH_ENTRY=$P2/cuda_link/lib" \
    "CDM_PROJECT=$P2" "CDM_SAVED_CUDA_PATH=unset" "CDM_SAVED_CUDNN_PATH=set:" \
    "CDM_SAVED_LD_LIBRARY_PATH=set:/orig/x" "CUDA_PATH=$P2/cuda_link" "CUDNN_PATH=$P2/cuda_link" \
    "CDM_SAVED_CUDNN_ROOT=unset" "CDM_SAVED_CUDNN_ROOT_DIR=unset" \
    "CUDNN_ROOT=$P2/cuda_link" "CUDNN_ROOT_DIR=$P2/cuda_link" \
    "LD_LIBRARY_PATH=$P2/cuda_link/lib:/orig/x" ;;
  orig) printf '%s\n' "CUDNN_PATH=" "LD_LIBRARY_PATH=/orig/x" ;;
  esac | LC_ALL=C sort
}

# same STAGE FILE "what"
same() {
  if [ "$(expected "$1")" = "$(cat "$2" 2>/dev/null)" ]; then
    ok "$3"
  else
    not_ok "$3"
    diag "got:" "$(cat "$2" 2>/dev/null)" "want:" "$(expected "$1")"
  fi
}

have() { command -v "$1" >/dev/null 2>&1; }

posix_cycle='
export LD_LIBRARY_PATH=/orig/x CUDNN_PATH=
unset CUDA_PATH
cd "$P1" && eval "$(cdm activate)" && "$DUMP" "$D/1"
eval "$(cdm activate)" && cd "$P2/sub" && eval "$(cdm activate)" && "$DUMP" "$D/2"
eval "$(cdm deactivate)" && "$DUMP" "$D/3"
'
fish_cycle='
set -gx LD_LIBRARY_PATH /orig/x; set -gx CUDNN_PATH ""; set -e CUDA_PATH
cd $P1; and cdm activate --shell fish | source; and $DUMP $D/1
cdm activate --shell fish | source; cd $P2/sub; cdm activate --shell fish | source; $DUMP $D/2
cdm deactivate --shell fish | source; $DUMP $D/3
'

for sh in bash zsh dash fish; do
  if ! have "$sh"; then
    skip_tool "$sh: activate, again, another project, deactivate" "$sh is not installed"
    continue
  fi
  D="$SCRATCH/out-$sh"
  mkdir -p "$D"
  export D
  case $sh in
  fish) fish --no-config -c "$fish_cycle" 2>"$D/err" ;;
  dash) CDM_SHELL='sh' dash -c "$posix_cycle" 2>"$D/err" ;;
  *) CDM_SHELL=$sh "$sh" -c "$posix_cycle" 2>"$D/err" ;;
  esac
  same one "$D/1" "$sh: activate sets CUDA_PATH, CUDNN_PATH, LD_LIBRARY_PATH through the link"
  same two "$D/2" "$sh: activating again and then another project leaves no duplicate"
  same orig "$D/3" "$sh: deactivate restores exactly (unset stays unset, empty stays empty)"
  [ -s "$D/err" ] && diag "$sh stderr: $(cat "$D/err")"
done

# The hooks: the active project follows cd, in and out of projects, and the current
# project's link: a link, rollback or unlink there shows at the next prompt.
hook_check() { # SHELL DIR
  same one "$2/a" "$1 hook: cd into a project activates it"
  same orig "$2/b" "$1 hook: cd out of any project deactivates"
  same two "$2/c" "$1 hook: cd into another project's subfolder switches"
  same two91 "$2/e" "$1 hook: cdm link in the current project shows at the next prompt (lib64 to lib)"
  same two "$2/f" "$1 hook: and so does cdm rollback"
  same orig "$2/g" "$1 hook: cdm unlink deactivates at the next prompt"
  same two "$2/h" "$1 hook: and linking again activates"
  if grep -q "cdm link $P3" "$2/err"; then ok "$1 hook: a pin without a link says which cdm link to run"
  else not_ok "$1 hook: a pin without a link says which cdm link to run"; diag "$(cat "$2/err")"; fi
  if [ "$(grep -c "cdm link $P3" "$2/err")" = 1 ]; then ok "$1 hook: says it once, not at every prompt"
  else not_ok "$1 hook: says it once, not at every prompt"; diag "$(cat "$2/err")"; fi
  same orig "$2/d" "$1 hook: and leaves nothing active"
}
# One command a line: the interactive shells run the hook before each prompt.
posix_hook_moves='cd "$P1"
"$DUMP" "$D/a"
cd "$NONE"
"$DUMP" "$D/b"
cd "$P2/sub"
"$DUMP" "$D/c"
cdm link "$P2" 9.1.0.70-cuda12 >/dev/null 2>&1
"$DUMP" "$D/e"
cdm rollback "$P2" >/dev/null 2>&1
"$DUMP" "$D/f"
cdm unlink "$P2" >/dev/null 2>&1
"$DUMP" "$D/g"
cdm link "$P2" >/dev/null 2>&1
"$DUMP" "$D/h"
cd "$P3"
true
"$DUMP" "$D/d"
'
if have bash; then
  D="$SCRATCH/hook-bash"; mkdir -p "$D"; export D
  # An interactive bash reading stdin runs PROMPT_COMMAND before each prompt, as at a terminal.
  printf '%s\n' 'export LD_LIBRARY_PATH=/orig/x CUDNN_PATH=; unset CUDA_PATH' \
    'eval "$(cdm hook bash)"' "$posix_hook_moves" |
    HOME="$SCRATCH/home" bash --norc --noprofile -i >/dev/null 2>"$D/err"
  hook_check bash "$D"
else
  skip_tool "bash hook" "bash is not installed"
fi
if have zsh; then
  D="$SCRATCH/hook-zsh"; mkdir -p "$D"; export D
  # Interactive too, for precmd; chpwd fires on each cd.
  printf '%s\n' 'export LD_LIBRARY_PATH=/orig/x CUDNN_PATH=; unset CUDA_PATH' \
    'eval "$(cdm hook zsh)"' "$posix_hook_moves" |
    HOME="$SCRATCH/home" zsh -f -i >/dev/null 2>"$D/err"
  hook_check zsh "$D"
else
  skip_tool "zsh hook" "zsh is not installed"
fi
if have fish; then
  D="$SCRATCH/hook-fish"; mkdir -p "$D"; export D
  # fish reading a pipe draws no prompt: the test emits fish_prompt where one would be.
  fish --no-config -c 'set -gx LD_LIBRARY_PATH /orig/x; set -gx CUDNN_PATH ""; set -e CUDA_PATH
cdm hook fish | source
function p; emit fish_prompt; end
cd $P1; p; $DUMP $D/a; cd $NONE; p; $DUMP $D/b; cd $P2/sub; p; $DUMP $D/c
cdm link $P2 9.1.0.70-cuda12 >/dev/null 2>&1; p; $DUMP $D/e
cdm rollback $P2 >/dev/null 2>&1; p; $DUMP $D/f
cdm unlink $P2 >/dev/null 2>&1; p; $DUMP $D/g
cdm link $P2 >/dev/null 2>&1; p; $DUMP $D/h
cd $P3; p; true; p; $DUMP $D/d' 2>"$D/err"
  hook_check fish "$D"
else
  skip_tool "fish hook" "fish is not installed"
fi

# Choosing the shell and the errors.
cd "$P1" || exit 1
OUT=$(unset CDM_SHELL; SHELL=/usr/bin/fish "$CDM" activate 2>/dev/null)
check "without --shell or CDM_SHELL, \$SHELL names the shell" \
  test "${OUT%%CDM_SAVED*}" = "set -gx "
OUT=$(CDM_SHELL=pwsh SHELL=/bin/bash "$CDM" activate --shell fish 2>/dev/null)
check "--shell wins over CDM_SHELL" test "${OUT%%CDM_SAVED*}" = "set -gx "
OUT=$(CDM_SHELL=pwsh SHELL=/bin/bash "$CDM" activate 2>/dev/null)
check "CDM_SHELL wins over \$SHELL" test "${OUT%%CDM_SAVED*}" = '$env:'
run_cdm activate --shell tcsh
expect_rc 2 "an unknown shell is a usage error"
expect_err "one of: pwsh powershell cmd bash zsh fish sh" "listing the shells cdm writes for"
run_cdm activate --shell cmd
expect_rc 1 "cmd cannot take a path with a double quote"
check "and nothing is printed for it to run" test -z "$OUT"
cd "$NONE" || exit 1
run_cdm activate --shell bash
expect_rc 1 "outside any project activate fails"
expect_err "run 'cdm link" "saying which cdm link to run"
check "printing nothing to evaluate" test -z "$OUT"
run_cdm activate --shell bash "$P3"
expect_rc 1 "a project with a pin but no link fails"
expect_err "pins 9.1.0.70-cuda12 but has no 'cuda_link' link; run 'cdm link $P3'" \
  "naming the pin and the cdm link to run"
run_cdm deactivate --shell bash
expect_rc 0 "deactivate with nothing active succeeds"
check "and prints nothing to evaluate" test -z "$OUT"
run_cdm activate --shell bash --json "$P1"
check "activate --json describes the activation" \
  test "$(json 'd["id"], d["environment"]["CUDA_PATH"] == d["link"]')" = "('9.1.0.70-cuda12', True)"
run_cdm hook tcsh
expect_rc 2 "hook for an unknown shell is a usage error"

# The prompt hook's common case, nothing changed since the last prompt: decided from the
# environment and the link alone, with neither database opened (the hook runs at every
# prompt), and nothing printed for the shell to evaluate.
cd "$P1" || exit 1
eval "$("$CDM" activate --shell bash "$P1")"
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
  trace=$SCRATCH/trace-auto
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -o "$trace" -e trace=openat,open,stat,newfstatat "$CDM" activate --auto --shell bash \
    >"$SCRATCH/auto.out" 2>"$SCRATCH/auto.err"
  check "activate --auto in the active project prints nothing" test ! -s "$SCRATCH/auto.out"
  if grep -qE 'cdm\.db|state\.db' "$trace"; then
    not_ok "and opens no database"
    diag "$(grep -E 'cdm\.db|state\.db' "$trace")"
  else
    ok "and opens no database"
  fi
  ln -sfn "$CDM_ROOT/8.2.1.32-cuda11" "$P1/cuda_link.new" && mv -T "$P1/cuda_link.new" "$P1/cuda_link"
  OUT=$("$CDM" activate --auto --shell bash 2>/dev/null)
  check "after the link changed, it activates the new target" \
    grep -q "CDM_ACTIVE='8.2.1.32-cuda11'" <<<"$OUT"
  ln -sfn "$CDM_ROOT/9.1.0.70-cuda12" "$P1/cuda_link.new" && mv -T "$P1/cuda_link.new" "$P1/cuda_link"
else
  skip "activate --auto opens no database" "no strace, or ptrace is not allowed here"
fi

done_testing
