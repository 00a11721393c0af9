/*
 * Errors and warnings, kept in the context; cdm.h's cdm_error_message and cdm_error_code
 * are defined here too. They sit below every other room so that the platform's file system
 * and link calls can say, and quote, what failed without calling up into the engine.
 *
 * The context is opaque here: the engine's struct cdm_ctx starts with a struct error_state
 * (checked by a _Static_assert in engine/core/internal.h), and a pointer to a structure is a
 * pointer to its first member, so these functions reach the state through the context
 * pointer alone.
 */
#ifndef CDM_ERROR_H
#define CDM_ERROR_H

#include "util.h"

#include <errno.h>
#include <signal.h>

typedef struct cdm_ctx cdm_ctx;

struct error_state {
    int code;      /* the last error's status (a negative CDM_E* code) */
    char *message; /* its message, NULL before the first error */
    /* where warnings go (cdm_options.warn), NULL to drop them */
    void (*warn)(void *arg, const char *message);
    void *warn_arg; /* for notes too */
    /* where notes go (cdm_options.note), NULL to drop them */
    void (*note)(void *arg, const char *message);
    char *last_warning; /* a warning found again by another path is given once */
};

/* Set the context's error and return code, so callers can write
 * `return cdm_error_set(ctx, CDM_EIO, "cannot ...")`. With ctx NULL, the error (of this
 * and of every setter below) is dropped and only the code returned: a platform call that
 * allows it (fs.h says which) is then a quiet question, as "which names are in this
 * folder, if it can be read". */
int cdm_error_set(cdm_ctx *ctx, int code, const char *fmt, ...) CDM_PRINTF(3, 4);
/* cdm_error_set, then ": " and the system's reason for errno value err (strerror). */
int cdm_error_errno(cdm_ctx *ctx, int code, int err, const char *fmt, ...) CDM_PRINTF(4, 5);
/* The same for errno now (libgit2's git_error_set with GIT_ERROR_OS):
 * `return cdm_error_os(ctx, CDM_EIO, "cannot read '%s'", path)` gives "cannot read 'x':
 * Permission denied". errno is read as an argument, before formatting can change it. */
#define cdm_error_os(ctx, code, ...) cdm_error_errno(ctx, code, errno, __VA_ARGS__)
/* The one owner of "what failed: why": fmt's text, ": " and reason (Windows' error text
 * comes this way, win32_util.c's win_error). */
int cdm_error_vset_why(cdm_ctx *ctx, int code, const char *why, const char *fmt, va_list ap)
    CDM_PRINTF(4, 0);
/* The current error put in context: "fmt's text: the old message", with code. */
int cdm_error_wrap(cdm_ctx *ctx, int code, const char *fmt, ...) CDM_PRINTF(3, 4);
/* The current error with more said after it: "the old message" then fmt's text (a hint such
 * as "; pass --toolkit ..."), with code. */
int cdm_error_append(cdm_ctx *ctx, int code, const char *fmt, ...) CDM_PRINTF(3, 4);
/* Pass a warning to the front end (nothing fails). */
void cdm_warn(cdm_ctx *ctx, const char *fmt, ...) CDM_PRINTF(2, 3);
/* Tell the front end what a long operation is doing (downloading, resuming, waiting). */
void cdm_note(cdm_ctx *ctx, const char *fmt, ...) CDM_PRINTF(2, 3);

/* The current error, kept across clean-up calls that may set their own:
 *   struct saved_error saved = error_save(ctx);  ...clean up...  return error_restore(ctx, &saved);
 */
struct saved_error {
    int code;
    char *message;
};
struct saved_error error_save(const cdm_ctx *ctx);
int error_restore(cdm_ctx *ctx, struct saved_error *saved);

void error_state_free(struct error_state *state);

/*
 * A worker thread's context: an error state of its own and the command's stop flag,
 * nothing else. A worker passes error_sink_ctx(&sink) where a call asks for a context; only
 * this file's functions read it (the platform's calls and the extractors' workers do
 * nothing else with one). A worker never gets a copy of the command's context, whose
 * configuration, index, locks and callbacks are the command's alone (a warning callback
 * is not the workers' to call), and the stop flag (Ctrl-C) reaches every worker through
 * its sink. The command takes the first failure back with error_sink_pass.
 */
struct error_sink {
    struct error_state err;            /* first: the context pointer reaches it */
    const volatile sig_atomic_t *stop; /* the command's stop flag; NULL: none */
};
void error_sink_init(struct error_sink *s, const volatile sig_atomic_t *stop);
cdm_ctx *error_sink_ctx(struct error_sink *s);
/* Whether the command was stopped (Ctrl-C); a worker looks at every block. */
bool error_sink_stopped(const struct error_sink *s);
/* The sink's error set in ctx (fallback's message when the sink holds none); its code. */
int error_sink_pass(cdm_ctx *ctx, const struct error_sink *s, int fallback_code,
                    const char *fallback);
void error_sink_free(struct error_sink *s);

/* Copy path into a record's fixed buffer (cdm.h's paths have 4096 bytes); when it does
 * not fit, fail naming it: Windows paths can be longer than any such buffer. */
int copy_path(cdm_ctx *ctx, char *dst, size_t size, const char *path);

#endif
