# The junction bytes cdm builds, read back by an independent NTFS implementation: ntfs-3g
# shows a folder whose system.ntfs_reparse_data holds a junction as a symbolic link to the
# junction's target, translated into the mount (the reparse point layout of Microsoft's REPARSE_DATA_BUFFER).
. "$TESTS_DIR/cli/lib.sh" || exit 1

find_tool() { command -v "$1" 2>/dev/null || { [ -x "/usr/sbin/$1" ] && echo "/usr/sbin/$1"; } || { [ -x "/sbin/$1" ] && echo "/sbin/$1"; }; }
MKNTFS=$(find_tool mkntfs)
NTFS3G=$(find_tool ntfs-3g)
SETFATTR=$(find_tool setfattr)
FUSERMOUNT=$(find_tool fusermount || find_tool fusermount3)
missing=""
[ -n "$MKNTFS" ] && [ -n "$NTFS3G" ] || missing="ntfs-3g (mkntfs, ntfs-3g) is not installed"
[ -z "$missing" ] && [ -z "$SETFATTR" ] && missing="setfattr (package attr) is not installed"
[ -z "$missing" ] && [ -z "$FUSERMOUNT" ] && missing="fusermount is not installed"
[ -z "$missing" ] && [ ! -c /dev/fuse ] && missing="/dev/fuse is missing"
[ -z "$missing" ] && { [ ! -r /dev/fuse ] || [ ! -w /dev/fuse ]; } && missing="/dev/fuse is not usable by this user"

# Targets: two plain paths, spaces and non-ASCII, a surrogate pair, past MAX_PATH,
# and inputs that normalise (\\?\ prefix, '/', doubled and trailing separators).
long=""
for i in 1 2 3 4 5 6; do long="$long\\component-$i-$(printf '%040d' 0)"; done
targets=(
  'C:\store\8.8.0'
  'C:\cudnn_archive\8.8.0\cuda'
  'C:\store\Zoë проект\9.1 (cuda12)'
  'C:\store\emoji-😀'
  "C:\\store$long"
  '\\?\C:/store//normalised/'
)
expected=(
  'store/8.8.0'
  'cudnn_archive/8.8.0/cuda'
  'store/Zoë проект/9.1 (cuda12)'
  'store/emoji-😀'
  "store${long//\\//}"
  'store/normalised'
)

if [ -n "$missing" ]; then
  skip_tool "junction bytes read by ntfs-3g" "$missing"
  done_testing
  exit $?
fi

MNT=$SCRATCH/mnt
IMG=$SCRATCH/ntfs.img
trap '"$FUSERMOUNT" -u "$MNT" 2>/dev/null; rm_tree "$SCRATCH"' EXIT
mkdir -p "$MNT"
truncate -s 64M "$IMG"
if ! "$MKNTFS" -F -Q "$IMG" >"$SCRATCH/mkntfs.log" 2>&1; then
  skip "junction bytes read by ntfs-3g" "mkntfs failed: $(tail -1 "$SCRATCH/mkntfs.log")"
  done_testing
  exit $?
fi
if ! "$NTFS3G" "$IMG" "$MNT" >"$SCRATCH/mount.log" 2>&1; then
  skip "junction bytes read by ntfs-3g" "mounting through FUSE failed here: $(tail -1 "$SCRATCH/mount.log")"
  done_testing
  exit $?
fi

for i in "${!targets[@]}"; do
  mkdir -p "$MNT/${expected[$i]}" "$MNT/link$i"
  echo "marker $i" >"$MNT/${expected[$i]}/marker"
  hex=$("$JUNCTION_BYTES" "${targets[$i]}")
  check "ntfs-3g accepts the buffer for '${targets[$i]}' (${#hex} hex digits)" \
    "$SETFATTR" -n system.ntfs_reparse_data -v "0x$hex" "$MNT/link$i"
done
# ntfs-3g shows the change after a fresh mount (the kernel caches the folder until then).
"$FUSERMOUNT" -u "$MNT"
"$NTFS3G" "$IMG" "$MNT"
for i in "${!targets[@]}"; do
  got=$(readlink "$MNT/link$i")
  if [ "$got" = "$MNT/${expected[$i]}" ]; then
    ok "link$i reads as a junction to '${expected[$i]}'"
  else
    not_ok "link$i reads as a junction to '${expected[$i]}'"
    diag "readlink: '$got'"
  fi
  check "and leads to its files" test "$(cat "$MNT/link$i/marker" 2>/dev/null)" = "marker $i"
done
"$FUSERMOUNT" -u "$MNT"

# Refused targets never reach the disk.
for bad in 'C:\store\..\x' '\\server\share\x' 'relative\x'; do
  if "$JUNCTION_BYTES" "$bad" >/dev/null 2>&1; then
    not_ok "'$bad' is refused"
  else
    ok "'$bad' is refused"
  fi
done

done_testing
