/*
 * The file system API (fs.h) on this platform: UTF-8 names, paths past MAX_PATH on
 * Windows, create-never-follows, rename, locks, and a recursive delete that never enters
 * a link. Run with a scratch folder as argv[1].
 */
#include "engine/core/internal.h"
#include "platform/fs.h"
#include "platform/link.h"
#include "tap.h"
#include "testenv.h"

#include <stdlib.h>

/* "données-日本" in UTF-8, spelled out so that no editor or compiler recodes it */
#define NON_ASCII                                                                                  \
    "donn\xc3\xa9"                                                                                 \
    "es-\xe6\x97\xa5\xe6\x9c\xac"

static bool write_file(cdm_ctx *ctx, const char *path, const char *text)
{
    struct fs_file *f = NULL;
    if (fs_file_create(ctx, path, false, &f) != CDM_OK)
        return false;
    if (fs_file_write(ctx, f, text, strlen(text)) != CDM_OK) {
        fs_file_abort(f);
        return false;
    }
    return fs_file_close(ctx, f) == CDM_OK;
}

static char *read_file(const char *path)
{
    FILE *f = fs_fopen(path, "rb");
    if (!f)
        return NULL;
    char buf[256];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return xstrdup(buf);
}

static void names(cdm_ctx *ctx, const char *scratch)
{
    char *dir = path_join(scratch, NON_ASCII);
    char *deep = path_join(dir, "a/b");
    is_int(fs_mkdir_p(ctx, deep), CDM_OK, "mkdir -p below a non-ASCII folder");
    is_int(fs_kind(deep), FS_DIR, "it is a folder");
    char *file = path_join(dir, "\xc3\xa9t\xc3\xa9.txt");
    ok(write_file(ctx, file, "hello"), "create and write a file with a non-ASCII name");
    char *back = read_file(file);
    is_str(back, "hello", "fs_fopen reads it back by its UTF-8 name");
    free(back);
    struct fs_file *f = NULL;
    ok(fs_file_create(ctx, file, false, &f) != CDM_OK && !f,
       "creating over an existing file fails");
    char **list = NULL;
    is_int(fs_list_dir(ctx, dir, &list), CDM_OK, "list the folder");
    ok(list && list[0] && list[1] && !list[2] && !strcmp(list[0], "a") &&
           !strcmp(list[1], "\xc3\xa9t\xc3\xa9.txt"),
       "names come back in UTF-8, sorted");
    cdm_strv_free(list);
    char *real = fs_realpath(dir);
    ok(real && fs_kind(real) == FS_DIR && strstr(real, NON_ASCII),
       "fs_realpath keeps the non-ASCII name");
    free(real);
    char **none = NULL;
    is_int(fs_list_dir(ctx, file, &none) != CDM_OK, 1, "listing a file fails");
    char *missing = path_join(scratch, "missing");
    is_int(fs_list_dir(ctx, missing, &none), CDM_ENOTFOUND, "listing a missing folder: not found");
    /* the quiet form, without a context: the same names, or NULL */
    list = fs_list_names(dir);
    ok(list && list[0] && list[1] && !list[2], "fs_list_names: the folder's names");
    cdm_strv_free(list);
    ok(!fs_list_names(missing) && !fs_list_names(file), "and NULL where there is no folder");
    free(missing);

    char *renamed = path_join(dir, "renamed.txt");
    is_int(fs_rename(ctx, file, renamed), CDM_OK, "rename a file");
    ok(write_file(ctx, file, "second"), "write another");
    is_int(fs_rename(ctx, file, renamed), CDM_OK, "rename replaces an existing file");
    back = read_file(renamed);
    is_str(back, "second", "with the new content");
    free(back);
    is_int(fs_kind(file), FS_NONE, "and the old name is gone");

    is_int(fs_remove_tree(ctx, dir), CDM_OK, "remove the tree");
    is_int(fs_kind(dir), FS_NONE, "it is gone");
    is_int(fs_remove_tree(ctx, dir), CDM_OK, "removing what is gone is fine");
    free(renamed);
    free(file);
    free(deep);
    free(dir);
}

static void long_paths(cdm_ctx *ctx, const char *scratch)
{
    /* 12 levels of 30 characters: past Windows' MAX_PATH of 260 */
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, scratch);
    sb_add(&sb, "/long");
    char *top = xstrdup(sb_str(&sb));
    for (int i = 0; i < 12; i++)
        sb_addf(&sb, "/level-%02d-abcdefghijklmnopqrstu", i);
    ok(sb.len > 400, "the path is %zu bytes long", sb.len);
    is_int(fs_mkdir_p(ctx, sb_str(&sb)), CDM_OK, "mkdir -p past MAX_PATH");
    char *file = path_join(sb_str(&sb), "cudnn_adv_infer64_8.dll");
    ok(write_file(ctx, file, "dll"), "create a file past MAX_PATH");
    is_int(fs_kind(file), FS_FILE, "it is a file");
    struct fs_reader *r = NULL;
    uint64_t size = 0;
    is_int(fs_reader_open(ctx, file, &r, &size), CDM_OK, "open it for reading");
    is_int(size, 3, "its size");
    fs_reader_close(r);
    is_int(fs_remove_tree(ctx, top), CDM_OK, "remove the deep tree");
    is_int(fs_kind(top), FS_NONE, "all of it");
    free(file);
    free(top);
    sb_free(&sb);
}

static void delete_never_follows(cdm_ctx *ctx, const char *scratch)
{
    char *outside = path_join(scratch, "precious");
    char *keep = path_join(outside, "keep.txt");
    char *tree = path_join(scratch, "tree");
    char *inner = path_join(tree, "bin");
    char *link = path_join(inner, "escape");
    fs_mkdir_p(ctx, outside);
    write_file(ctx, keep, "keep");
    fs_mkdir_p(ctx, inner);
    const char *why = testenv_links_unavailable();
    if (why) {
        printf("ok %d - a link inside a deleted tree is removed, not entered # SKIP %s\n",
               ++tap_count, why);
        printf("ok %d - the link's target keeps its files # SKIP %s\n", ++tap_count, why);
    } else {
        /* a junction's target is a full path: the scratch folder may come as /x/y */
        char *target = fs_absolute(outside);
        int rc = link_set(ctx, link, target);
        free(target);
        ok(rc == CDM_OK && fs_kind(link) == FS_LINK, "a project link inside the tree (%s)",
           rc ? cdm_error_message(ctx) : "made");
        is_int(fs_remove_tree(ctx, tree), CDM_OK,
               "a link inside a deleted tree is removed, not entered");
        ok(fs_kind(keep) == FS_FILE && fs_kind(tree) == FS_NONE,
           "the link's target keeps its files");
    }
    fs_remove_tree(ctx, tree);
    fs_remove_tree(ctx, outside);
    free(link);
    free(inner);
    free(tree);
    free(keep);
    free(outside);
}

static void locks(cdm_ctx *ctx, const char *scratch)
{
    char *path = path_join(scratch, ".lock");
    struct fs_lock_handle *lock = NULL;
    is_int(fs_lock(ctx, path, &lock), CDM_OK, "take the lock");
    fs_unlock(lock);
    lock = NULL;
    is_int(fs_lock(ctx, path, &lock), CDM_OK, "take it again after unlocking");
    fs_unlock(lock);
    fs_remove_file(ctx, path);
    is_int(fs_kind(path), FS_NONE, "remove the lock file");
    free(path);
}

/* fs_kinds answers as fs_kind does for each path: folders read once when they hold
 * several, asked per path when they hold few, are missing, or are too large to read. */
static void kinds_at_once(cdm_ctx *ctx, const char *scratch)
{
    char *many = path_join(scratch, "kinds"), *big = path_join(scratch, "kinds-big");
    fs_mkdir_p(ctx, many);
    fs_mkdir_p(ctx, big);
    struct strbuf name = STRBUF_INIT;
    const char *asked[64];
    char *owned[64];
    size_t n = 0;
    for (int i = 0; i < 12; i++) { /* files and folders, each asked for */
        sb_reset(&name);
        sb_addf(&name, "%s/%s%02d", many, i % 3 ? "f" : "d", i);
        if (i % 3)
            write_file(ctx, sb_str(&name), "x");
        else
            fs_mkdir(ctx, sb_str(&name));
        asked[n] = owned[n] = xstrdup(sb_str(&name));
        n++;
    }
    char *link = path_join(many, "link");
    bool linked = fs_symlink(ctx, "f01", link) == CDM_OK;
    const char *extra[] = {link, "missing-1", "missing-2"};
    for (size_t i = 0; i < 3; i++) {
        asked[n] = owned[n] = i ? path_join(many, extra[i]) : xstrdup(extra[i]);
        n++;
    }
    asked[n] = owned[n] = xstrdup(owned[1]); /* the same path twice */
    n++;
    for (int i = 0; i < 9; i++) { /* a folder that is not there */
        sb_reset(&name);
        sb_addf(&name, "%s/absent/p%d", scratch, i);
        asked[n] = owned[n] = xstrdup(sb_str(&name));
        n++;
    }
    /* a folder of 1,600 entries asked about 8: read only up to its budget, then asked per path */
    for (int i = 0; i < 1600; i++) {
        sb_reset(&name);
        sb_addf(&name, "%s/e%04d", big, i);
        write_file(ctx, sb_str(&name), "");
        if (i % 200 == 7) {
            asked[n] = owned[n] = xstrdup(sb_str(&name));
            n++;
        }
    }
    enum fs_kind got[64];
    fs_kinds(asked, n, got);
    size_t same = 0;
    for (size_t i = 0; i < n; i++) {
        same += got[i] == fs_kind(asked[i]);
        if (got[i] != fs_kind(asked[i]))
            printf("# %s: %d, fs_kind says %d\n", asked[i], (int)got[i], (int)fs_kind(asked[i]));
    }
    is_int((int)same, (int)n,
           "fs_kinds agrees with fs_kind on %zu paths (files, folders, %s, "
           "missing names and folders, a repeat, a large folder)",
           n, linked ? "a link" : "no link: none can be made here");
    ok(got[0] == FS_DIR && got[1] == FS_FILE && got[13] == FS_NONE && got[15] == FS_FILE,
       "and the kinds are the right ones");
    fs_kinds(asked, 0, got);
    ok(true, "no paths: nothing asked");
    for (size_t i = 0; i < n; i++)
        free(owned[i]);
    sb_free(&name);
    free(link);
    free(big);
    free(many);
}

/* Reading the first bytes of a large file reads those, not the file (is_zip on a 366 MB
 * archive read all of it). */
static void read_stops_at_max(cdm_ctx *ctx, const char *scratch)
{
    char *path = path_join(scratch, "large");
    struct fs_file *f = NULL;
    static char block[65536];
    memset(block, 'z', sizeof(block));
    bool made = fs_file_create(ctx, path, false, &f) == CDM_OK;
    for (int i = 0; made && i < 16; i++)
        made = fs_file_write(ctx, f, block, sizeof(block)) == CDM_OK;
    made = f && fs_file_close(ctx, f) == CDM_OK && made;
    FILE *in = fs_fopen(path, "rb");
    struct strbuf head = STRBUF_INIT;
    bool read = in && sb_read_stream(&head, in, 4);
    long at = in ? ftell(in) : -1;
    if (in)
        fclose(in);
    ok(made && read && head.len == 4 && at == 4,
       "the first 4 bytes of a 1 MiB file: 4 kept, and the file read no further (at %ld)", at);
    sb_reset(&head);
    ok(fs_read_file(path, 100000, &head) && head.len == 100000, "fs_read_file keeps max bytes");
    sb_free(&head);
    free(path);
}

/* Reading a tree someone else controls (another store): no link followed on the way. */
static void read_below(cdm_ctx *ctx, const char *scratch)
{
    char *dir = path_join(scratch, "below");
    char *real = path_join(dir, "real"), *out = path_join(dir, "out");
    char *file = path_join(real, "f"), *other = path_join(out, "g");
    char *via = path_join(dir, "via"), *link = path_join(real, "l");
    bool made = fs_mkdir_p(ctx, real) == CDM_OK && fs_mkdir_p(ctx, out) == CDM_OK &&
                write_file(ctx, file, "x") && write_file(ctx, other, "y");
    struct fs_reader *r = NULL;
    uint64_t size = 0;
    ok(made && fs_reader_open_below(ctx, dir, "real/f", &r, &size) == CDM_OK && size == 1,
       "a file below a folder is opened");
    fs_reader_close(r);
    r = NULL;
    FILE *f = fs_fopen_read(file);
    ok(f != NULL, "fs_fopen_read opens a regular file");
    if (f)
        fclose(f);
    ok(fs_fopen_read(real) == NULL, "but not a folder");
    const char *why = testenv_links_unavailable();
    if (why) {
        printf("ok %d - # SKIP links below: %s\n", ++tap_count, why);
    } else {
        fs_symlink(ctx, out, via);
        fs_symlink(ctx, "f", link);
        ok(fs_reader_open_below(ctx, dir, "via/g", &r, NULL) != CDM_OK &&
               strstr(cdm_error_message(ctx), "'via' is a link"),
           "a folder on the way that is a link is refused, named: %s", cdm_error_message(ctx));
        ok(fs_reader_open_below(ctx, dir, "real/l", &r, NULL) != CDM_OK &&
               strstr(cdm_error_message(ctx), "link"),
           "so is a file that is a link: %s", cdm_error_message(ctx));
    }
    free(link);
    free(via);
    free(other);
    free(file);
    free(out);
    free(real);
    free(dir);
}

/* The one atomic writer: the whole file or the old one, never written through a link. */
/* Why a link replaced by a rename cannot be checked here (NULL: it can): asked in the
 * folder above the scratch one, so that what the probe may leave (Wine) is not in it. */
static const char *rename_over_link_why;

static void atomic_writes(cdm_ctx *ctx, const char *scratch)
{
    char *path = path_join(scratch, "atomic"), *other = path_join(scratch, "atomic-other");
    is_int(fs_atomic_write_whole(ctx, path, "one", 3), CDM_OK, "a new file written whole");
    is_int(fs_atomic_write_whole(ctx, path, "two!", 4), CDM_OK, "and replaced whole");
    char *text = read_file(path);
    is_str(text, "two!", "it holds the new text");
    free(text);
    struct fs_atomic *a = NULL;
    ok(fs_atomic_open(ctx, path, false, &a) == CDM_OK &&
           fs_atomic_write(ctx, a, "half", 4) == CDM_OK,
       "a replacement begun");
    fs_atomic_abort(ctx, a);
    text = read_file(path);
    is_str(text, "two!", "an abandoned one leaves the old file");
    free(text);
    char **names = NULL;
    fs_list_dir(ctx, scratch, &names);
    bool leftover = false;
    for (char **n = names; n && *n; n++)
        leftover |= strstr(*n, ".cdm-") != NULL;
    strv_free(names);
    ok(!leftover, "and no temporary file beside it");
    const char *why = rename_over_link_why;
    if (why) {
        printf("ok %d - # SKIP a link replaced: %s\n", ++tap_count, why);
    } else {
        write_file(ctx, other, "other");
        fs_remove_file(ctx, path);
        fs_symlink(ctx, other, path);
        fs_atomic_write_whole(ctx, path, "new", 3);
        text = read_file(other);
        ok(fs_kind(path) == FS_FILE && text && !strcmp(text, "other"),
           "a link at the path is replaced, nothing written through it");
        free(text);
    }
    free(other);
    free(path);
}

static void paths(void)
{
    char *p = path_join("C:\\cudnn_archive", "8.8.0.121-cuda11");
    is_str(p, "C:\\cudnn_archive\\8.8.0.121-cuda11", "a Windows path is joined with '\\'");
    free(p);
    p = path_join("\\\\server\\share\\", "x");
    is_str(p, "\\\\server\\share\\x", "a UNC path too, without doubling it");
    free(p);
    p = path_join("/home/u/.local/share/cdm", "9.1.0.70-cuda12");
    is_str(p, "/home/u/.local/share/cdm/9.1.0.70-cuda12", "a POSIX path with '/'");
    free(p);
    char *cwd = fs_getcwd();
    char *abs = fs_absolute("rel");
    ok(abs && str_starts_with(abs, cwd) && str_ends_with(abs, "rel"),
       "fs_absolute puts the current folder first ('%s')", abs ? abs : "");
    free(abs);
    free(cwd);
}

/* Positions past 4 GiB (cuDNN's Windows zips pass 2 GiB; long is 32 bits on Win64), in a
 * sparse file, so that the test writes two bytes. */
static void big_offsets(cdm_ctx *ctx, const char *scratch)
{
    char *path = path_join(scratch, "sparse.bin");
    const long long far = (5LL << 30) + 7; /* 5 GiB and a bit */
    FILE *f = fs_fopen(path, "w+b");
    ok(f != NULL, "make a sparse file");
    if (f) {
        ok(fs_seek(f, far, SEEK_SET) == 0 && fputc('Z', f) == 'Z' && fflush(f) == 0,
           "write a byte past 5 GiB");
        ok(fs_seek(f, 0, SEEK_END) == 0 && fs_tell(f) == far + 1, "the size reads as %lld",
           far + 1);
        ok(fs_seek(f, far, SEEK_SET) == 0 && fs_tell(f) == far && fgetc(f) == 'Z',
           "and the byte reads back from there");
        fclose(f);
    }
    fs_remove_file(ctx, path);
    free(path);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_fs SCRATCH_FOLDER\n");
        return 2;
    }
    cdm_ctx *ctx = xcalloc(1, sizeof(*ctx));
    char *scratch = path_join(argv[1], "test_fs.tmp");
    fs_remove_tree(ctx, scratch);
    ok(fs_mkdir_p(ctx, scratch) == CDM_OK, "make the scratch folder '%s'", scratch);
    rename_over_link_why = testenv_rename_over_link_unavailable(argv[1]);
    names(ctx, scratch);
    long_paths(ctx, scratch);
    delete_never_follows(ctx, scratch);
    locks(ctx, scratch);
    kinds_at_once(ctx, scratch);
    read_stops_at_max(ctx, scratch);
    read_below(ctx, scratch);
    atomic_writes(ctx, scratch);
    big_offsets(ctx, scratch);
    paths();
    int cleaned = fs_remove_tree(ctx, scratch);
    is_int(cleaned, CDM_OK, "clean up");
    if (cleaned)
        printf("# %s\n", cdm_error_message(ctx));
    free(scratch);
    cdm_ctx_free(ctx);
    return tap_done();
}
