# A store and a user's state on a network file system: a real one, sshfs to an SSH server on
# loopback. SQLite's write-ahead log does not work across machines there, so the index and
# the state keep a rollback journal ([store] journal = auto), a store moved there from a
# local disk is converted, and [store] journal = wal or rollback overrides the guess.
. "$TESTS_DIR/cli/lib.sh" || exit 1

mode() { sql_on "$1" "PRAGMA journal_mode"; }
A=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
B=$(fixture cudnn-linux-x86_64-9.2.0.82_cuda12-archive.tar.xz)

run_cdm install "$A"
check "on a local disk the index keeps a write-ahead log" test "$(mode "$CDM_ROOT/cdm.db")" = wal

SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if ! command -v sshfs >/dev/null || [ ! -x "$SSHD" ]; then
  skip_tool "a store on sshfs" "sshfs and openssh-server are not installed"
  done_testing
  exit
fi
K=$SCRATCH/ssh
mkdir -p "$K" "$SCRATCH/remote" "$SCRATCH/mnt" /run/sshd 2>/dev/null
ssh-keygen -q -t ed25519 -N '' -f "$K/host" && ssh-keygen -q -t ed25519 -N '' -f "$K/client"
cp "$K/client.pub" "$K/authorized"
# A port of its own: the first free one from a random start.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$K/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $K/host
AuthorizedKeysFile $K/authorized
PasswordAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile $K/sshd.pid
Subsystem sftp internal-sftp
CONF
MNT=$SCRATCH/mnt
trap 'fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null; [ -f "$K/sshd.pid" ] && kill "$(cat "$K/sshd.pid")"; rm_tree "$SCRATCH"' EXIT
if ! "$SSHD" -f "$K/sshd_config" -E "$K/sshd.log"; then
  skip_tool "a store on sshfs" "the SSH server does not start: $(tail -1 "$K/sshd.log")"
  done_testing
  exit
fi
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -f "$K/sshd.pid" ] && break; sleep 0.2; done
if ! sshfs -p "$port" -o "IdentityFile=$K/client,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes" \
  "$(id -un)@127.0.0.1:$SCRATCH/remote" "$MNT" 2>"$SCRATCH/sshfs.err"; then
  # A kernel without FUSE, or a container that may not mount: a fact of the machine.
  skip "a store on sshfs" "sshfs cannot mount here: $(head -1 "$SCRATCH/sshfs.err")"
  done_testing
  exit
fi
check "sshfs is mounted (a network file system on loopback)" grep -q " $MNT .* - fuse.sshfs " /proc/self/mountinfo

NET=$MNT/store
run_cdm --root "$NET" install "$A"
expect_rc 0 "an install into a store on sshfs"
check "its index keeps a rollback journal" test "$(mode "$NET/cdm.db")" = delete
check "and has no write-ahead log beside it" test ! -e "$NET/cdm.db-wal" -a ! -e "$NET/cdm.db-shm"
mkdir -p "$SCRATCH/p"
run_cdm --root "$NET" link "$SCRATCH/p" 9.1
expect_rc 0 "a project links to it"
run_cdm --root "$NET" verify
expect_rc 0 "and it verifies"

cp -a "$CDM_ROOT" "$MNT/moved"
check "a local store copied there is still in WAL mode" test "$(mode "$MNT/moved/cdm.db")" = wal
run_cdm --root "$MNT/moved" install "$B"
expect_rc 0 "the next write there"
check "converts it to a rollback journal" test "$(mode "$MNT/moved/cdm.db")" = delete
check "leaving no WAL files" test ! -e "$MNT/moved/cdm.db-wal" -a ! -e "$MNT/moved/cdm.db-shm"

printf '[store]\njournal = wal\n' >"$CDM_CONFIG"
run_cdm --root "$MNT/forced" install "$A"
expect_rc 0 "[store] journal = wal"
check "keeps a write-ahead log even there (the user's choice)" test "$(mode "$MNT/forced/cdm.db")" = wal
printf '[store]\njournal = rollback\n' >"$CDM_CONFIG"
run_cdm install "$B"
check "[store] journal = rollback converts a local index" test "$(mode "$CDM_ROOT/cdm.db")" = delete
printf '[store]\njournal = sometimes\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "an unknown journal is refused"
expect_err "$CDM_CONFIG.*journal.*give auto .*, wal or rollback" "naming the file, the key and the choices"
: >"$CDM_CONFIG"

# A home folder on the network: the user's state there keeps a rollback journal too.
mkdir -p "$MNT/home"
HOME=$MNT/home run_cdm link "$SCRATCH/p" 9.1
expect_rc 0 "a link with the home folder on sshfs"
check "the state there keeps a rollback journal" \
  test "$(mode "$MNT/home/.local/share/cdm/state.db")" = delete
done_testing
