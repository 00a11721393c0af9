# link, rollback and unlink inside a project without naming it; the pin file's text; the
# .gitignore hint (checked against git itself where git is installed).
. "$TESTS_DIR/cli/lib.sh" || exit 1

for v in 9.1.0.70 9.2.0.82; do
  run_cdm install "$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz")"
done
A=9.1.0.70-cuda12 B=9.2.0.82-cuda12
P=$SCRATCH/p
mkdir -p "$P/src/deep"
P=$(cd "$P" && pwd -P)
in_p() { OUT=$(cd "$P/src/deep" && "$CDM" "$@" 2>"$SCRATCH/stderr"); RC=$?; ERR=$(cat "$SCRATCH/stderr"); }

# ---- the current project by default ---------------------------------------------------------
run_cdm link "$P" 9.1
in_p link 9.2
expect_rc 0 "'cdm link 9.2' in a project's subfolder links that project"
check "to 9.2" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$B"
in_p rollback
expect_rc 0 "'cdm rollback' without PROJECT rolls the nearest project back"
check "to 9.1" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$A"
in_p unlink
expect_rc 0 "'cdm unlink' without PROJECT unlinks it"
check "the link is gone, the pin stays" test ! -L "$P/cuda_link" -a -f "$P/.cudnn-version"
in_p link
expect_rc 0 "'cdm link' without arguments links the pinned version"
check "again 9.1" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$A"
mkdir -p "$SCRATCH/none"
OUT=$(cd "$SCRATCH/none" && "$CDM" link 9.1 2>&1)
RC=$?
check "outside any project 'cdm link 9.1' fails and says to name the folder" \
  sh -c 'test "$1" = 1 && printf "%s" "$2" | grep -q "no project in .* run '"'"'cdm link \. VERSION'"'"'"' _ "$RC" "$OUT"
check "and links nothing there" test ! -e "$SCRATCH/none/cuda_link"

# ---- the pin keeps the user's text --------------------------------------------------------
Q=$SCRATCH/clone
mkdir -p "$Q"
echo 9.1 >"$Q/.cudnn-version"
OUT=$(cd "$Q" && "$CDM" link . 2>&1)
check "'cdm link .' resolves a pin of 9.1" test "$(readlink "$Q/cuda_link")" = "$CDM_ROOT/$A"
check "and leaves the pin's text 9.1 as written" test "$(cat "$Q/.cudnn-version")" = 9.1
run_cdm link "$Q" 9.1.0
check "linking a version the pin names keeps it too" test "$(cat "$Q/.cudnn-version")" = 9.1
run_cdm link "$Q" --pin-exact
expect_rc 0 "--pin-exact"
check "writes the full id" test "$(cat "$Q/.cudnn-version")" = "$A"
echo 9.1 >"$Q/.cudnn-version"
run_cdm link "$Q" 9.2
check "a version the pin does not name replaces it with the full id" \
  test "$(cat "$Q/.cudnn-version")" = "$B"
echo nine >"$Q/.cudnn-version"
run_cdm link "$Q"
expect_rc 1 "a pin that is no version fails (not a usage error)"
expect_err "the pin file '$Q/.cudnn-version' says 'nine', which is not a version" \
  "naming the pin file and its text"

# ---- .gitignore ---------------------------------------------------------------------------
# hint_for GITIGNORE: link a fresh project in a fresh work tree ($n: raise it first) whose
# top .gitignore holds the given lines (the project is top/sub); prints yes when cdm hinted.
n=1
hint_for() {
  local top="$SCRATCH/git$n"
  mkdir -p "$top/.git/info" "$top/sub"
  printf '%s' "$1" >"$top/.gitignore"
  run_cdm link "$top/sub" 9.1
  if printf '%s' "$ERR" | grep -q "hint: .* git does not ignore 'cuda_link'; add the line '/cuda_link'"; then
    echo yes
  else
    echo no
  fi
}
check "a link new in a git work tree that does not ignore it gets a hint" test "$(hint_for '')" = yes
run_cdm link "$SCRATCH/git1/sub" 9.2
check "switching it says nothing more" sh -c '! printf "%s" "$1" | grep -q hint' _ "$ERR"
run_cdm link "$P" 9.2
check "outside a git work tree there is no hint" sh -c '! printf "%s" "$1" | grep -q hint' _ "$ERR"
# Each case: the .gitignore text and whether git ignores sub/cuda_link (a symbolic link:
# a file to git, so "cuda_link/" does not match it).
cases=("cuda_link|yes" "/cuda_link|no" "/sub/cuda_link|yes" "cuda_link/|no" "cuda_*|yes"
  "*_link\n!cuda_link|no" "sub/|yes" "**/cuda_link|yes" "# cuda_link|no" "c[uv]da_lin?|yes")
for c in "${cases[@]}"; do
  # shellcheck disable=SC2059 # the case is a format: its \n is a new line
  text=$(printf "${c%|*}")
  want=${c#*|}
  n=$((n + 1))
  got=$(hint_for "$text")
  [ "$got" = yes ] && ignored=no || ignored=yes
  check "a .gitignore of '${c%|*}': ignored $want" test "$ignored" = "$want"
  if command -v git >/dev/null; then
    top="$SCRATCH/git$n"
    git -C "$top" init -q 2>/dev/null
    if git -C "$top" check-ignore -q sub/cuda_link; then by_git=yes; else by_git=no; fi
    check "  and git check-ignore agrees" test "$by_git" = "$ignored"
  fi
done

done_testing
