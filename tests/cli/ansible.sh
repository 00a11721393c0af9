# Many machines: cdm link/unlink --dry-run, and the Ansible collection in contrib/ansible run
# by Debian's ansible-core against localhost (connection local): the first run changes, the
# second changes nothing, check mode changes nothing, state absent removes.
. "$TESTS_DIR/cli/lib.sh" || exit 1

A91=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
A92=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz)
P=$SCRATCH/project
mkdir -p "$P"

# ---- --dry-run ----------------------------------------------------------------------------
run_cdm install "$A91"
run_cdm install "$A92"
run_cdm link "$P" 9.1 --dry-run --json
expect_rc 0 "link --dry-run"
check "says it would link 9.1, and that it was a dry run" \
  test "$(json 'd["changed"], d["dry_run"], d["id"], d["previous"]')" = "(True, True, '9.1.0.70-cuda12', None)"
check "and made no link and no pin" test ! -e "$P/cuda_link" -a ! -e "$P/.cudnn-version"
run_cdm link "$P" 9.1
run_cdm link "$P" 9.2 --dry-run
expect_err "would change '$P/cuda_link' from 9.1.0.70-cuda12 to 9.2.0.82-cuda12" "a switch is described"
check "and not made" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/9.1.0.70-cuda12"
run_cdm link "$P" 9.1 --dry-run --json
check "a link that is so already would not change" test "$(json 'd["changed"]')" = False
run_cdm unlink "$P" --dry-run --json
check "unlink --dry-run would change, and does not" \
  test "$(json 'd["changed"], d["id"]')" = "(True, None)" -a -L "$P/cuda_link"
run_cdm history "$P" --json
check "no generation was recorded by the dry runs" test "$(json 'len(d)')" = 1
run_cdm unlink "$P"
run_cdm remove 9.1
run_cdm remove 9.2

# ---- the playbooks ------------------------------------------------------------------------
if ! command -v ansible-playbook >/dev/null; then
  skip_tool "the Ansible playbooks" "ansible-playbook is missing (Debian's ansible-core)"
  done_testing
  exit 0
fi
export ANSIBLE_COLLECTIONS_PATH="$TESTS_DIR/../contrib/ansible"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
export ANSIBLE_LOCAL_TEMP=$SCRATCH/ansible/tmp ANSIBLE_HOME=$SCRATCH/ansible
OUT=$(ansible-doc cdm.cdm.cdm_install cdm.cdm.cdm_link cdm.cdm.cdm_default cdm.cdm.cdm_facts 2>&1)
check "every module's documentation parses" sh -c '! printf "%s" "$1" | grep -q ERROR' _ "$OUT"
has_default=false
"$CDM" help default >/dev/null 2>&1 && has_default=true
cat >"$SCRATCH/site.yml" <<EOF
- hosts: all
  gather_facts: false
  tasks:
    - cdm.cdm.cdm_install: {archive: "$A91", cdm: "$CDM"}
    - cdm.cdm.cdm_install: {archive: "$A92", cdm: "$CDM"}
    - cdm.cdm.cdm_link: {project: "$P", version: "9.1", cdm: "$CDM"}
    - cdm.cdm.cdm_default: {version: "9.2", cdm: "$CDM"}
      when: $has_default
    - cdm.cdm.cdm_facts: {cdm: "$CDM", doctor: false}
    - assert:
        that:
          - ansible_facts.cdm.installs | length == 2
          - 'ansible_facts.cdm.projects == [{"project": "$P", "id": "9.1.0.70-cuda12"}]'
EOF
cat >"$SCRATCH/absent.yml" <<EOF
- hosts: all
  gather_facts: false
  tasks:
    - cdm.cdm.cdm_link: {project: "$P", state: absent, cdm: "$CDM"}
    - cdm.cdm.cdm_install: {version: "9.1.0.70", state: absent, cdm: "$CDM"}
EOF
# play FILE [OPTIONS]: run it; the recap's changed count in $CHANGED, its output in $PLAY
play() {
  local file=$1
  shift
  PLAY=$(ansible-playbook -i localhost, -c local "$@" "$file" 2>&1)
  RC=$?
  CHANGED=$(printf '%s\n' "$PLAY" | sed -n 's/^localhost *:.* changed=\([0-9]*\).*/\1/p')
  [ "$RC" -eq 0 ] || diag "$PLAY"
}
want=3
$has_default && want=4
play "$SCRATCH/site.yml"
check "the first run succeeds and changes $want things (changed=$CHANGED)" test "$RC" -eq 0 -a "$CHANGED" = "$want"
check "the project is linked" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/9.1.0.70-cuda12"
play "$SCRATCH/site.yml"
check "the second run succeeds with changed=0 (changed=$CHANGED)" test "$RC" -eq 0 -a "$CHANGED" = 0
$has_default || skip "cdm_default" "this cdm has no 'cdm default' command yet"

play "$SCRATCH/absent.yml" --check --diff
check "check mode reports the 2 changes (changed=$CHANGED)" test "$RC" -eq 0 -a "$CHANGED" = 2
check "its diff shows the link going" sh -c 'printf "%s" "$1" | grep -q "^-.*cuda_link -> 9.1.0.70-cuda12"' _ "$PLAY"
check "and changes nothing" test -L "$P/cuda_link" -a -d "$CDM_ROOT/9.1.0.70-cuda12"
play "$SCRATCH/absent.yml"
check "state absent unlinks and removes (changed=$CHANGED)" \
  test "$RC" -eq 0 -a "$CHANGED" = 2 -a ! -e "$P/cuda_link" -a ! -e "$CDM_ROOT/9.1.0.70-cuda12"

# A failure carries cdm's message.
cat >"$SCRATCH/bad.yml" <<EOF
- hosts: all
  gather_facts: false
  tasks:
    - cdm.cdm.cdm_link: {project: "$P", version: "7.0", cdm: "$CDM"}
EOF
play "$SCRATCH/bad.yml"
check "a failing cdm fails the task" test "$RC" -ne 0
check "with cdm's message" sh -c 'printf "%s" "$1" | grep -q "\"msg\": \".*7.0"' _ "$PLAY"

done_testing
