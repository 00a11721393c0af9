/*
 * A rename or delete waits for another program that holds the file open without sharing
 * deletion (fs_wait_win32.h), as antivirus scanners and indexers do with fresh files: here
 * a handle of this process, closed by a thread after a while. Also: the wait's limit
 * (fs_set_retry_ms), 0 failing at once with the file named, a denial that no wait can
 * end answered at once, and which errors count. Windows only; run with a scratch folder
 * as argv[1].
 */
#include "engine/core/internal.h"
#include "platform/fs.h"
#include "platform/fs_wait_win32.h"
#include "platform/win32_util.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

struct warnings {
    int count;
    char last[1024];
};

static void on_warn(void *arg, const char *message)
{
    struct warnings *w = arg;
    w->count++;
    snprintf(w->last, sizeof(w->last), "%s", message);
}

struct release {
    HANDLE file;
    DWORD after_ms;
};

static DWORD WINAPI release_later(void *arg)
{
    struct release *r = arg;
    Sleep(r->after_ms);
    CloseHandle(r->file);
    return 0;
}

static void make_file(cdm_ctx *ctx, const char *path)
{
    struct fs_file *f = NULL;
    ok(fs_file_create(ctx, path, false, &f) == CDM_OK && fs_file_write(ctx, f, "x", 1) == CDM_OK &&
           fs_file_close(ctx, f) == CDM_OK,
       "create '%s'", path);
}

/* Open path as a scanner does: reading and writing shared, deletion not. */
static HANDLE hold(const char *path)
{
    wchar_t *w = win_path(path);
    HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    ok(h != INVALID_HANDLE_VALUE, "hold '%s' open without sharing deletion", path);
    return h;
}

/* Hold path for ms in another thread's care; returns the thread. */
static HANDLE hold_for(const char *path, DWORD ms, struct release *r)
{
    r->file = hold(path);
    r->after_ms = ms;
    return CreateThread(NULL, 0, release_later, r, 0, NULL);
}

static void errors_that_count(void)
{
    ok(win_held_error(ERROR_SHARING_VIOLATION, false), "a sharing violation is waited out");
    ok(win_held_error(ERROR_LOCK_VIOLATION, false), "a lock violation too");
    ok(win_held_error(ERROR_DIR_NOT_EMPTY, false),
       "a folder whose last file's deletion is pending");
    ok(win_held_error(ERROR_ACCESS_DENIED, true), "a denial where nothing says it is for good");
    ok(!win_held_error(ERROR_ACCESS_DENIED, false), "not a denial of a read-only file or a folder");
    ok(!win_held_error(ERROR_FILE_NOT_FOUND, true), "nor a missing file");
    ok(!win_held_error(ERROR_DISK_FULL, true), "nor a full disk");
}

static void waits(cdm_ctx *ctx, struct warnings *warned, const char *scratch)
{
    char *file = path_join(scratch, "fresh.dll");
    char *moved = path_join(scratch, "moved.dll");
    make_file(ctx, file);
    fs_set_retry_ms(20 * 1000);
    struct release r;
    HANDLE t = hold_for(file, 3000, &r);
    ULONGLONG t0 = GetTickCount64();
    int rc = fs_rename(ctx, file, moved);
    ULONGLONG took = GetTickCount64() - t0;
    is_int(rc, CDM_OK, "a rename of a held file succeeds once the holder lets go (%llu ms)", took);
    ok(took >= 2500, "it waited for the holder (%llu ms, the holder 3000 ms)", took);
    ok(fs_kind(moved) == FS_FILE && fs_kind(file) == FS_NONE, "the file moved");
    is_int(warned->count, 1, "one warning");
    ok(strstr(warned->last, "fresh.dll' is held open by another program (an antivirus "
                            "scanner?); waiting up to 20 s") != NULL,
       "naming the file and the wait: %s", warned->last);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);

    /* a short hold: the wait ends before the warning is due */
    warned->count = 0;
    t = hold_for(moved, 500, &r);
    rc = fs_remove_file(ctx, moved);
    is_int(rc, CDM_OK, "a delete of a file held half a second succeeds");
    is_int(warned->count, 0, "without a warning: it waited less than 2 s");
    ok(fs_kind(moved) == FS_NONE, "the file is gone");
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);

    /* a tree: its held file waited for, the tree then gone */
    char *tree = path_join(scratch, "tree");
    char *deep = path_join(tree, "bin/x64");
    char *dll = path_join(deep, "cudnn64_9.dll");
    fs_mkdir_p(ctx, deep);
    make_file(ctx, dll);
    t = hold_for(dll, 2500, &r);
    is_int(fs_remove_tree(ctx, tree), CDM_OK,
           "a tree with a held file is deleted once it is let go");
    ok(fs_kind(tree) == FS_NONE, "the tree is gone");
    ok(strstr(warned->last, "cudnn64_9.dll' is held open") != NULL, "the warning names the file");
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    free(dll);
    free(deep);
    free(tree);
    free(moved);
    free(file);
}

static void gives_up(cdm_ctx *ctx, struct warnings *warned, const char *scratch)
{
    char *file = path_join(scratch, "held.dll");
    char *moved = path_join(scratch, "held-moved.dll");
    make_file(ctx, file);
    HANDLE h = hold(file);

    fs_set_retry_ms(0);
    warned->count = 0;
    ULONGLONG t0 = GetTickCount64();
    int rc = fs_rename(ctx, file, moved);
    ULONGLONG took = GetTickCount64() - t0;
    is_int(rc, CDM_EIO, "retry 0: the rename of a held file fails (%llu ms)", took);
    ok(took < 1000, "at once");
    is_int(warned->count, 0, "nothing is announced");
    const char *msg = cdm_error_message(ctx);
    ok(strstr(msg, "cannot rename '") && strstr(msg, "held.dll' to '") &&
           strstr(msg, "another program holds it open") && strstr(msg, "[windows] retry_seconds"),
       "the error names the file, the holder and the setting: %s", msg);
    rc = fs_remove_file(ctx, file);
    is_int(rc, CDM_EIO, "a delete too");
    msg = cdm_error_message(ctx);
    ok(strstr(msg, "cannot delete '") && strstr(msg, "held.dll': "), "naming the file: %s", msg);

    fs_set_retry_ms(1500);
    t0 = GetTickCount64();
    rc = fs_remove_file(ctx, file);
    took = GetTickCount64() - t0;
    is_int(rc, CDM_EIO, "retry 1.5 s: the delete fails while the file stays held");
    ok(took >= 1400 && took < 4000, "after the limit (%llu ms)", took);
    msg = cdm_error_message(ctx);
    ok(strstr(msg, "still after 2 s") != NULL, "saying how long it waited: %s", msg);
    CloseHandle(h);

    /* a denial no wait can end: a file where a folder is */
    char *folder = path_join(scratch, "a-folder");
    fs_mkdir(ctx, folder);
    fs_set_retry_ms(20 * 1000);
    t0 = GetTickCount64();
    rc = fs_rename(ctx, file, folder);
    took = GetTickCount64() - t0;
    is_int(rc, CDM_EIO, "a file renamed onto a folder is refused");
    ok(took < 1000, "at once, not after the wait (%llu ms)", took);
    ok(!strstr(cdm_error_message(ctx), "another program"), "without blaming another program: %s",
       cdm_error_message(ctx));
    free(folder);
    free(moved);
    free(file);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_fs_wait_win32 SCRATCH_FOLDER\n");
        return 2;
    }
    struct warnings warned = {0, ""};
    cdm_ctx *ctx = xcalloc(1, sizeof(*ctx));
    ctx->err.warn = on_warn;
    ctx->err.warn_arg = &warned;
    char *scratch = path_join(argv[1], "test_fs_wait.tmp");
    fs_remove_tree(ctx, scratch);
    ok(fs_mkdir_p(ctx, scratch) == CDM_OK, "make the scratch folder '%s'", scratch);
    errors_that_count();
    waits(ctx, &warned, scratch);
    gives_up(ctx, &warned, scratch);
    fs_set_retry_ms(0);
    is_int(fs_remove_tree(ctx, scratch), CDM_OK, "clean up");
    free(scratch);
    cdm_ctx_free(ctx);
    return tap_done();
}
