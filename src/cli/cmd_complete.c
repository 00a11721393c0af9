/*
 * cdm complete: the candidates for the word under the cursor, one per line, for the
 * completion scripts in completions/. The scripts pass the words; everything else is
 * decided here, from the command and option rows (each says what its value completes
 * to), so a new command or option completes without touching four shell scripts. An
 * empty answer means "file names".
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void offer(const char *current, const char *candidate, size_t n)
{
    size_t have = strlen(current);
    if (n >= have && !strncmp(candidate, current, have))
        printf("%.*s\n", (int)n, candidate);
}

static void offer_str(const char *current, const char *candidate)
{
    offer(current, candidate, strlen(candidate));
}

/* Each of the '|'-separated words of list. */
static void offer_choices(const char *current, const char *list)
{
    for (const char *p = list + strspn(list, "|"); *p; p += strspn(p, "|")) {
        size_t n = strcspn(p, "|");
        offer(current, p, n);
        p += n;
    }
}

/* The context for finding candidates: a completion prints no warning (a bad config is
 * the command's to report when it runs). */
static cdm_ctx *quiet_ctx(struct cli *cli)
{
    bool quiet = cli->quiet;
    cli->quiet = true;
    cdm_ctx *ctx = cli_ctx(cli);
    cli->quiet = quiet;
    return ctx;
}

static void offer_installs(struct cli *cli, const char *current)
{
    cdm_ctx *ctx = quiet_ctx(cli);
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    if (!ctx || cdm_list(ctx, &all, &n) != CDM_OK)
        return;
    for (size_t i = 0; i < n; i++)
        offer_str(current, all[i].id);
    free(all);
}

/* The CUDA toolkits cdm finds, by the X.Y that --toolkit takes (each once), and "none". */
static void offer_toolkits(struct cli *cli, const char *current)
{
    cdm_ctx *ctx = quiet_ctx(cli);
    struct cdm_toolkit *all = NULL;
    size_t n = 0;
    if (ctx && cdm_toolkits(ctx, &all, &n) == CDM_OK) {
        char(*offered)[64] = xcalloc(n ? n : 1, sizeof(*offered));
        for (size_t i = 0; i < n; i++) {
            snprintf(offered[i], sizeof(offered[i]), "%s", all[i].version);
            char *dot = strchr(offered[i], '.');
            if (dot && (dot = strchr(dot + 1, '.')))
                *dot = '\0'; /* "13.0.88" -> "13.0" */
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !strcmp(offered[j], offered[i]);
            if (!seen)
                offer_str(current, offered[i]);
        }
        free(offered);
    }
    free(all);
    offer_str(current, "none");
}

/* The generation numbers of project (NULL: the nearest one), newest first, but the current
 * one: what --to can go back to. */
static void offer_generations(struct cli *cli, const char *current, const char *project)
{
    cdm_ctx *ctx = quiet_ctx(cli);
    struct cdm_which_info near;
    if (!ctx || (!project && cdm_which(ctx, NULL, &near) != CDM_OK))
        return;
    char path[4096];
    struct cdm_generation *g = NULL;
    size_t n = 0;
    if (cdm_history(ctx, project ? project : near.project.path, path, &g, &n) != CDM_OK)
        return;
    for (size_t i = n; i-- > 0;) {
        if (g[i].current)
            continue;
        char number[32];
        snprintf(number, sizeof(number), "%lld", g[i].number);
        offer_str(current, number);
    }
    free(g);
}

/* What a value or argument completes to; name holds the choices of CLI_COMPLETE_CHOICES,
 * project the command line's project (NULL: none given). */
static void offer_kind(struct cli *cli, const char *current, enum cli_complete kind,
                       const char *name, const char *project)
{
    switch (kind) {
    case CLI_COMPLETE_GENERATIONS:
        offer_generations(cli, current, project);
        break;
    case CLI_COMPLETE_INSTALLS:
        offer_installs(cli, current);
        break;
    case CLI_COMPLETE_TOOLKITS:
        offer_toolkits(cli, current);
        break;
    case CLI_COMPLETE_SHELLS:
        for (size_t i = 0; cdm_shell_at(i); i++)
            offer_str(current, cdm_shell_name(cdm_shell_at(i)));
        break;
    case CLI_COMPLETE_COMMANDS:
        for (const struct cli_command *const *c = cli->commands; *c; c++)
            offer_str(current, (*c)->name);
        break;
    case CLI_COMPLETE_CHOICES:
        offer_choices(current, name);
        break;
    case CLI_COMPLETE_NONE:
    case CLI_COMPLETE_FILES:
    case CLI_COMPLETE_DIRS:
        break; /* the shell's file names, or nothing to offer */
    }
}

static void offer_options(const char *current, const struct cli_option *options)
{
    for (const struct cli_option *o = options; o && o->name; o++) {
        char *name = xasprintf("--%s", o->name);
        offer_str(current, name);
        free(name);
    }
}

/* The pos'th positional of cmd; after "--", its CLI_ARG_REST row where it has one. */
static const struct cli_arg *positional(const struct cli_command *cmd, int pos, bool after_dashes)
{
    for (const struct cli_arg *a = cmd->args; a && a->name; a++)
        if (a->kind == CLI_ARG_REST && after_dashes)
            return a;
    for (const struct cli_arg *a = cmd->args; a && a->name; a++)
        if (a->kind != CLI_ARG_REST && pos-- == 0)
            return a;
    return NULL;
}

/* The option a word names: the command's own, else a global one. */
static const struct cli_option *option_of(const struct cli_command *cmd, const char *word)
{
    const struct cli_option *o = cmd ? cli_match_option(cmd->options, word) : NULL;
    return o ? o : cli_match_option(cli_global_options, word);
}

/* --root and --config on the line being completed pick the store whose installs are
 * offered (unless cdm complete itself was given them). */
static void note_store(struct cli *cli, const struct cli_option *o, const char *value)
{
    if (o == &cli_global_options[CLI_GLOBAL_ROOT] && !cli->root)
        cli->root = value;
    else if (o == &cli_global_options[CLI_GLOBAL_CONFIG] && !cli->config)
        cli->config = value;
}

enum { OPT_CURRENT };

static int run_complete(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    (void)ctx; /* opened only when a word needs the store, quietly (quiet_ctx) */
    const char *current = args->value[OPT_CURRENT] ? args->value[OPT_CURRENT] : "";
    char **words = args->rest;
    int nwords = args->nrest;
    const struct cli_command *cmd = NULL;
    const struct cli_option *value_of = NULL;
    int pos = 0;
    const char *project = NULL; /* the first positional, when its row is a folder */
    bool after_dashes = false;
    for (int i = 0; i < nwords; i++) {
        const char *w = words[i];
        if (!after_dashes && !strcmp(w, "--")) {
            after_dashes = true; /* what follows is positional, options or not */
        } else if (!after_dashes && w[0] == '-' && w[1]) {
            const struct cli_option *o = option_of(cmd, w);
            const char *eq = strchr(w, '=');
            if (!o || o->kind == CLI_FLAG)
                continue;
            if (eq) {
                note_store(cli, o, eq + 1);
            } else if (i + 1 == nwords) {
                value_of = o;
            } else {
                note_store(cli, o, words[++i]);
            }
        } else if (!cmd) {
            if (!(cmd = cli_find_command(cli->commands, w)))
                return EXIT_OK; /* not a command: nothing to offer */
        } else {
            const struct cli_arg *a = positional(cmd, pos++, after_dashes);
            if (a && a->complete == CLI_COMPLETE_DIRS && !project)
                project = w;
        }
    }
    if (value_of) {
        offer_kind(cli, current, value_of->complete, value_of->value_name, project);
    } else if (current[0] == '-' && !after_dashes) {
        offer_options(current, cmd ? cmd->options : NULL);
        offer_options(current, cli_global_options);
    } else if (!cmd) {
        offer_kind(cli, current, CLI_COMPLETE_COMMANDS, NULL, NULL);
    } else {
        const struct cli_arg *a = positional(cmd, pos, after_dashes);
        if (a)
            offer_kind(cli, current, a->complete, a->name, project);
    }
    return EXIT_OK;
}

static const struct cli_arg complete_args[] = {
    {"WORD", CLI_ARG_REST, CLI_COMPLETE_NONE},
    CLI_ARG_END,
};

static const struct cli_option complete_options[] = {
    [OPT_CURRENT] = CLI_OPT_VALUE("current", "WORD", CLI_COMPLETE_NONE,
                                  "the word under the cursor, maybe empty or a part"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_complete = {
    .name = "complete",
    .needs = CLI_NEEDS_NOTHING,
    .run = run_complete,
    .summary = "print completion candidates (used by completions/)",
    .args = complete_args,
    .options = complete_options,
    .description = "WORDs are the command line after 'cdm' up to the cursor; WORD the one being "
                   "completed. Prints one candidate a line; nothing means file names.\n",
};
