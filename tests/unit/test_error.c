/* Errors and warnings in the context (base/error.c), reached through the context pointer. */
#include "engine/core/internal.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char warned[256];

static void on_warn(void *arg, const char *message)
{
    (void)arg;
    snprintf(warned, sizeof(warned), "%s", message);
}

int main(void)
{
    cdm_ctx *ctx = NULL;
    struct cdm_options options = {.config_path = NULL, .warn = on_warn};
    /* an explicit config that does not exist: the context comes back with its error */
    options.config_path = "/nonexistent/cdm-test.ini";
    is_int(cdm_ctx_new(&ctx, &options), CDM_ECONFIG, "a missing --config fails");
    ok(strstr(cdm_error_message(ctx), "/nonexistent/cdm-test.ini") != NULL,
       "and the context's message names it");

    is_int(cdm_error_set(ctx, CDM_EIO, "cannot read '%s'", "a"), CDM_EIO,
           "cdm_error_set returns its code");
    is_str(cdm_error_message(ctx), "cannot read 'a'", "and keeps the message");
    is_int(cdm_error_code(ctx), CDM_EIO, "and the code");

    struct saved_error saved = error_save(ctx);
    cdm_error_set(ctx, CDM_EDB, "clean-up failed too");
    is_int(error_restore(ctx, &saved), CDM_EIO, "error_restore returns the saved code");
    is_str(cdm_error_message(ctx), "cannot read 'a'", "and puts the first message back");

    /* the system's reason appended, errno read before anything can change it */
    errno = ENOENT;
    is_int(cdm_error_os(ctx, CDM_EIO, "cannot open '%s'", "b"), CDM_EIO, "cdm_error_os: its code");
    char expect[128];
    snprintf(expect, sizeof(expect), "cannot open 'b': %s", strerror(ENOENT));
    is_str(cdm_error_message(ctx), expect, "and the message ends with strerror(errno)");
    cdm_error_errno(ctx, CDM_EIO, EACCES, "cannot lock '%s'", "c");
    snprintf(expect, sizeof(expect), "cannot lock 'c': %s", strerror(EACCES));
    is_str(cdm_error_message(ctx), expect, "cdm_error_errno: the reason of the value given");
    cdm_error_set(ctx, CDM_EIO, "no such file");
    is_int(cdm_error_wrap(ctx, CDM_ENOTFOUND, "cannot attach '%s'", "v"), CDM_ENOTFOUND,
           "cdm_error_wrap: the code given");
    is_str(cdm_error_message(ctx), "cannot attach 'v': no such file", "context: old message");
    is_int(cdm_error_append(ctx, CDM_EIO, "; try %s", "again"), CDM_EIO,
           "cdm_error_append: the code given");
    is_str(cdm_error_message(ctx), "cannot attach 'v': no such file; try again",
           "old message, then the hint");
    is_int(cdm_error_code(ctx), CDM_EIO, "and the code is the new one");

    /* no context: a quiet call, the code alone */
    is_int(cdm_error_set(NULL, CDM_ENOTFOUND, "cannot read '%s'", "q"), CDM_ENOTFOUND,
           "cdm_error_set without a context returns its code");
    is_int(cdm_error_os(NULL, CDM_EIO, "cannot open '%s'", "q"), CDM_EIO, "so does cdm_error_os");
    cdm_warn(NULL, "dropped");
    cdm_note(NULL, "dropped");
    is_str(cdm_error_message(ctx), "cannot attach 'v': no such file; try again",
           "and the context's own error is untouched");

    cdm_warn(ctx, "unknown setting '%s'", "x");
    is_str(warned, "unknown setting 'x'", "warnings go to the front end's callback");

    char small[8];
    is_int(copy_path(ctx, small, sizeof(small), "/short"), CDM_OK, "a path that fits is copied");
    is_str(small, "/short", "whole");
    is_int(copy_path(ctx, small, sizeof(small), "/a/longer/path"), CDM_EUNSUPPORTED,
           "a path that does not fit fails");
    ok(strstr(cdm_error_message(ctx), "'/a/longer/path' is too long") != NULL,
       "naming the path: %s", cdm_error_message(ctx));

    /* (base/util.c, beside the errors) */
    struct strbuf sb = STRBUF_INIT;
    sb_addn(&sb, NULL, 0); /* a stored zip entry's empty block: UBSan's memcpy from NULL */
    sb_addn(&sb, "ab", 2);
    is_str(sb_str(&sb), "ab", "adding nothing from NULL is nothing");
    sb_free(&sb);
    ok(path_within("/s/9.1", "/s") && path_within("/s", "/s/") && !path_within("/store2", "/store"),
       "path_within: the folder itself and below it, not a name that only begins the same");
    /* key=value lines: cdm's state files exactly, pyvenv.cfg with blanks */
    char *v = text_key_value("rootx=1\nroot=/s \r\nid=9\n", "root", false);
    is_str(v, "/s ", "text_key_value: the exact key's value, kept whole");
    free(v);
    ok(!text_key_value("root = /s\n", "root", false), "exact: no blanks around '='");
    v = text_key_value("home = /usr/bin \ninclude-system-site-packages = true\n", "home", true);
    is_str(v, "/usr/bin", "spaced: blanks around key, '=' and value dropped");
    free(v);
    ok(!text_key_value("homepage = x\n\n", "home", true), "a longer key is another key");
    char slashes[] = "C:/a/b\\c";
    is_str(path_slashes_to(slashes, '\\'), "C:\\a\\b\\c",
           "path_slashes_to: every '/' to the separator");
    is_str(path_slashes_to(slashes, '/'), "C:\\a\\b\\c", "and '/' leaves the path as it is");
    ok(path_within("/tmp/x", "/") && path_within("/", "/") && !path_within("tmp", "/"),
       "path_within: the root holds every absolute path");
    /* ALLOC_GROW: the room for x[nr] every time, a new block only when the old one is full */
    long *grown = NULL;
    size_t ngrown = 0;
    for (long i = 0; i < 5000; i++) {
        ALLOC_GROW(grown, ngrown);
        grown[ngrown++] = i * 7;
    }
    bool all = true;
    for (size_t i = 0; i < ngrown; i++)
        all = all && grown[i] == (long)i * 7;
    ok(all && ngrown == 5000, "ALLOC_GROW: 5000 elements appended one at a time, each kept");
    /* while a block has room it is given back untouched (a realloc of this one, which
     * malloc never gave, would abort): n appends make log n blocks, not n */
    static char not_from_malloc[1];
    bool kept = true;
    for (size_t nr = 1; nr < 5000; nr++)
        if (nr < 8 || (nr & (nr - 1)))
            kept = kept && alloc_grow(not_from_malloc, nr, sizeof(long)) == not_from_malloc;
    ok(kept, "ALLOC_GROW: no new block while the last one has room");
    free(grown);

    cdm_ctx_free(ctx);
    ok(cdm_error_code(NULL) == CDM_EINVAL && !strcmp(cdm_error_message(NULL), "unknown error"),
       "no context: a generic error");
    return tap_done();
}
