/*
 * What every command uses, below the command table (main.c) so that no command calls up
 * into it: the engine's context opened once with the front end's callbacks (progress,
 * warnings, notes), its error printed, messages, and the install's rendering that list and
 * install share.
 */
#include "cli.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void format_eta(char *out, size_t size, double seconds)
{
    if (seconds < 0 || seconds > 359999)
        snprintf(out, size, "--:--");
    else if (seconds >= 3600)
        snprintf(out, size, "%dh%02dm", (int)seconds / 3600, (int)seconds % 3600 / 60);
    else
        snprintf(out, size, "%dm%02ds", (int)seconds / 60, (int)seconds % 60);
}

/* Progress on a terminal only: bytes, percent, rate and time left; at most ten updates a
 * second. A phase (a download, then the extraction) starts when done goes back. */
static void on_progress(void *arg, uint64_t done, uint64_t total)
{
    struct cli *cli = arg;
    struct cli_progress *p = &cli->progress;
    struct timespec now;
    cli_now(&now);
    if (!p->shown || done < p->last_done) {
        p->start = p->last = now;
        p->first = done;
        p->shown = true;
        p->finished = false;
    }
    if (p->finished) /* the reader drains the archive's tail after its last block */
        return;
    p->last_done = done;
    if ((done < total || !total) && seconds_between(&p->last, &now) < 0.1)
        return;
    p->last = now;
    char d[32], t[32], r[32], eta[16];
    double elapsed = seconds_between(&p->start, &now);
    double rate = elapsed > 0 ? (double)(done - p->first) / elapsed : 0;
    format_size(d, sizeof(d), done);
    format_size(t, sizeof(t), total);
    format_size(r, sizeof(r), (unsigned long long)rate);
    format_eta(eta, sizeof(eta), rate > 0 ? (double)(total - done) / rate : -1);
    if (!total) { /* a size nobody published: no end to show */
        fprintf(stderr, "\r  %s  %s/s   ", d, r);
        p->line_open = true;
        return;
    }
    fprintf(stderr, "\r  %s / %s  %3d%%  %s/s  %s left   ", d, t,
            total ? (int)(done * 100 / total) : 0, r, done >= total ? "0m00s" : eta);
    p->line_open = done < total;
    if (done >= total) {
        fputc('\n', stderr);
        p->finished = true;
    }
}

/* A message on its own line, after an unfinished progress line. */
static void end_progress_line(struct cli *cli)
{
    if (cli->progress.line_open)
        fputc('\n', stderr);
    cli->progress.line_open = false;
}

static void on_warning(void *arg, const char *message)
{
    struct cli *cli = arg;
    if (!cli->quiet) {
        end_progress_line(cli);
        cli_eprintf("cdm: warning: %s\n", message);
    }
}

/* What a download is doing, on its own line. */
static void on_note(void *arg, const char *message)
{
    struct cli *cli = arg;
    if (!cli->quiet) {
        end_progress_line(cli);
        cli_eprintf("cdm: %s\n", message);
    }
}

cdm_ctx *cli_ctx(struct cli *cli)
{
    if (cli->ctx)
        return cli->ctx;
    struct cdm_options options = {
        .root = cli->root,
        .config_path = cli->config,
        .progress = (!cli->quiet && !cli->json && cli_stderr_is_terminal()) ? on_progress : NULL,
        .warn = on_warning,
        .note = on_note,
        .callback_arg = cli,
        .command = cli->command_line,
        .verbose = cli->verbose,
    };
    if (cdm_ctx_new(&cli->ctx, &options) != CDM_OK) {
        cli_fail(cli);
        return NULL;
    }
    return cli->ctx;
}

int cli_open(struct cli *cli, const struct cli_command *c, cdm_ctx **ctx)
{
    static const enum cdm_store_mode modes[] = {
        [CLI_NEEDS_STORE_READ] = CDM_STORE_READ,
        [CLI_NEEDS_STATE] = CDM_STORE_STATE,
        [CLI_NEEDS_STORE_WRITE] = CDM_STORE_WRITE,
    };
    *ctx = NULL;
    if (c->needs == CLI_NEEDS_NOTHING)
        return EXIT_OK;
    if (!(*ctx = cli_ctx(cli)))
        return EXIT_FAIL;
    if (c->needs != CLI_NEEDS_CONTEXT && cdm_store_open(*ctx, modes[c->needs]) != CDM_OK)
        return cli_fail(cli);
    return EXIT_OK;
}

int cli_fail(struct cli *cli)
{
    cli_eprintf("cdm: %s\n", cdm_error_message(cli->ctx));
    int code = cdm_error_code(cli->ctx);
    return code == CDM_EINVAL ? EXIT_USAGE : EXIT_FAIL;
}

void cli_info(struct cli *cli, const char *fmt, ...)
{
    if (cli->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    cli_vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void cli_format_time(long long t, char *out, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, size, "%lld", t);
}

void cli_json_install(struct json *j, const struct cdm_install_info *in)
{
    char when[32];
    cli_format_time(in->installed_at, when, sizeof(when));
    json_kv_string(j, "id", in->id);
    json_kv_string(j, "version", in->version);
    json_kv_int(j, "cuda", in->cuda);
    json_kv_string(j, "platform", in->platform);
    json_kv_string(j, "path", in->path);
    json_kv_int(j, "size", (long long)in->size);
    json_kv_string(j, "sha256", in->sha256);
    json_kv_bool(j, "official", in->official);
    json_kv_int(j, "upstream", in->upstream); /* 0: this store's; N: [store] upstream's Nth */
    json_kv_string(j, "installed_at", when);
    json_kv_string(j, "layout", in->layout);
    json_kv_string(j, "bin_dir", in->bin_dir);
    json_kv_string(j, "lib_dir", in->lib_dir);
    json_kv_string(j, "include_dir", in->include_dir);
    json_kv_string(j, "archive", in->archive_name);
    json_kv_string(j, "source", in->source);
    json_kv_string(j, "state", cdm_install_state_name(in->state));
}

size_t cli_split_commas(char *list, const char **words, size_t max)
{
    size_t n = 0;
    for (char *p = list; p && *p && n < max;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (*p)
            words[n++] = p;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}
