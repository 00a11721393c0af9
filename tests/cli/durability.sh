# An install's files are on disk before anything refers to them: under strace, every file
# of the version is created, then flushed (an fsync each, or one syncfs: fs_sync_written),
# then the folder renamed into place, then the index records it complete.
. "$TESTS_DIR/cli/lib.sh"

if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
  skip "install syncs before it renames" "no strace, or ptrace is not allowed here"
  done_testing
  exit 0
fi

"$CDM" list >/dev/null # the store and its index exist before the traced run
# traced TRACE EVENTS ARGS...: cdm ARGS under strace, the EVENTS calls written to TRACE
# (LeakSanitizer cannot run under ptrace: a sanitized cdm checks no leaks in these runs)
traced() {
  trace=$1
  local events=$2
  shift 2
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -y -o "$trace" -e trace="$events" "$CDM" "$@" >/dev/null 2>&1
}
# line numbers of the first / last match of an extended regex in the trace
first() { grep -nE "$1" "$trace" | head -1 | cut -d: -f1; }
last() { grep -nE "$1" "$trace" | tail -1 | cut -d: -f1; }
# in_order N...: every N a line number and each after the one before (an empty one, a call
# not found, fails); a function, so that check tests the order and not only the first
in_order() {
  local a
  for a; do [ -n "$a" ] || return 1; done
  while [ $# -gt 1 ]; do
    [ "$1" -lt "$2" ] || return 1
    shift
  done
}

# install_order VERSION SYNCED WAY: the traced install of VERSION wrote its files, made them
# durable (SYNCED: the regex of the call that ends it), renamed the folder into place, then
# recorded it complete, in that order
install_order() {
  local v=$1 id=$1-cuda12 way=$3 esc
  esc=$(printf '%s' "$v" | sed 's/\./\\./g')
  traced "$SCRATCH/trace-$v" openat,syncfs,fsync,fdatasync,rename,renameat,renameat2,pwrite64,write \
    install "$(fixture "cudnn-linux-x86_64-${v}_cuda12-archive.tar.xz" --version "$v")"
  check "the traced install succeeds ($way)" test -d "$CDM_ROOT/$id/lib"
  created=$(last "openat\(.*\.staging/$esc-cuda12\.[0-9]+\.tmp/.*O_CREAT")
  synced=$(first "$2")
  to_ready=$(first "rename.*\.tmp.*\.ready")
  into_place=$(first "rename.*\.ready\", .*$esc-cuda12\"")
  recorded=$(last 'pwrite64\([0-9]+</[^>]*cdm\.db-wal>')
  diag "last file created: ${created:-none}, synced: ${synced:-none}, renamed to .ready: ${to_ready:-none}, into place: ${into_place:-none}, last index write: ${recorded:-none}"
  check "files are written before the sync ($way)" in_order "$created" "$synced"
  check "the sync ends before the first rename" in_order "$synced" "$to_ready"
  check "the version is renamed into place after that" in_order "$to_ready" "$into_place"
  check "and the index's last write (the install complete) comes after it" in_order "$into_place" "$recorded"
  check "no file of the version is created after the sync" \
    test -z "$(sed -n "$((synced + 1)),\$p" "$trace" | grep -E "openat\(.*$esc-cuda12.*O_CREAT")"
}
# An install of a few dozen files, an fsync each (CDM_SYNC_WAY=parallel): its own files and
# folders, from several threads at once, all done before the folder's own fsync (the sync
# above), and it waits for no other program's writes: no syncfs.
CDM_SYNC_WAY=parallel install_order 9.1.0.70 'fsync\([0-9]+</[^>]*\.staging/9\.1\.0\.70-cuda12\.[0-9]+\.tmp>\)' "an fsync each"
unsynced=
while read -r f; do
  grep -qE "fsync\([0-9]+<$f>(\)| <unfinished)" "$trace" || unsynced="$unsynced $f"
done < <(grep -oE 'openat\(.*\.staging/9\.1\.0\.70-cuda12\.[0-9]+\.tmp/[^"]*", O_[^)]*O_CREAT' "$trace" |
  sed -E 's/^openat\([^"]*"([^"]*)".*/\1/' | sort -u)
check "every file it created is flushed by name${unsynced:+ (not:$unsynced)}" test -z "$unsynced"
# strace -f splits a call that another thread interrupts into "<unfinished ...>" and
# "<... fsync resumed>) = 0": a failure shows as "= -1" on either form
check "every fsync succeeds" test -z "$(grep -E 'fsync.*\) += -1' "$trace")"
check "from more than one thread" test "$(grep -E '^[0-9]+ +(<\.\.\. )?fsync' "$trace" | cut -d' ' -f1 | sort -u | wc -l)" -gt 1
ended=$(last '(fsync\(.*\.tmp/.*\) += 0|<\.\.\. fsync resumed>\) += 0)')
check "all of them end before the folder's own fsync" in_order "$ended" "$synced"
check "and the file system is not synced as a whole" test -z "$(grep -E '^[0-9]+ +syncfs\(' "$trace")"
# CDM_SYNC_WAY=syncfs: one syncfs instead (the way of an install of many entries while
# little else is pending).
CDM_SYNC_WAY=syncfs install_order 9.2.0.82 '^[0-9]+ +syncfs\(.*= 0' "one syncfs"
# Unforced, the install's size and what the system has pending choose; either way the
# sync comes first.
install_order 9.3.0.75 '(^[0-9]+ +syncfs\(.*= 0|fsync\([0-9]+</[^>]*\.staging/9\.3\.0\.75-cuda12\.[0-9]+\.tmp>\))' "chosen by size"

# A link switch: the pin file's data is on disk before the rename that makes it the pin, and
# the project's folder is synced after the link's rename, so a power cut leaves the old pin
# and link or the new ones, never an empty pin.
P=$SCRATCH/project && mkdir -p "$P"
traced "$SCRATCH/trace-link" openat,fsync,fdatasync,rename,renameat,renameat2,symlink,symlinkat \
  link "$P" 9.1
check "the traced link succeeds" test "$(cat "$P/.cudnn-version" 2>/dev/null)" = 9.1.0.70-cuda12
# replaced NAME DIR (regexes): the lines where the temporary file of DIR/NAME is synced,
# where it is renamed over DIR/NAME, and where DIR is synced last, into synced, renamed and
# dir_synced
replaced() {
  synced=$(first "f(data)?sync\\([0-9]+<[^>]*$2/$1\\.cdm-[0-9]+\\.tmp>\\) = 0")
  renamed=$(first "rename.*$2/$1\\.cdm-[0-9]+\\.tmp\", .*$2/$1\"")
  dir_synced=$(last "fsync\\([0-9]+</[^>]*$2>\\) = 0")
}
replaced '\.cudnn-version' /project
pin_synced=$synced pin_renamed=$renamed
link_renamed=$(first 'rename.*cuda_link\.cdm-[0-9]+\.tmp", .*/project/cuda_link"')
diag "pin synced: ${pin_synced:-none}, pin renamed: ${pin_renamed:-none}, link renamed: ${link_renamed:-none}, project folder synced: ${dir_synced:-none}"
check "the pin's data is synced before its rename" \
  in_order "$pin_synced" "$pin_renamed"
check "the project's folder is synced after the link is renamed" in_order "$link_renamed" "$dir_synced"
check "and after the pin is renamed" in_order "$pin_renamed" "$dir_synced"

# A deploy's copy into a toolkit goes through the same writer: each file's data on disk
# before its rename, its folder synced after.
TK=$SCRATCH/cuda-12.3
mkdir -p "$TK/bin" "$TK/include" "$TK/lib64"
printf '{\n  "cuda": {"name": "CUDA SDK", "version": "12.3.107"}\n}\n' >"$TK/version.json"
printf '#!/bin/sh\necho "Cuda compilation tools, release 12.3, V12.3.107"\n' >"$TK/bin/nvcc"
chmod 755 "$TK/bin/nvcc"
echo '/* the cuDNN the toolkit had */' >"$TK/include/cudnn.h"
traced "$SCRATCH/trace-deploy" openat,fsync,fdatasync,rename,renameat,renameat2 deploy 9.1 --into "$TK"
check "the traced deploy succeeds" test -f "$TK/include/cudnn_version.h"
replaced 'cudnn\.h' '/cuda-12\.3/include'
diag "cudnn.h synced: ${synced:-none}, renamed: ${renamed:-none}, include folder synced: ${dir_synced:-none}"
check "a deployed file's data is synced before its rename" \
  in_order "$synced" "$renamed"
check "and its folder after it" in_order "$renamed" "$dir_synced"

done_testing
