/*
 * The file system, as the core needs it. One implementation per platform:
 * fs_posix.c and fs_win32.c; paths are UTF-8 everywhere in cdm.
 */
#ifndef CDM_FS_H
#define CDM_FS_H

#include "cdm.h"
#include "base/error.h"

#include <stdint.h>
#include <stdio.h>

/* fseek and ftell with 64-bit positions (long is 32 bits on Win64, and cuDNN's Windows
 * zips pass 2 GiB): 0 or the position on success, -1 on failure. */
int fs_seek(FILE *f, long long off, int whence);
long long fs_tell(FILE *f);

enum fs_kind { FS_NONE, FS_FILE, FS_DIR, FS_LINK, FS_OTHER };

/* What is at path, without following a final link (or junction). */
enum fs_kind fs_kind(const char *path);
/* The kind of each of n paths, as fs_kind says it, into kinds[i]; folders holding several
 * of them are read once instead of asked about per path (cdm list: 10,000 projects). */
void fs_kinds(const char *const *paths, size_t n, enum fs_kind *kinds);

int fs_mkdir(cdm_ctx *ctx, const char *path); /* one level; an existing folder is fine */
int fs_mkdir_p(cdm_ctx *ctx, const char *path);
int fs_rename(cdm_ctx *ctx, const char *from, const char *to);
/* How long, in ms, a rename or delete (fs_rename, fs_remove_tree, fs_remove_file, the
 * project link's) waits for another program to close the file it holds: on Windows,
 * antivirus scanners, the Search indexer and sync clients briefly open fresh files without
 * sharing deletion (fs_wait_win32.h); 0 fails at once. 60 s unless set; the engine sets it
 * once, before any file work. Nothing on POSIX, where an open file blocks neither. */
void fs_set_retry_ms(unsigned ms);
/* Delete a tree we created. Links and junctions inside are removed, never entered; folders
 * without write bits (an install's) get their owner's back first, files the read-only
 * attribute taken off on Windows. */
int fs_remove_tree(cdm_ctx *ctx, const char *path);
int fs_remove_file(cdm_ctx *ctx, const char *path);
/* Remove path if it is an empty folder: true when it went. Anything else (a folder with
 * something in it, a link, a file) is left, which makes it safe on folders cdm did not make. */
bool fs_remove_if_empty_dir(const char *path);
/* Take the write bits off dir and every folder below it (links are not followed): nothing
 * can be added to, removed from or renamed in an install's folders (root aside). Windows
 * has no such bit for folders: its files carry the read-only attribute instead. */
int fs_seal_tree(cdm_ctx *ctx, const char *dir);
/* Give the folder dir its owner's write bit (writable), or take all write bits off it:
 * a folder without one cannot be moved to another parent (its ".." entry is written), so
 * an install's folder gets it for that move alone. Nothing on Windows. */
int fs_dir_set_writable(cdm_ctx *ctx, const char *dir, bool writable);
/* Make a rename in dir durable. */
void fs_sync_dir(const char *dir);

/* The names in a folder, without . and .., NULL-terminated, malloc'd (strv_free). ctx may
 * be NULL (a quiet call, error.h): fs_list_names. */
int fs_list_dir(cdm_ctx *ctx, const char *path, char ***names);
/* fs_list_dir without a context: the names, or NULL when the folder cannot be read (why
 * is of no interest: a folder that may well not be there). */
char **fs_list_names(const char *path);

/* An absolute, canonical form of an existing path (links resolved); NULL on failure. */
char *fs_realpath(const char *path);
/* Absolute without resolving links (for paths that may not exist yet). */
char *fs_absolute(const char *path);
char *fs_getcwd(void);

/* A file being written during extraction. */
struct fs_file;
/* Create a new file; fails when anything is already at path (never follows a link). */
int fs_file_create(cdm_ctx *ctx, const char *path, bool executable, struct fs_file **out);
/* The same for a file of an install: it gets no write bits (POSIX 0444, or 0555 when
 * executable; the read-only attribute on Windows). The handle writes all the same; once
 * closed, whatever tries to write through a path into the store fails (root aside). */
int fs_file_create_read_only(cdm_ctx *ctx, const char *path, bool executable, struct fs_file **out);
int fs_file_write(cdm_ctx *ctx, struct fs_file *f, const void *buf, size_t n);
/* Close; closes also after a failure. The data is durable once fs_sync_written has run on
 * a folder above it (Linux starts its writeback here, other systems flush each file here). */
int fs_file_close(cdm_ctx *ctx, struct fs_file *f);
/* Make every file written below dir with fs_file_create, and every folder entry there,
 * durable before anything refers to them: on Linux an fsync of each file and folder below
 * dir, many at once (its own writes only, not other programs'), or one syncfs of dir's file
 * system where the system has little pending beside so many entries (one call for 90,000
 * files instead of as many fsyncs); elsewhere fs_file_close flushed each. */
int fs_sync_written(cdm_ctx *ctx, const char *dir);
/* Put f's data on disk now, for a small file that replaces another by a rename (a pin, the
 * default): without it a power cut after the rename can leave the name on an empty file. */
int fs_file_flush(cdm_ctx *ctx, struct fs_file *f);
void fs_file_abort(struct fs_file *f);

/* A file replaced all at once, the one recipe for it (as git's lockfile.h):
 * fs_atomic_open creates <path>.cdm-<pid>.tmp beside path with O_EXCL (a leftover of a
 * killed cdm of the same pid removed first); fs_atomic_write appends; fs_atomic_commit puts
 * the data on disk, closes, renames it over path and syncs the folder, so that a power cut
 * leaves the old file or the new one, never an empty or half one; fs_atomic_abort removes
 * the temporary file. Both end the handle, whatever happens. path's own name is replaced:
 * nothing is written through a link there (a caller that means to, resolves it first). */
struct fs_atomic;
int fs_atomic_open(cdm_ctx *ctx, const char *path, bool executable, struct fs_atomic **out);
/* The process that wrote name as a temporary file of base: the pid of
 * "<base>.cdm-<pid>.tmp" (base NULL: of any file), else 0. */
uint64_t fs_temp_writer(const char *name, const char *base);
/* Remove from dir the temporary files of base (NULL: of any file) whose writer is gone, as a
 * kill between fs_atomic_open and the commit leaves them; fs_atomic_open does it for its own
 * path first. How many went; nothing else is touched, and no error is kept. */
unsigned fs_clean_stale_temps(cdm_ctx *ctx, const char *dir, const char *base);
int fs_atomic_write(cdm_ctx *ctx, struct fs_atomic *a, const void *buf, size_t n);
int fs_atomic_commit(cdm_ctx *ctx, struct fs_atomic *a);
void fs_atomic_abort(cdm_ctx *ctx, struct fs_atomic *a);
/* The whole of path replaced by len bytes of data, as above. */
int fs_atomic_write_whole(cdm_ctx *ctx, const char *path, const void *data, size_t len);

/* The permission bits (07777) of the file at path, not following a link; -1 where the
 * system has none (Windows) or the file cannot be examined. */
/* Whether the file at path is write-protected as the store's files are on Windows (the
 * read-only attribute): 1, 0, or -1 where that is not how the system protects them (POSIX:
 * fs_file_mode's write bits say it) or the file cannot be read. */
int fs_file_read_only(const char *path);
int fs_file_mode(const char *path);
/* How many names the regular file at path has (hard links), not following a link; 0 when
 * it cannot be examined. */
unsigned fs_link_count(const char *path);

/* A symbolic link inside a store folder (archives carry .so chains). */
int fs_symlink(cdm_ctx *ctx, const char *target, const char *path);
int fs_hardlink(cdm_ctx *ctx, const char *existing, const char *path);

/* Open a file for reading, sequentially. */
struct fs_reader;
int fs_reader_open(cdm_ctx *ctx, const char *path, struct fs_reader **out, uint64_t *size);
/* Open the regular file rel ('/'-separated) below the folder dir without following any link
 * or junction on the way from dir, and without opening anything that could block: a tree
 * that someone else controls (another store) cannot lead the read out of it. A link, a
 * folder or a special file there is refused, the message naming it (CDM_EINVAL). */
int fs_reader_open_below(cdm_ctx *ctx, const char *dir, const char *rel, struct fs_reader **out,
                         uint64_t *size);
/* Bytes read, 0 at end, negative on error (message set). */
long long fs_reader_read(cdm_ctx *ctx, struct fs_reader *r, void *buf, size_t n);
/* Move to offset from the start (whence 0), the current place (1) or the end (2); the new
 * place, or negative on error (message set). */
long long fs_reader_seek(cdm_ctx *ctx, struct fs_reader *r, long long offset, int whence);
void fs_reader_close(struct fs_reader *r);

/* An exclusive lock on a file, held until fs_unlock; waits for another holder. */
struct fs_lock_handle;
int fs_lock(cdm_ctx *ctx, const char *path, struct fs_lock_handle **out);
/* The same lock without waiting: CDM_EBUSY (no message) when another process holds it. */
int fs_lock_try(cdm_ctx *ctx, const char *path, struct fs_lock_handle **out);
void fs_unlock(struct fs_lock_handle *lock);

/* Who owns the file at path, for naming a shared store's writer: a user name ("DOMAIN\\name"
 * on Windows), else "uid N"; NULL when it cannot be told. malloc'd. */
char *fs_owner_name(const char *path);

/* Per-platform defaults. */
char *fs_default_root(void);
char *fs_default_config(void);
/* The user's state (projects, links, generations): ${XDG_DATA_HOME:-~/.local/share}/cdm/state.db,
 * %LOCALAPPDATA%\cdm\state.db on Windows. */
char *fs_default_state(void);
/* NVIDIA's name for this system: "linux-x86_64", "linux-sbsa", "windows-x86_64". */
const char *fs_host_platform(void);
/* Whether a platform name (an install's, an archive's) is Windows'; and this system's. */
bool fs_platform_is_windows(const char *platform);
bool fs_host_is_windows(void);
uint64_t fs_process_id(void);
/* Whether a process of that id runs (one of another user's counts): what tells a temporary
 * file named after its writer's pid from one a kill left. */
bool fs_process_running(uint64_t pid);
/* Sleep ms milliseconds (waiting on a lock that another process holds). */
void fs_sleep_ms(unsigned ms);

/* Fault injection for the crash tests: when CDM_CRASH_AT names this point, the process
 * kills itself with SIGKILL (TerminateProcess on Windows), as a power cut would stop it. */
void fs_crash_point(const char *name);

/* fopen for a UTF-8 path (Windows' fopen takes the ANSI code page). */
FILE *fs_fopen(const char *path, const char *mode);
/* fopen(path, "rb") for a file that a user, a repository or a program controls (a config,
 * a library, a dist-info METADATA, a checksum file): NULL, with nothing opened that could
 * block, unless path is a regular file (a link to one is followed). */
FILE *fs_fopen_read(const char *path);
/* Append at most max bytes of the regular file at path (through fs_fopen_read) to out (binary-safe;
 * out stays NUL-terminated). False when it cannot be opened or read (fs_common.c). */
bool fs_read_file(const char *path, size_t max, struct strbuf *out);
/* Append a small regular file (a link to one is followed) to out, opening nothing that can
 * block: a fifo, a device, a folder, a link to nothing or to one of these, a file that
 * cannot be read or one past max bytes is refused, the message naming path and what it
 * is (CDM_EIO). CDM_ENOTFOUND, with a message, when nothing is at path. */
int fs_read_regular(cdm_ctx *ctx, const char *path, size_t max, struct strbuf *out);
/* Two paths lead to the same existing file or folder (links resolved). */
bool fs_same_path(const char *a, const char *b);
/* A folder, or a link that leads to one (links followed to the end). */
bool fs_is_dir_followed(const char *path);
/* An environment variable in UTF-8, malloc'd; NULL when unset. */
char *fs_getenv(const char *name);

#endif
