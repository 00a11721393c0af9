/* libFuzzer: cdm's own reading of a zip (zip_directory.c) and the inflating of every entry
 * it finds (zip_pipe.c, inflate.c: zlib here, as CDM_TEST_INFLATE says, and ISA-L where it
 * loads), from a file holding the input, as the workers of zip_extract.c read an archive.
 * And against libarchive, which the install's entry checks read: where both read an entry
 * of one name without an error, they must give the same bytes (an install refuses when
 * either one refuses; two different readings would install bytes nobody checked). */
#include "engine/core/internal.h"
#include "engine/extract/cdm_archive.h"
#include "engine/extract/inflate.h"
#include "engine/extract/zip_in.h"
#include "engine/extract/zip_pipe.h"
#include "platform/fs.h"

#include <archive.h>
#include <archive_entry.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int take(void *arg, cdm_ctx *ctx, const unsigned char *buf, size_t n)
{
    (void)ctx;
    *(uint64_t *)arg += buf[0] + buf[n - 1] + n; /* ASan sees a read past the bytes */
    return 0;
}

#define DIFF_MAX (1u << 20) /* entries compared, at most this long */

static int append(void *arg, cdm_ctx *ctx, const unsigned char *buf, size_t n)
{
    (void)ctx;
    struct strbuf *sb = arg;
    if (sb->len + n > DIFF_MAX)
        return CDM_EARCHIVE;
    sb_addn(sb, (const char *)buf, n);
    return 0;
}

/* cdm's reading of the entry name of size bytes, where it takes one: true with its bytes. */
static bool ours(struct zip_in *r, const struct zip_directory *d, const char *path,
                 const char *name, uint64_t size, struct strbuf *out)
{
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    const struct zip_dir_entry *e = zip_directory_find(d, name, size);
    bool read = false;
    if (e && e->size <= DIFF_MAX) {
        struct zip_pipe *p = zip_pipe_new();
        atomic_bool stop = false;
        struct zip_taker t = {append, out};
        read = zip_pipe_entry(&ctx, p, r, path, name, e, e->data_start, &t, &stop) == CDM_OK;
        zip_pipe_free(p);
    }
    error_state_free(&ctx.err);
    return read;
}

/* Every regular entry libarchive reads without a warning, read by cdm too: the same bytes. */
static void compare_with_libarchive(struct zip_in *r, const struct zip_directory *d,
                                    const char *path)
{
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct zip_source *src = NULL;
    struct archive *a = zip_open(&ctx, path, &src);
    struct archive_entry *e;
    for (int n = 0; a && n < 1000 && archive_read_next_header(a, &e) == ARCHIVE_OK; n++) {
        const char *name = archive_entry_pathname(e);
        if (!name || archive_entry_filetype(e) != AE_IFREG || !archive_entry_size_is_set(e) ||
            archive_entry_size(e) < 0 || archive_entry_size(e) > DIFF_MAX)
            continue;
        struct strbuf theirs = STRBUF_INIT, mine = STRBUF_INIT;
        char buf[4096];
        la_ssize_t k;
        while ((k = archive_read_data(a, buf, sizeof(buf))) > 0 && theirs.len <= DIFF_MAX)
            sb_addn(&theirs, buf, (size_t)k);
        bool both = k == 0 && ours(r, d, path, name, (uint64_t)archive_entry_size(e), &mine);
        if (both && (mine.len != theirs.len || memcmp(mine.buf, theirs.buf, mine.len)))
            abort(); /* two readings of one zip: the finding */
        sb_free(&theirs);
        sb_free(&mine);
    }
    if (a)
        zip_close(a, src);
    error_state_free(&ctx.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof(path), "/tmp/fuzz_zip.%ld", (long)getpid());
        inflate_choose();
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct cdm_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    struct zip_in *r;
    uint64_t file_size;
    if (zip_in_open(&ctx, path, NULL, false, &r, &file_size))
        goto out;
    struct zip_directory d;
    /* as read_directory (zip_extract.c): a local header that disagrees refuses the zip */
    bool usable = zip_directory_read(&ctx, r, file_size, 1000, &d);
    if (usable && zip_directory_check_locals(&ctx, r, &d, path) < 0) {
        zip_directory_free(&d);
        usable = false;
    }
    if (usable) {
        struct zip_pipe *p = zip_pipe_new();
        atomic_bool stop = false;
        for (size_t i = 0; i < d.count; i++) {
            const struct zip_dir_entry *e = &d.entries[i];
            char *name = xstrndup(e->name, e->name_len);
            const struct zip_dir_entry *found = zip_directory_find(&d, name, e->size);
            uint64_t seen = 0;
            struct zip_taker t = {take, &seen};
            /* 64 MiB at most an entry: a bomb of a few bytes must not take the fuzzer's time */
            if (found && found->size < (64u << 20))
                zip_pipe_entry(&ctx, p, r, path, name, found, found->data_start, &t, &stop);
            free(name);
        }
        zip_pipe_free(p);
        compare_with_libarchive(r, &d, path);
        zip_directory_free(&d);
    }
    zip_in_close(r);
out:
    error_state_free(&ctx.err);
    unlink(path); /* nothing left in /tmp after the run */
    return 0;
}
