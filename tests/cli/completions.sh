# The completion scripts load in their shells and complete a command, an option and an
# installed version (the candidates come from `cdm complete`).
. "$TESTS_DIR/cli/lib.sh"

PATH="$(dirname "$CDM"):$PATH"
export PATH
C="$TESTS_DIR/../completions"
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"

run_cdm complete --current=-- -- install
check "cdm complete lists a command's options once each, from its usage and help" \
  test "$(printf '%s\n' "$OUT" | sort | uniq -d)" = "" -a -n "$(printf '%s\n' "$OUT" | grep -x -- --sha256)"
run_cdm complete --current= -- --root "$CDM_ROOT" remove
check "cdm complete offers installed versions from the index" \
  test "$OUT" = 9.1.0.70-cuda12
run_cdm complete --current= -- install
check "an archive argument gets no candidates (the shell completes file names)" test -z "$OUT"
run_cdm complete --current= -- doctor --cudnn
check "an option's value completes by its row: doctor --cudnn offers installed versions" \
  test "$OUT" = 9.1.0.70-cuda12
# shellcheck disable=SC2097,SC2098 # --root names the store of the outer CDM_ROOT, on purpose
CDM_ROOT="$SCRATCH/no-store" run_cdm complete --current=9 -- "--root=$CDM_ROOT" verify
check "--root=DIR on the line picks the store whose versions are offered" \
  test "$OUT" = 9.1.0.70-cuda12
run_cdm complete --current= -- activate --shell
check "--shell offers the shells cdm writes for" \
  test "$(printf '%s\n' "$OUT" | sort | tr '\n' ' ')" = "bash cmd fish powershell pwsh sh zsh "
run_cdm complete --current= -- hook
check "hook offers the shells it has snippets for" test "$(printf '%s\n' "$OUT" | tr '\n' ' ')" = "bash zsh fish pwsh "

if command -v bash >/dev/null; then
  bc() { bash --norc --noprofile -c '. "$1"; shift; complete -p cdm >/dev/null || exit 9
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cdm; printf "%s\n" "${COMPREPLY[@]}"' - "$C/cdm.bash" "$@"; }
  check "bash: complete -p shows cdm after loading" \
    bash --norc --noprofile -c ". '$C/cdm.bash' && complete -p cdm | grep -q -- '-F _cdm'"
  check "bash: a command (cdm deac -> deactivate)" test "$(bc cdm deac)" = deactivate
  check "bash: an option (cdm activate --sh -> --shell)" test "$(bc cdm activate --sh)" = --shell
  check "bash: a shell (cdm activate --shell fi -> fish)" test "$(bc cdm activate --shell 'fi')" = fish
  check "bash: a version (cdm remove 9 -> 9.1.0.70-cuda12)" test "$(bc cdm remove 9)" = 9.1.0.70-cuda12
else
  skip_tool "bash completion" "bash is not installed"
fi

if command -v fish >/dev/null; then
  fc() { fish --no-config -c "source '$C/cdm.fish'; complete -C '$1'" 2>&1 | cut -f1; }
  check "fish: a command (cdm deac -> deactivate)" test "$(fc 'cdm deac')" = deactivate
  check "fish: an option (cdm activate --sh -> --shell)" test "$(fc 'cdm activate --sh')" = --shell
  check "fish: a version (cdm remove 9 -> 9.1.0.70-cuda12)" test "$(fc 'cdm remove 9')" = 9.1.0.70-cuda12
else
  skip_tool "fish completion" "fish is not installed"
fi

if command -v zsh >/dev/null; then
  # compinit finds _cdm on fpath; compadd is replaced to see what _cdm offers.
  zc() { zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$HOME/.zcd"
    [[ $_comps[cdm] == _cdm ]] || { print -r -- "not registered"; exit 1; }
    compadd() { print -rl -- "${@[-1]}" "${(@P)${@[-1]}}" | tail -n +2; }
    _files() { print -r -- "(files)"; }
    shift; words=("$@"); CURRENT=$#; _cdm' - "$C" "$@" 2>&1; }
  check "zsh: compinit registers _cdm; a command (cdm deac -> deactivate)" test "$(zc cdm deac)" = deactivate
  check "zsh: an option (cdm activate --sh -> --shell)" test "$(zc cdm activate --sh)" = --shell
  check "zsh: a version (cdm remove 9 -> 9.1.0.70-cuda12)" test "$(zc cdm remove 9)" = 9.1.0.70-cuda12
  check "zsh: an archive falls back to file names" test "$(zc cdm install a)" = "(files)"
else
  skip_tool "zsh completion" "zsh is not installed"
fi

done_testing
