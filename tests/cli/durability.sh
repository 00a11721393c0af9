# An install's files are on disk before anything refers to them: under strace, every file
# of the version is created, then the file system is synced, then the folder renamed into
# place, then the index records it complete.
. "$TESTS_DIR/cli/lib.sh"

if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
  skip "install syncs before it renames" "no strace, or ptrace is not allowed here"
  done_testing
  exit 0
fi

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
"$CDM" list >/dev/null # the store and its index exist before the traced run
trace=$SCRATCH/trace
# (LeakSanitizer cannot run under ptrace: a sanitized cdm checks no leaks in this one run)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
  strace -f -y -o "$trace" -e trace=openat,syncfs,fsync,fdatasync,rename,renameat,renameat2,pwrite64,write \
  "$CDM" install "$a" >/dev/null 2>&1
check "the traced install succeeds" test -d "$CDM_ROOT/9.1.0.70-cuda12/lib"

# line numbers of the first / last match of an extended regex in the trace
first() { grep -nE "$1" "$trace" | head -1 | cut -d: -f1; }
last() { grep -nE "$1" "$trace" | tail -1 | cut -d: -f1; }
created=$(last 'openat\(.*\.staging/9\.1\.0\.70-cuda12\.[0-9]+\.tmp/.*O_CREAT')
synced=$(first '^[0-9]+ +syncfs\(.*= 0')
to_ready=$(first 'rename.*\.tmp.*\.ready')
into_place=$(first 'rename.*\.ready", .*9\.1\.0\.70-cuda12"')
recorded=$(last 'pwrite64\([0-9]+</[^>]*cdm\.db-wal>')
diag "last file created: ${created:-none}, syncfs: ${synced:-none}, renamed to .ready: ${to_ready:-none}, into place: ${into_place:-none}, last index write: ${recorded:-none}"
check "files are written before the sync" test -n "$created" -a -n "$synced" && [ "$created" -lt "$synced" ]
check "the file system is synced before the first rename" test -n "$to_ready" && [ "$synced" -lt "$to_ready" ]
check "the version is renamed into place after that" test -n "$into_place" && [ "$to_ready" -lt "$into_place" ]
check "and the index's last write (the install complete) comes after it" test -n "$recorded" && [ "$into_place" -lt "$recorded" ]
check "no file of the version is created after the sync" \
  test -z "$(sed -n "$((synced + 1)),\$p" "$trace" | grep -E 'openat\(.*9\.1\.0\.70-cuda12.*O_CREAT')"

done_testing
