# Every shell script of the repository passes ShellCheck with the settings of .shellcheckrc
# (the 'shellcheck' test, suite 'lint'): one result a script, its findings shown when it
# fails. The scripts are the repository's files (git's tracked and new ones, not the ignored
# build folders and downloaded subprojects) named *.sh or *.bash or starting with a sh or
# bash shebang, but not tests/golden/ (cdm's own activation text, compared byte for byte by
# shell_text.sh; it comes from src/) nor the zsh and fish scripts (not ShellCheck's
# languages). A finding meant in one place is disabled on the line before it, with why.
# Without shellcheck the test skips, saying so; under CI=true (.ci/run) that fails.
. "$TESTS_DIR/cli/lib.sh" || exit 1

root=$(cd "$TESTS_DIR/.." && pwd) || exit 1
cd "$root" || exit 1
if ! command -v shellcheck >/dev/null; then
  skip_tool "every shell script passes shellcheck" "shellcheck is not installed"
  done_testing
  exit
fi

# the repository's files, NUL-separated: git's list where this is a git checkout, else every
# file but those .gitignore leaves out
repo_files() {
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -z --cached --others --exclude-standard
  else
    find . \( -name .git -o -path './build*' -o -path './.gl' -o -path './.whl' -o -path './.gpu' \
      -o -path './.ci-logs' -o \( -type d -path './subprojects/*' ! -path './subprojects/*/*' \
      ! -name inih ! -name packagefiles \) \) -prune -o -type f -printf '%P\0'
  fi
}

# is_script FILE: a sh or bash script, by its name or its shebang
is_script() {
  case $1 in
  tests/golden/*) return 1 ;;
  *.sh | *.bash) return 0 ;;
  esac
  local first
  first=$(head -n 1 -- "$1" 2>/dev/null | tr -d '\0')
  [[ $first =~ ^#![[:space:]]*(/usr)?/bin/(env[[:space:]]+)?(ba|da)?sh([[:space:]]|$) ]]
}

scripts=()
while IFS= read -r -d '' f; do
  [ -f "$f" ] && [ ! -L "$f" ] && is_script "$f" && scripts+=("$f")
done < <(repo_files | sort -z)
check "the repository's shell scripts are found (${#scripts[@]})" test "${#scripts[@]}" -gt 10
diag "$(shellcheck --version | sed -n 's/^version: /shellcheck /p')"

# each script through shellcheck, as many at once as there are processors
jobs=$(nproc 2>/dev/null || echo 2)
for i in "${!scripts[@]}"; do
  (
    shellcheck -f gcc -- "${scripts[i]}" >"$SCRATCH/findings.$i" 2>&1
    echo $? >"$SCRATCH/status.$i"
  ) &
  [ $(((i + 1) % jobs)) -ne 0 ] || wait
done
wait
for i in "${!scripts[@]}"; do
  if [ "$(cat "$SCRATCH/status.$i" 2>/dev/null)" = 0 ]; then
    ok "shellcheck ${scripts[i]}"
  else
    not_ok "shellcheck ${scripts[i]}"
    diag "$(cat "$SCRATCH/findings.$i")" \
      "(fix the script, or, where the construct is meant, disable the code on the line before with the reason)"
  fi
done

done_testing
