#!/bin/bash
# What cdm's bash hook costs a prompt when nothing changed, against starting /bin/true once
# (the goal: at most 0.1x), and what it cost when it started cdm at every prompt.
# Three measures, each the median of 5 rounds of N:
#  - the hook function called N times in a loop (the check alone);
#  - N prompts of an interactive bash fed empty lines, with the hook minus without it;
#  - `cdm activate --auto` started N times (what each prompt paid before).
# A counting wrapper stands in for cdm on PATH: the hook must not start it in the rounds.
# Usage: tests/bench/hook.sh [path/to/cdm] [path/to/make_fixture] [N]
set -eu
CDM=$(realpath "${1:-build/cdm}")
[ -d "$CDM" ] && CDM=$CDM/cdm
MAKE_FIXTURE=$(realpath "${2:-build/tests/make_fixture}")
N=${3:-1000}
work=$(mktemp -d)
. "$(dirname "${BASH_SOURCE[0]}")/../rm_tree.sh"
trap 'rm_tree "$work"' EXIT
export CDM_ROOT="$work/store" CDM_CONFIG="$work/config.ini" CDM_STATE="$work/state/state.db"
: >"$CDM_CONFIG"
"$MAKE_FIXTURE" "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
"$CDM" install -q "$work/cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz"
mkdir -p "$work/p/a/b/c" "$work/bin"
"$CDM" link -q "$work/p" 9.1.0.70-cuda12
ln -s p "$work/via" # the interactive shells start in the project by a path through a link
cat >"$work/bin/cdm" <<SH
#!/bin/sh
echo >>"$work/starts"
exec "$CDM" "\$@"
SH
chmod +x "$work/bin/cdm"
export PATH="$work/bin:$PATH" N CDM
cd "$work/p/a/b/c"

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# For N calls of the hook, N starts of /bin/true and N starts of cdm, from one bash: the
# seconds of wall clock and of CPU (user and system, the children's included: this machine
# may be shared, and CPU time is what a loaded one distorts least).
loop_round() {
  bash --norc --noprofile -c '
    eval "$(cdm hook bash)"
    _cdm_hook; _cdm_hook
    : >"$0"
    TIMEFORMAT="%R %U %S"
    { time for ((i = 0; i < N; i++)); do _cdm_hook; done; } 2>&1
    { time for ((i = 0; i < N; i++)); do /bin/true; done; } 2>&1
    { time for ((i = 0; i < N; i++)); do "$CDM" activate --auto --quiet --shell bash >/dev/null; done; } 2>&1
    wc -l <"$0"' "$work/starts"
}

# Seconds for N prompts of an interactive bash, with the hook or without.
prompts_round() { # hook|none
  local t0 t1 first=:
  [ "$1" = hook ] && first='eval "$(cdm hook bash)"'
  { echo "$first"; yes '' | head -n "$N"; } >"$work/lines"
  t0=$(date +%s.%N)
  (cd "$work/via/a/b/c" && bash --norc --noprofile -i <"$work/lines" >/dev/null 2>&1)
  t1=$(date +%s.%N)
  echo "$t0 $t1"
}

hook=() true_=() auto=() hookc=() truec=() autoc=() starts=0
for _ in 1 2 3 4 5; do
  {
    read -r hr hu hs
    read -r tr tu ts
    read -r ar au as
    read -r s
  } < <(loop_round)
  starts=$((starts + s))
  hook+=("$hr") true_+=("$tr") auto+=("$ar")
  hookc+=("$(awk -v u="$hu" -v s="$hs" 'BEGIN { print u + s }')")
  truec+=("$(awk -v u="$tu" -v s="$ts" 'BEGIN { print u + s }')")
  autoc+=("$(awk -v u="$au" -v s="$as" 'BEGIN { print u + s }')")
done
h=$(printf '%s\n' "${hook[@]}" | median)
t=$(printf '%s\n' "${true_[@]}" | median)
a=$(printf '%s\n' "${auto[@]}" | median)
hc=$(printf '%s\n' "${hookc[@]}" | median)
tc=$(printf '%s\n' "${truec[@]}" | median)
ac=$(printf '%s\n' "${autoc[@]}" | median)
: >"$work/starts"
with=() without=()
for _ in 1 2 3 4 5; do
  read -r t0 t1 < <(prompts_round hook)
  with+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  read -r t0 t1 < <(prompts_round none)
  without+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
done
w=$(printf '%s\n' "${with[@]}" | median)
wo=$(printf '%s\n' "${without[@]}" | median)
prompt_starts=$(wc -l <"$work/starts")

awk -v n="$N" -v h="$h" -v t="$t" -v a="$a" -v w="$w" -v wo="$wo" -v hc="$hc" -v tc="$tc" \
  -v ac="$ac" 'BEGIN {
  printf "                                      wall clock             CPU (user+system)\n"
  printf "/bin/true, one start                 %8.1f us            %8.1f us\n", t / n * 1e6, tc / n * 1e6
  printf "hook check, one call (nothing new)   %8.1f us (%.3fx)   %8.1f us (%.3fx; goal 0.1x)\n",
    h / n * 1e6, h / t, hc / n * 1e6, hc / tc
  printf "cdm activate --auto, one start       %8.1f us (%.2fx)    %8.1f us (%.2fx: each prompt before)\n",
    a / n * 1e6, a / t, ac / n * 1e6, ac / tc
  printf "interactive prompt, hook minus none  %8.1f us (%.3fx)\n", (w - wo) / n * 1e6, (w - wo) / t
  printf "ratio to /bin/true: check %.3fx (CPU; goal 0.1x), each prompt before %.2fx\n", hc / tc, ac / tc
  exit !(hc / tc <= 0.1)
}' || echo "the hook check costs more than 0.1x of starting /bin/true" >&2
# In the timed loops the hook must not start cdm at all; an interactive shell with the hook
# starts it twice: `cdm hook bash` itself (which also says which files to compare), then at
# its first prompt. Once more per shell would mean a prompt started cdm with nothing changed.
echo "cdm started by the hook: $starts times in 5 rounds of $N calls (goal 0)"
echo "cdm started by 5 interactive shells with the hook, $N prompts each: $prompt_starts times" \
  "(goal at most 10: \`cdm hook bash\` and the first prompt)"
if [ "$starts" -ne 0 ] || [ "$prompt_starts" -gt 10 ]; then
  echo "the hook started cdm where nothing had changed" >&2
  exit 1
fi
