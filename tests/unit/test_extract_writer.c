/*
 * The writer thread of an extraction (engine/extract/extract_writer.c): files handed over block by
 * block come out whole, with the hashes a single thread computes, in the order given; the
 * archive's bytes are hashed in order; a failure to write stops the reader and names the
 * file. Run with a scratch folder as argv[1].
 */
#include "engine/extract/extract_writer.h"
#include "platform/fs.h"
#include "platform/sha256.h"
#include "tap.h"

#include <stdlib.h>

#define FILES 40

static size_t size_of(int i) /* empty, tiny, a block and a byte, several blocks */
{
    static const size_t sizes[] = {0, 1, XW_BLOCK_SIZE + 1, 3 * XW_BLOCK_SIZE + 7, 1000};
    return sizes[i % 5];
}

static unsigned char byte_of(int file, size_t at)
{
    return (unsigned char)(file * 31 + at * 7 + (at >> 9));
}

static void expected_hash(int file, char out[65])
{
    struct sha256 *h = sha256_new();
    for (size_t at = 0; at < size_of(file); at++) {
        unsigned char c = byte_of(file, at);
        sha256_update(h, &c, 1);
    }
    sha256_finish_hex(h, out);
    sha256_free(h);
}

static void hand_over(struct extract_writer *w, int file)
{
    size_t size = size_of(file), at = 0;
    while (at < size) {
        struct xw_block *b = xw_take(w);
        size_t n = size - at < 5000 ? size - at : 5000; /* blocks not full: as a decoder gives */
        for (size_t k = 0; k < n; k++)
            b->data[k] = byte_of(file, at + k);
        b->len = n;
        at += n;
        xw_file_data(w, b);
    }
}

static void many_files(cdm_ctx *ctx, const char *dir)
{
    struct sha256 *archive = sha256_new(), *direct = sha256_new();
    struct extract_writer *w = xw_start(archive);
    bool handed = true;
    for (int i = 0; i < FILES; i++) {
        /* some archive bytes between the files, held a while as the decoder holds them */
        struct xw_block *in = xw_take(w);
        snprintf((char *)in->data, 64, "archive part %d", i);
        in->len = strlen((char *)in->data);
        sha256_update(direct, in->data, in->len);
        xw_archive_bytes(w, in);
        char name[32];
        snprintf(name, sizeof(name), "f%02d", i);
        char *path = path_join(dir, name);
        handed = handed && xw_file_open(w, path, i % 2);
        hand_over(w, i);
        handed = handed && xw_file_close(w);
        xw_give_back(w, in);
        free(path);
    }
    ok(handed, "%d files handed over", FILES);
    struct xw_file *files = NULL;
    size_t count = 0;
    is_int(xw_finish(w, ctx, &files, &count), CDM_OK, "the writer finished");
    is_int(count, FILES, "every file came back");
    int good = 0, sized = 0;
    for (size_t i = 0; i < count; i++) {
        char want[65];
        expected_hash((int)i, want);
        good += !strcmp(files[i].sha256, want);
        char name[32];
        snprintf(name, sizeof(name), "f%02zu", i);
        char *path = path_join(dir, name);
        struct strbuf sb = STRBUF_INIT;
        sized += fs_read_file(path, 4 * XW_BLOCK_SIZE, &sb) && sb.len == size_of((int)i) &&
                 files[i].size == size_of((int)i);
        sb_free(&sb);
        free(path);
    }
    is_int(good, FILES, "each file's hash is the one of its bytes, in order");
    is_int(sized, FILES, "each file on disk has its size");
    char a[65], b[65];
    sha256_finish_hex(archive, a);
    sha256_finish_hex(direct, b);
    is_str(a, b, "the archive's bytes were hashed in order");
    free(files);
    xw_free(w);
    sha256_free(archive);
    sha256_free(direct);
}

static void failure(cdm_ctx *ctx, const char *dir)
{
    struct sha256 *archive = sha256_new();
    struct extract_writer *w = xw_start(archive);
    char *path = path_join(dir, "f00"); /* written by many_files: create refuses it */
    bool open = xw_file_open(w, path, false);
    int taken = 0;
    /* the reader goes on until it is told: at most a pool of blocks later */
    for (int i = 0; open && i < 1000; i++) {
        struct xw_block *b = xw_take(w);
        if (!b)
            break;
        b->len = 10;
        taken++;
        xw_file_data(w, b);
    }
    ok(taken < 1000, "the reader is stopped once the writer failed (after %d blocks)", taken);
    struct xw_file *files = NULL;
    size_t count = 0;
    int rc = xw_finish(w, ctx, &files, &count);
    ok(rc != CDM_OK, "the writer's failure is returned");
    const char *msg = cdm_error_message(ctx);
    ok(msg && strstr(msg, "f00"), "its message names the file: %s", msg ? msg : "(none)");
    is_int(count, 0, "no file came back");
    free(files);
    xw_free(w);
    sha256_free(archive);
    free(path);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_extract_writer SCRATCH_FOLDER\n");
        return 2;
    }
    cdm_ctx *ctx = xcalloc(1, sizeof(*ctx));
    char *scratch = path_join(argv[1], "test_extract_writer.tmp");
    fs_remove_tree(ctx, scratch);
    ok(fs_mkdir_p(ctx, scratch) == CDM_OK, "make the scratch folder");
    many_files(ctx, scratch);
    failure(ctx, scratch);
    is_int(fs_remove_tree(ctx, scratch), CDM_OK, "clean up");
    free(scratch);
    cdm_ctx_free(ctx);
    return tap_done();
}
