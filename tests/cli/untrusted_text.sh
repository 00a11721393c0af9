# Names from the file system, pin files and configuration files reach the terminal with
# their control characters escaped, and --json stays valid UTF-8 whatever bytes a path holds.
. "$TESTS_DIR/cli/lib.sh" || exit 1

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
id=9.1.0.70-cuda12
ESC=$(printf '\033') BEL=$(printf '\007')
raw_free() { # TEXT: no ESC, BEL, other C0 control but tab and line break, DEL or C1 control
  ! printf '%s' "$1" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]\|\302[\200-\237]')"
}
shows_escaped() { # TEXT: the escapes are there for the reader to see
  printf '%s' "$1" | grep -qF '\x1b'
}

# A store and a project whose names hold an escape sequence and a bell.
export CDM_ROOT="$SCRATCH/store${ESC}]0;pwned${BEL}"
run_cdm install "$a"
expect_rc 0 "install into a store whose name holds ESC and BEL"
run_cdm list
check "list prints no raw control character" raw_free "$OUT"
check "and shows them escaped" shows_escaped "$OUT"

P="$SCRATCH/project${ESC}[2J${BEL}"
run_cdm which "$P"
expect_rc 1 "which of a folder that does not exist fails"
check "its message holds no raw control character" raw_free "$ERR"
check "and shows them escaped" shows_escaped "$ERR"

mkdir -p "$P"
printf '9.1\033[31m\n' >"$P/.cudnn-version"
run_cdm link "$P"
expect_rc 1 "a pin that is no version fails (naming the pin file: not a usage error)"
check "naming it with no raw control character" raw_free "$ERR"
expect_err "not a version" "and saying why"

printf '[store]\nco\033lour = blue\n' >"$CDM_CONFIG"
run_cdm list
check "a config key with ESC is warned about with it escaped" raw_free "$ERR"
expect_err 'unknown setting .co\\x1blour' "showing the escape"
: >"$CDM_CONFIG"

# A line break in a name cannot forge a line of its own.
N=$SCRATCH/$'two\ncdm: all fine'
run_cdm which "$N"
check "a line break inside a name stays inside its line" test "$(printf '%s\n' "$ERR" | wc -l)" -eq 1

# ---- JSON: valid UTF-8 whatever the bytes --------------------------------------------------
L=$SCRATCH/$'caf\xe9'
mkdir -p "$L"
run_cdm link "$L" "$id" --json
expect_rc 0 "link a project whose name is Latin-1, not UTF-8"
check "the JSON is valid UTF-8, the bad byte U+FFFD, the bytes beside it in hex" python3 -c '
import json, sys
raw = sys.stdin.buffer.read()
d = json.loads(raw.decode("utf-8", "strict"))
assert d["project"].endswith("caf\ufffd"), d["project"]
assert bytes.fromhex(d["project_bytes"]).endswith(b"caf\xe9"), d["project_bytes"]
assert "link_bytes" in d and "id_bytes" not in d
' <<<"$OUT"
run_cdm list --json
check "list --json with such a project is valid UTF-8 too" \
  python3 -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode("utf-8","strict"))' <<<"$OUT"

done_testing
