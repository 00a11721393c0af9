# cdm store delete and cdm remove --all: a store the user made, emptied or removed whole
# (its folders are read-only, so a user's rm -rf cannot), and nothing cdm did not make.
. "$TESTS_DIR/cli/lib.sh" || exit 1

fill() { # fill ROOT: three installs in the store at ROOT
  local v
  for v in 9.1.0.70 9.2.0.82 9.3.0.75; do
    CDM_ROOT=$1 "$CDM" install -q "$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz")" || return 1
  done
}

S=$SCRATCH/s1
fill "$S" || not_ok "three installs"
mkdir -p "$SCRATCH/p"
CDM_ROOT=$S run_cdm link "$SCRATCH/p" 9.2
CDM_ROOT=$S run_cdm store delete
expect_rc 1 "delete is refused while a project links into the store"
expect_err "1 project links into it \('$SCRATCH/p'\); unlink it \('cdm unlink PROJECT'\), or pass --force" "naming it"
check "and the store is whole" test -d "$S/9.2.0.82-cuda12/lib" -a -f "$S/cdm.db"
CDM_ROOT=$S run_cdm store delete --force --json
expect_rc 0 "--force unlinks it and deletes the store"
check "it says what it did" test "$(json 'd["installs"], d["unlinked"]')" = "(3, 1)"
check "nothing is left of the store, nor of its move aside" test -z "$(ls -A "$SCRATCH" | grep '^s1')"
check "the project's link is gone, its pin kept" test ! -e "$SCRATCH/p/cuda_link" -a -f "$SCRATCH/p/.cudnn-version"

# not cdm's: a folder without the index, a link, a stranger inside, a deploy's files
mkdir -p "$SCRATCH/mine/data" && echo keep >"$SCRATCH/mine/data/x"
CDM_ROOT=$SCRATCH/mine run_cdm store delete
expect_rc 1 "a folder without cdm's index is refused"
expect_err "holds no index of cdm's \(cdm.db\) and names cdm does not make, so it is no store cdm made" "saying why"
check "and left alone" test "$(cat "$SCRATCH/mine/data/x")" = keep
S=$SCRATCH/s2
fill "$S"
ln -s "$S" "$SCRATCH/s2link"
CDM_ROOT=$SCRATCH/s2link run_cdm store delete
expect_rc 1 "a root that is a link is refused"
check "the store behind it stays" test -f "$S/cdm.db"
echo notes >"$S/notes.txt"
before=$(tree_digest "$S")
CDM_ROOT=$S run_cdm store delete
expect_rc 1 "a store holding a file cdm did not make is refused"
expect_err "it holds 'notes.txt', which cdm did not make; move it out first" "naming it"
check "and nothing in it changed" test "$(tree_digest "$S")" = "$before"
rm "$S/notes.txt"
# a deploy into a toolkit keeps the toolkit's own files in the store until its undo
TK=$SCRATCH/cuda-12.3
mkdir -p "$TK/bin" "$TK/include" "$TK/lib64"
printf '{\n  "cuda": {"name": "CUDA SDK", "version": "12.3.107"}\n}\n' >"$TK/version.json"
echo '/* the cuDNN the toolkit had */' >"$TK/include/cudnn.h"
CDM_ROOT=$S run_cdm deploy 9.1 --into "$TK"
expect_rc 0 "a deploy into a toolkit"
CDM_ROOT=$S run_cdm store delete --force
expect_rc 1 "a store keeping a deploy's files is refused, even with --force"
expect_err "run 'cdm deploy --undo TOOLKIT_DIR' first" "saying what to do"
CDM_ROOT=$S run_cdm deploy --undo "$TK"
check "the undo still has what it needs" test "$(cat "$TK/include/cudnn.h")" = "/* the cuDNN the toolkit had */"

# a store whose index is gone (a user's rm -rf stopped by its read-only folders after the
# index went): only cdm's shapes, so it is deleted; a folder with something else is not
S3=$SCRATCH/s3
fill "$S3"
rm -f "$S3/cdm.db"
mkdir -p "$SCRATCH/s4/9.1.0.70-cuda12" && echo mine >"$SCRATCH/s4/photo.jpg"
CDM_ROOT=$SCRATCH/s4 run_cdm store delete
expect_rc 1 "an indexless folder with a file cdm does not make is refused"
check "and left alone" test -f "$SCRATCH/s4/photo.jpg" -a -d "$SCRATCH/s4/9.1.0.70-cuda12"
CDM_ROOT=$S3 run_cdm store delete
expect_rc 0 "an indexless store of cdm's shapes is deleted"
expect_err "lost its index \(cdm.db\), but holds only what cdm makes" "saying so"
check "and is gone" test ! -e "$S3"

# remove --all: every install out, the store itself kept
mkdir -p "$SCRATCH/q"
CDM_ROOT=$S run_cdm link "$SCRATCH/q" 9.3
CDM_ROOT=$S run_cdm remove --all
expect_rc 1 "remove --all stops at an install a project uses"
expect_err "cannot remove every install: .*uses 9.3.0.75-cuda12; unlink it first" "naming it, before removing any"
check "all three are still there" test "$(ls "$S" | grep -c cuda12)" = 3
CDM_ROOT=$S run_cdm remove --all --force --json
expect_rc 0 "--force removes every install"
check "three, each named" test "$(json 'len(d), sorted(r["id"] for r in d)')" = "(3, ['9.1.0.70-cuda12', '9.2.0.82-cuda12', '9.3.0.75-cuda12'])"
check "the store keeps its index, and no install" test -f "$S/cdm.db" -a -z "$(ls "$S" | grep cuda)"
CDM_ROOT=$S run_cdm remove
expect_rc 2 "remove with neither VERSION nor --all is a usage error"
CDM_ROOT=$S run_cdm store delete
expect_rc 0 "the emptied store deletes"
check "and is gone" test ! -e "$S"

done_testing
