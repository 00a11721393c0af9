# cdm verify: the store's files against the sizes, hashes and links recorded at install.
. "$TESTS_DIR/cli/lib.sh"

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
b=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz)
run_cdm install "$a"
run_cdm install "$b"
v=$CDM_ROOT/9.1.0.70-cuda12

run_cdm verify
expect_rc 0 "a fresh store verifies"
expect_err "2 install\\(s\\), [0-9]+ file\\(s\\): all as installed" "and says so on stderr"
run_cdm verify --json
check "verify --json: ok, counts, no problems" \
  test "$(json 'd["ok"], d["installs"], d["files"] > 20, d["problems"]')" = "(True, 2, True, [])"

# One byte flipped, same size: only the hash can tell; a file deleted, two added, a link
# retargeted: by hand, as a user would, who first gives the read-only folder write bits.
tamper() {
  python3 - "$v/include/cudnn.h" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[0] ^= 1
open(p, "wb").write(b)
PY
  rm "$v/lib/libcudnn_ops.so.9.1.0"
  echo stray >"$v/lib/notes.txt"
  mkdir -p "$v/extra/deeper" && echo x >"$v/extra/deeper/file"
  ln -sfn libcudnn.so.9.1.0 "$v/lib/libcudnn.so"
}
by_hand "$v" tamper

run_cdm verify 9.1
expect_rc 1 "a changed install fails verify"
check "the flipped byte is reported as changed, by name" \
  sh -c 'printf "%s" "$1" | grep -q "^changed  9.1.0.70-cuda12/include/cudnn.h: SHA-256"' _ "$OUT"
check "the deleted file is reported as missing" \
  sh -c 'printf "%s" "$1" | grep -q "^missing  9.1.0.70-cuda12/lib/libcudnn_ops.so.9.1.0"' _ "$OUT"
check "the added file is reported as extra" \
  sh -c 'printf "%s" "$1" | grep -q "^extra    9.1.0.70-cuda12/lib/notes.txt"' _ "$OUT"
check "files in an added folder are extra too" \
  sh -c 'printf "%s" "$1" | grep -q "extra/deeper/file"' _ "$OUT"
check "a retargeted link is changed, with both targets" \
  sh -c 'printf "%s" "$1" | grep -q "lib/libcudnn.so: link points to .libcudnn.so.9.1.0., was .libcudnn.so.9."' _ "$OUT"
expect_err "1 missing, 2 changed, 2 extra" "the summary counts each kind"

run_cdm verify 9.1 --json
check "--json lists the problems by kind" \
  test "$(json 'sorted((p["kind"], p["path"]) for p in d["problems"])')" = "[('changed', 'include/cudnn.h'), ('changed', 'lib/libcudnn.so'), ('extra', 'extra/deeper/file'), ('extra', 'lib/notes.txt'), ('missing', 'lib/libcudnn_ops.so.9.1.0')]"
check "--json ok is false" test "$(json 'd["ok"]')" = False
expect_rc 1 "and exits 1"

run_cdm verify 9.2
expect_rc 0 "the other install is untouched and verifies"
run_cdm verify
expect_rc 1 "verify without a version checks all and fails on the changed one"

run_cdm verify 7.0
expect_rc 1 "verifying a version that is not installed fails"
expect_err "not installed" "saying so"
run_cdm --json verify 7.0
expect_rc 1 "--json: a version that is not installed fails too"
check "and prints nothing on stdout, no half document" test -z "$OUT"
run_cdm verify 9.1 9.2
expect_rc 2 "two versions are a usage error"

rm_tree "$CDM_ROOT/9.2.0.82-cuda12"
run_cdm verify 9.2
expect_rc 1 "an install whose folder is gone fails"
expect_err "folder .* is gone" "naming the folder"
run_cdm --json verify
expect_rc 1 "--json: problems found in one install, then a failure on the next"
check "leave stdout empty: no half document" test -z "$OUT"

# The file mode (the executable bit) recorded at install is compared too.
c=$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)
run_cdm install "$c"
w=$CDM_ROOT/9.3.0.75-cuda12
chmod a-x "$w/lib/libcudnn.so.9.3.0"
chmod a+x "$w/LICENSE"
run_cdm verify 9.3
expect_rc 1 "a library that lost its executable bit fails verify"
check "reported as changed, with both modes" \
  sh -c 'printf "%s" "$1" | grep -q "^changed  9.3.0.75-cuda12/lib/libcudnn.so.9.3.0: mode 0444, was 0555"' _ "$OUT"
check "a file that gained one too" \
  sh -c 'printf "%s" "$1" | grep -q "^changed  9.3.0.75-cuda12/LICENSE: mode 0555, was 0444"' _ "$OUT"
chmod a+x "$w/lib/libcudnn.so.9.3.0"
chmod a-x "$w/LICENSE"
chmod u+w "$w/include/cudnn.h" "$w/lib"
run_cdm verify 9.3
expect_rc 1 "a file or folder of the read-only store that gained a write bit fails verify"
check "the file, named with both modes" \
  sh -c 'printf "%s" "$1" | grep -q "^changed  9.3.0.75-cuda12/include/cudnn.h: mode 0644, was 0444"' _ "$OUT"
check "and the folder" \
  sh -c 'printf "%s" "$1" | grep -q "^changed  9.3.0.75-cuda12/lib: folder mode 0755, was 0555 (no write bits)"' _ "$OUT"
chmod a-w "$w/include/cudnn.h" "$w/lib"
run_cdm verify 9.3 --verbose
expect_rc 0 "modes put back: verify passes"
check "and --verbose has no note on unchecked modes" sh -c '! printf "%s" "$1" | grep -q "no mode recorded"' _ "$ERR"

# An index written before modes were kept (schema 2): the migration adds the column, the
# old rows have none, and those files are checked as before, which --verbose says.
python3 - "$CDM_ROOT/cdm.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("ALTER TABLE files DROP COLUMN mode")
db.execute("PRAGMA user_version = 2")
db.commit()
PY
chmod a-x "$w/lib/libcudnn.so.9.3.0"
run_cdm verify 9.3 --verbose
expect_rc 0 "an old install verifies by size and hash as before"
expect_err "[0-9]+ file\\(s\\) have no mode recorded" "--verbose says the modes were not checked"
run_cdm verify 9.3 --json
check "--json counts them" test "$(json 'd["mode_unchecked"] > 10')" = True
check "the migration added the column" \
  test "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' "$CDM_ROOT/cdm.db")" -ge 3

# ---- Ctrl-C 0.3 s into a verify: exit 130, the store and its index as they were -------------
# A store of its own with one install of about 400 MB (a zip: quick to make and unpack); a
# process of its own with SIGINT at its default (a script's background job ignores it).
export CDM_ROOT=$SCRATCH/big-store
big=$(fixture cudnn-windows-x86_64-9.3.0.75_cuda12-archive.zip --pad 40000000)
run_cdm install "$big" --platform windows-x86_64
expect_rc 0 "an install of about 400 MB to verify"
before=$(tree_digest "$CDM_ROOT"; sha256sum <"$CDM_ROOT/cdm.db")
OUT=$(python3 - "$CDM" <<'PY'
import signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "verify"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.3)
running = p.poll() is None
p.send_signal(signal.SIGINT)
rc = p.wait()
print(running, 130 if rc == -signal.SIGINT else rc)
PY
)
check "verify was still reading at 0.3 s, and Ctrl-C ends it: status 130 ($OUT)" test "$OUT" = "True 130"
check "the store and its index are as they were" \
  test "$(tree_digest "$CDM_ROOT"; sha256sum <"$CDM_ROOT/cdm.db")" = "$before"
run_cdm verify
expect_rc 0 "and it verifies"

done_testing
