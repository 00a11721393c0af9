# cdm link, unlink, which, history, rollback; remove and gc with projects (POSIX links).
. "$TESTS_DIR/cli/lib.sh" || exit 1

for v in 9.1.0.70 9.2.0.82 9.3.0.75; do
  run_cdm install "$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz")"
  [ "$RC" -eq 0 ] || { not_ok "install $v for the link tests"; diag "$ERR"; }
done
A=9.1.0.70-cuda12 B=9.2.0.82-cuda12 C=9.3.0.75-cuda12
P="$SCRATCH/projects/my proj" # a space in the path
mkdir -p "$P/src/deep"
P=$(cd "$P" && pwd -P)
gens() { "$CDM" history "$1" --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' 2>/dev/null || echo 0; }

# ---- link -----------------------------------------------------------------------------
run_cdm link "$P" 9.1 --json
expect_rc 0 "link a project to 9.1"
check "the link is a symbolic link to the absolute store folder" \
  test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$A"
check "the link leads to the version's files" test -f "$P/cuda_link/include/cudnn_version.h"
check "the pin file holds the install id" test "$(cat "$P/.cudnn-version")" = "$A"
check "link --json: project, link, id, version, target, generation, changed" \
  test "$(json 'd["project"], d["link"], d["id"], d["version"], d["target"], d["generation"], d["changed"]')" = "('$P', '$P/cuda_link', '$A', '9.1.0.70', '$CDM_ROOT/$A', 1, True)"
check "no temporary link is left beside it" test -z "$(ls -A "$P" | grep -v -x -e cuda_link -e .cudnn-version -e src)"

run_cdm link "$P" 9.1 --json
expect_rc 0 "linking the same version again succeeds"
check "reports changed: false and records nothing" test "$(json 'd["changed"]'):$(gens "$P")" = "False:1"

run_cdm link "$P" 9.2
expect_rc 0 "switch to 9.2"
check "the link now points to 9.2" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$B"
check "the pin follows" test "$(cat "$P/.cudnn-version")" = "$B"

# ---- which ----------------------------------------------------------------------------
run_cdm which "$P" --json
expect_rc 0 "which PROJECT"
check "which --json has the documented keys and values" \
  test "$(json 'd["project"], d["link"], d["id"], d["version"], d["target"], d["generation"], d["drift"]')" = "('$P', '$P/cuda_link', '$B', '9.2.0.82', '$CDM_ROOT/$B', 2, False)"
OUT=$(cd "$P/src/deep" && "$CDM" which --json 2>/dev/null)
check "which without PROJECT finds the nearest project upwards" test "$(json 'd["project"], d["id"]')" = "('$P', '$B')"
run_cdm which "$P"
check "which prints a table with the id" sh -c 'printf "%s" "$1" | grep -q "^id  *$2"' _ "$OUT" "$B"

# ---- history and rollback ---------------------------------------------------------------
run_cdm history "$P" --json
expect_rc 0 "history"
check "history --json lists generations with the documented keys" \
  test "$(json '[(g["generation"], g["id"], g["action"], g["current"], len(g["time"]) > 0) for g in d]')" = "[(1, '$A', 'link', False, True), (2, '$B', 'link', True, True)]"
run_cdm history "$P"
check "the text history marks the current generation" sh -c 'printf "%s" "$1" | grep -Eq "^\* +2 +link"' _ "$OUT"

run_cdm rollback "$P" --json
expect_rc 0 "rollback"
check "goes back to 9.1" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$A"
check "as a new generation 3" test "$(json 'd["generation"], d["id"], d["previous"]')" = "(3, '$A', '$B')"
check "the pin follows the rollback" test "$(cat "$P/.cudnn-version")" = "$A"
run_cdm rollback "$P"
expect_rc 0 "rollback again"
check "returns to 9.2" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$B"
run_cdm history "$P" --json
check "history: link, link, rollback, rollback; the last one current" \
  test "$(json '[(g["generation"], g["id"], g["action"]) for g in d], [g["generation"] for g in d if g["current"]]')" = "([(1, '$A', 'link'), (2, '$B', 'link'), (3, '$A', 'rollback'), (4, '$B', 'rollback')], [4])"
run_cdm link "$P" 9.3
run_cdm rollback "$P" --to 1 --json
expect_rc 0 "rollback --to 1"
check "goes to generation 1's version" test "$(readlink "$P/cuda_link"):$(json 'd["generation"]')" = "$CDM_ROOT/$A:6"
run_cdm rollback "$P" --to 99
expect_rc 1 "rollback --to a generation that does not exist fails"
expect_err "no generation 99" "saying so"
run_cdm rollback "$P" --to x
expect_rc 2 "rollback --to x is a usage error"
check "failed rollbacks record nothing" test "$(gens "$P")" -eq 6

# ---- unlink -----------------------------------------------------------------------------
before=$(tree_digest "$CDM_ROOT/$A")
run_cdm unlink "$P" --json
expect_rc 0 "unlink"
check "the link is gone" test ! -e "$P/cuda_link" -a ! -L "$P/cuda_link"
check "its target is untouched" test "$before" = "$(tree_digest "$CDM_ROOT/$A")"
check "the pin stays" test "$(cat "$P/.cudnn-version")" = "$A"
check "unlink --json: id null, previous, generation 7" test "$(json 'd["id"], d["previous"], d["generation"]')" = "(None, '$A', 7)"
run_cdm history "$P" --json
check "recorded as action unlink without an id" test "$(json 'd[-1]["action"], d[-1]["id"]')" = "('unlink', None)"
run_cdm unlink "$P" --json
expect_rc 0 "unlink again succeeds"
check "with changed: false" test "$(json 'd["changed"]')" = False
run_cdm rollback "$P"
expect_rc 0 "rollback after unlink"
check "restores the link" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$A"
run_cdm rollback "$P"
check "and rolling back again unlinks" test ! -L "$P/cuda_link"
run_cdm link "$P"
expect_rc 0 "link without VERSION uses the pin"
check "pin's version linked" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$A"

# A fresh clone: only the pin file.
Q=$SCRATCH/projects/clone
mkdir -p "$Q"
cp "$P/.cudnn-version" "$Q/"
(cd "$Q" && "$CDM" link . >/dev/null 2>&1)
check "'cdm link .' in a clone links the pinned version" test "$(readlink "$Q/cuda_link")" = "$CDM_ROOT/$A"
run_cdm unlink "$Q" --forget
expect_rc 0 "unlink --forget"
check "removes the pin too" test ! -e "$Q/.cudnn-version" -a ! -L "$Q/cuda_link"
run_cdm link "$Q"
expect_rc 1 "link without VERSION and without a pin fails"
expect_err "no version to link" "saying there is no version"

# ---- errors ----------------------------------------------------------------------------
run_cdm link "$Q" 9.9
expect_rc 1 "linking a version not installed fails"
expect_err "cdm install 9\\.9" "naming the install to run"
mkdir -p "$SCRATCH/sources"
"$MAKE_FIXTURE" "$SCRATCH/sources/cudnn-linux-x86_64-9.5.0.50_cuda12-archive.tar.xz"
printf '[install]\nsources = %s\n' "$SCRATCH/sources" >"$CDM_CONFIG"
run_cdm link "$Q" 9.5
expect_rc 1 "a version only in [install] sources is not linked"
expect_err "cdm install 9\\.5.*cudnn-linux-x86_64-9\\.5\\.0\\.50_cuda12-archive\\.tar\\.xz' is in \\[install\\] sources" \
  "the error says its archive is in the sources"
: >"$CDM_CONFIG"
run_cdm link "$SCRATCH/nowhere" 9.1
expect_rc 1 "a project folder that does not exist is refused"
run_cdm link "$Q" 9.1 --name a/b
expect_rc 2 "a link name with a separator is a usage error"

# Never replace user data.
R=$SCRATCH/projects/real
mkdir -p "$R/cuda_link/bin"
echo precious >"$R/cuda_link/bin/tool"
echo notes >"$R/cuda_link/README"
before=$(tree_digest "$R")
run_cdm link "$R" 9.1
expect_rc 1 "a real folder named cuda_link is refused"
expect_err "real folder with 2 entries" "saying it is a real folder and what it holds"
check "its files are untouched" test "$before" = "$(tree_digest "$R")"
check "no pin and no generation are written" test ! -e "$R/.cudnn-version" -a "$(gens "$R")" -eq 0
run_cdm unlink "$R"
expect_rc 1 "unlink refuses a real folder too"
check "and leaves it" test "$before" = "$(tree_digest "$R")"
F=$SCRATCH/projects/file
mkdir -p "$F" && echo data >"$F/cuda_link"
run_cdm link "$F" 9.1
expect_rc 1 "a real file named cuda_link is refused"
check "and kept" test "$(cat "$F/cuda_link")" = data
run_cdm link "$R" 9.1 --name cudnn
expect_rc 0 "--name links beside the real folder"
check "under the new name" test "$(readlink "$R/cudnn")" = "$CDM_ROOT/$A"
run_cdm link "$R" 9.2
check "later links keep the project's name" test "$(readlink "$R/cudnn")" = "$CDM_ROOT/$B"
run_cdm which "$R" --json
check "which follows the name" test "$(json 'd["link"], d["id"]')" = "('$R/cudnn', '$B')"
run_cdm link "$R" 9.2 --name cudnn2
check "renaming the link moves it" test "$(readlink "$R/cudnn2")" = "$CDM_ROOT/$B" -a ! -L "$R/cudnn"
check "the real folder is still untouched" test "$before" = "$(tree_digest "$R" | grep -v -e cudnn2 -e .cudnn-version)"

# ---- drift: a link edited by hand ----------------------------------------------------------
ln -sfn "$CDM_ROOT/$C" "$P/cuda_link"
run_cdm which "$P" --json
expect_rc 0 "which on a hand-edited link"
check "reads the link from disk and reports drift" \
  test "$(json 'd["id"], d["index_id"], d["drift"]')" = "('$C', '$A', True)"
expect_err "index says $A" "with a warning naming both"
run_cdm link "$P" 9.3
run_cdm which "$P" --json
check "linking records it; the drift is gone" test "$(json 'd["id"], d["drift"]')" = "('$C', False)"

# ---- list and remove ------------------------------------------------------------------------
run_cdm link "$Q" 9.3
run_cdm list --json
check "list shows the projects using each install" \
  test "$(json '[i["projects"] for i in d if i["id"] == "'$C'"][0]')" = "['$Q', '$P']"
run_cdm remove 9.3
expect_rc 1 "remove refuses while projects link to the version"
expect_err "linked by '$Q', '$P'" "naming them"
check "the version stays" test -d "$CDM_ROOT/$C" -a "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$C"
run_cdm remove 9.3 --force
expect_rc 0 "remove --force unlinks them first"
check "their links are gone" test ! -L "$P/cuda_link" -a ! -L "$Q/cuda_link"
check "their pins stay" test "$(cat "$P/.cudnn-version")" = "$C"
run_cdm history "$P" --json
check "the unlink is recorded as a generation" test "$(json 'd[-1]["action"], d[-1]["id"], d[-1]["current"]')" = "('unlink', None, True)"
run_cdm link "$P"
expect_rc 1 "link after remove fails"
expect_err "cdm install $C" "naming the install to run"
run_cdm rollback "$P"
expect_rc 1 "rollback to a removed version fails"
expect_err "was removed since; run 'cdm install $C'" "naming the install to run"
run_cdm install "$SCRATCH/archives/cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz"
run_cdm link "$P" --json
expect_rc 0 "after installing it again, link works"
check "to the reinstalled version" test "$(readlink "$P/cuda_link")" = "$CDM_ROOT/$C"
run_cdm list --json
check "list leaves out a project whose newest generation is an unlink" \
  test "$(json '[i["projects"] for i in d if i["id"] == "'$C'"][0]')" = "['$P']"

# ---- a project folder that is gone ------------------------------------------------------------
G=$SCRATCH/projects/gone
mkdir -p "$G"
G=$(cd "$G" && pwd -P)
run_cdm link "$G" 9.2
rm -rf "$G"
run_cdm which "$G" --json
expect_rc 0 "which on a deleted project"
check "reports it gone, with its last generation" test "$(json 'd["gone"], d["index_id"], d["generation"]')" = "(True, '$B', 1)"
run_cdm list --json
check "list reports it as gone" test "$(json '[i["projects_gone"] for i in d if i["id"] == "'$B'"][0]')" = "['$G']"
run_cdm list
check "the table marks it (gone)" sh -c 'printf "%s" "$1" | grep -q "used by $2 (gone)"' _ "$OUT" "$G"
run_cdm gc --json
expect_rc 0 "gc"
check "gc counts the dropped record" test "$(json 'd["removed"]')" -ge 1
run_cdm list --json
check "the gone project no longer uses the install" test "$(json '[i["projects"] for i in d if i["id"] == "'$B'"][0]')" = "['$R']"
run_cdm history "$G" --json
expect_rc 0 "its history stays readable"
check "ending with a 'gone' generation" test "$(json '[g["action"] for g in d]')" = "['link', 'gone']"

# ---- many projects in one folder: list reads the folder once, and says the same ---------------
M=$SCRATCH/many && mkdir -p "$M" && M=$(cd "$M" && pwd -P)
for i in $(seq -w 1 12); do mkdir -p "$M/p$i" && run_cdm link "$M/p$i" 9.3 -q; done
rm -rf "$M/p03" "$M/p07"
rm -rf "$M/p09" && : >"$M/p09"                         # a file where the folder was: gone
rm -rf "$M/p11" && mkdir -p "$SCRATCH/elsewhere" && ln -s "$SCRATCH/elsewhere" "$M/p11" # a link to a folder: there
run_cdm list --json
check "with 12 projects in one folder, list says gone exactly for the deleted folders and the file" \
  test "$(json '[i["projects_gone"] for i in d if i["id"] == "'$C'"][0]')" = "['$M/p03', '$M/p07', '$M/p09']"
run_cdm list
check "and the table marks those three, no other" \
  test "$(printf '%s\n' "$OUT" | grep -c "used by $M/p[0-9]* (gone)")" = 3

done_testing
