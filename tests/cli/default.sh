# cdm default: the version used outside any project, activation and the bash hook using
# it, --json with "changed", --dry-run, and --persist / --unpersist round-tripping the
# user's environment files byte for byte.
. "$TESTS_DIR/cli/lib.sh"

# shellcheck disable=SC2153 # STATE_DB is set by lib.sh
STATE_DIR=$(dirname "$STATE_DB")
export XDG_CONFIG_HOME="$SCRATCH/home/.config"
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
run_cdm install "$(fixture cudnn-11.3-linux-x64-v8.2.1.32.tgz)"
out=$SCRATCH/outside
mkdir -p "$out"
cd "$out" || exit 1

run_cdm --json default
expect_rc 0 "cdm default with none set succeeds"
check "and says so in JSON (default null, changed false)" \
  test "$(json 'str(d["default"]) + " " + str(d["changed"])')" = "None False"
run_cdm activate --shell bash
expect_rc 1 "activate outside any project without a default fails"
expect_err "cdm default VERSION" "naming cdm default"

run_cdm --json default 9.1 --dry-run
check "--dry-run says it would change" test "$(json 'd["changed"]')" = True
check "and changes nothing" test ! -e "$STATE_DIR/default"
run_cdm --json default 9.1
expect_rc 0 "cdm default 9.1 sets it"
check "changed true, the full id" \
  test "$(json 'd["default"] + " " + str(d["changed"])')" = "9.1.0.70-cuda12 True"
check "kept beside the user's state, not in the store" \
  grep -qx 'id=9.1.0.70-cuda12' "$STATE_DIR/default"
run_cdm --json default 9.1.0.70
check "again: changed false" test "$(json 'd["changed"]')" = False
run_cdm default 7.0
expect_rc 1 "a version not installed is refused"
check "and the default stays" grep -qx 'id=9.1.0.70-cuda12' "$STATE_DIR/default"

run_cdm activate --shell bash
expect_rc 0 "activate outside any project uses the default"
check "CUDA_PATH is the install's folder" \
  grep -qF "export CUDA_PATH='$CDM_ROOT/9.1.0.70-cuda12'" <<<"$OUT"
check "its lib folder leads LD_LIBRARY_PATH" \
  grep -qF "export LD_LIBRARY_PATH='$CDM_ROOT/9.1.0.70-cuda12/lib'" <<<"$OUT"

# A project still wins over the default.
proj=$SCRATCH/proj
mkdir -p "$proj"
"$CDM" link "$proj" 8.2 >/dev/null 2>&1
run_cdm activate --shell bash "$proj"
check "inside a project its own version is activated" grep -q "CDM_ACTIVE='8.2.1.32-cuda11'" <<<"$OUT"

# The bash hook: outside -> default, into the project -> project, out -> default again,
# default changed -> follows at the next prompt.
dump='printf "%s|%s\n" "${CDM_ACTIVE-unset}" "${CUDA_PATH-unset}"'
if command -v bash >/dev/null; then
  printf '%s\n' 'unset CUDA_PATH' 'eval "$(cdm hook bash)"' "cd '$out'" "$dump" \
    "cd '$proj'" "$dump" "cd '$out'" "$dump" "cdm default 8.2 >/dev/null 2>&1" "true" "$dump" \
    "cdm default --unset >/dev/null 2>&1" "true" "$dump" |
    PATH="$(dirname "$CDM"):$PATH" bash --norc --noprofile -i >"$SCRATCH/hook.out" 2>"$SCRATCH/hook.err"
  want="9.1.0.70-cuda12|$CDM_ROOT/9.1.0.70-cuda12
8.2.1.32-cuda11|$proj/cuda_link
9.1.0.70-cuda12|$CDM_ROOT/9.1.0.70-cuda12
8.2.1.32-cuda11|$CDM_ROOT/8.2.1.32-cuda11
unset|unset"
  if [ "$(cat "$SCRATCH/hook.out")" = "$want" ]; then
    ok "the bash hook activates the default outside projects and follows its changes"
  else
    not_ok "the bash hook activates the default outside projects and follows its changes"
    diag "got: $(cat "$SCRATCH/hook.out")" "want: $want" "stderr: $(cat "$SCRATCH/hook.err")"
  fi
else
  skip_tool "the bash hook uses the default" "bash is not installed"
fi
"$CDM" default 9.1 >/dev/null 2>&1

# --persist / --unpersist: an existing ~/.profile without a final line break comes back
# byte for byte; the environment.d file is ours alone and goes.
printf 'export EDITOR=vi\n# no final line break' >"$HOME/.profile"
cp "$HOME/.profile" "$SCRATCH/profile.before"
envd=$XDG_CONFIG_HOME/environment.d/60-cdm-default.conf
run_cdm --json default --persist --dry-run
check "persist --dry-run: would change, wrote nothing" \
  test "$(json 'd["changed"]')" = True -a ! -e "$envd"
# shellcheck disable=SC2088 # the ~ is text, in the check's name
check "and ~/.profile is untouched" cmp -s "$HOME/.profile" "$SCRATCH/profile.before"
run_cdm --json default --persist
expect_rc 0 "cdm default --persist"
check "changed true, persisted" test "$(json 'str(d["changed"]) + str(d["persisted"])')" = TrueTrue
check "environment.d has CUDA_PATH" grep -qx "CUDA_PATH=$CDM_ROOT/9.1.0.70-cuda12" "$envd"
# shellcheck disable=SC2088 # the ~ is text, in the check's name
check "~/.profile has the block, the user's lines kept" \
  grep -qx 'export EDITOR=vi' "$HOME/.profile"
got=$(env -i HOME="$HOME" LD_LIBRARY_PATH=/x sh -c '. "$HOME/.profile"; printf "%s|%s" "$CUDA_PATH" "$LD_LIBRARY_PATH"')
check "a login shell gets CUDA_PATH and the lib folder first" \
  test "$got" = "$CDM_ROOT/9.1.0.70-cuda12|$CDM_ROOT/9.1.0.70-cuda12/lib:/x"
run_cdm --json default --persist
check "persist again: changed false" test "$(json 'd["changed"]')" = False
run_cdm --json default 8.2
check "a new default updates what was persisted" \
  grep -qx "CUDA_PATH=$CDM_ROOT/8.2.1.32-cuda11" "$envd"
check "in ~/.profile too, one block" test "$(grep -c '>>> cdm default' "$HOME/.profile")" = 1
run_cdm --json default --unpersist
expect_rc 0 "cdm default --unpersist"
check "changed true, persisted false" \
  test "$(json 'str(d["changed"]) + str(d["persisted"])')" = TrueFalse
check "the environment.d file is gone" test ! -e "$envd"
# shellcheck disable=SC2088 # the ~ is text, in the check's name
check "~/.profile is back byte for byte" cmp -s "$HOME/.profile" "$SCRATCH/profile.before"
run_cdm --json default --unpersist
check "unpersist again: changed false" test "$(json 'd["changed"]')" = False

# A line of the user's inside cdm's block stays; a begin line without its end is refused.
cp "$SCRATCH/profile.before" "$HOME/.profile"
"$CDM" default --persist >/dev/null 2>&1
sed -i '/^# <<< cdm default <<</i export MY_OWN=1' "$HOME/.profile"
run_cdm default --unpersist
expect_rc 0 "unpersist with a line of the user's inside cdm's block"
check "keeps that line" grep -qx 'export MY_OWN=1' "$HOME/.profile"
check "and takes only cdm's lines out" sh -c '! grep -q "cdm default\|CUDNN_PATH" "$1"' _ "$HOME/.profile"
printf 'export A=1\n# >>> cdm default >>>\nexport MINE=2\n' >"$HOME/.profile"
cp "$HOME/.profile" "$SCRATCH/marker.before"
run_cdm default --persist
expect_rc 2 "a begin line of cdm's block without its end line is refused"
expect_err "cannot change '$HOME/.profile': it has a line '# >>> cdm default >>>' without its pair" \
  "naming the file and the line"
# shellcheck disable=SC2088 # the ~ is text, in the check's name
check "and ~/.profile is untouched" cmp -s "$HOME/.profile" "$SCRATCH/marker.before"
cp "$SCRATCH/profile.before" "$HOME/.profile"

# Without a ~/.profile, persist makes one and unpersist removes it.
rm -f "$HOME/.profile"
"$CDM" default --persist >/dev/null 2>&1
check "persist made ~/.profile" test -s "$HOME/.profile"
"$CDM" default --unset >/dev/null 2>&1
check "--unset takes the persist out too: no ~/.profile left" test ! -e "$HOME/.profile"
check "and no environment.d file" test ! -e "$envd"
check "and no default" test ! -e "$STATE_DIR/default"

# A new default whose persist fails (~/.profile is a folder) is not taken either.
"$CDM" default 9.1 >/dev/null 2>&1
mkdir "$HOME/.profile"
run_cdm default 8.2 --persist
expect_rc 1 "a persist that cannot write ~/.profile fails"
run_cdm --json default
check "and the default stays what it was" test "$(json 'd["default"]')" = 9.1.0.70-cuda12
check "with nothing persisted" test ! -e "$envd" -a ! -e "$STATE_DIR/persisted"
rmdir "$HOME/.profile"

# The default's install removed: activation outside projects says what to do.
"$CDM" default 8.2 >/dev/null 2>&1
"$CDM" unlink "$proj" >/dev/null 2>&1
"$CDM" remove 8.2 >/dev/null 2>&1
run_cdm activate --shell bash
expect_rc 1 "a default whose install was removed is not activated"
expect_err "default 8.2.1.32-cuda11: it is not installed" "saying so"

# A store shared read-only: the default is the user's, so setting it writes nothing there.
before=$(tree_digest "$CDM_ROOT" | grep -v ' ./cdm.db')
run_cdm default 9.1
expect_rc 0 "cdm default on a store it does not write to"
check "and the store's files are as they were" test "$(tree_digest "$CDM_ROOT" | grep -v ' ./cdm.db')" = "$before"

run_cdm default 9.1 --unset
expect_rc 2 "--unset with a VERSION is a usage error"
done_testing
