/* The option parser: command lines read against the rows of cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cli_option *cli_match_option(const struct cli_option *options, const char *arg)
{
    if (!options || arg[0] != '-' || !arg[1])
        return NULL;
    if (arg[1] != '-') { /* -q: one letter alone */
        for (const struct cli_option *o = options; o->name; o++)
            if (o->short_name && o->short_name == arg[1] && !arg[2])
                return o;
        return NULL;
    }
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    for (const struct cli_option *o = options; o->name; o++)
        if (strlen(o->name) == len && !strncmp(o->name, name, len))
            return o;
    return NULL;
}

/* Rows are indexed by struct cli_args' arrays: a longer table is a bug in the table. */
static size_t count_rows(const struct cli_option *options)
{
    size_t n = 0;
    while (options && options[n].name)
        n++;
    if (n > CLI_MAX_OPTIONS) {
        fprintf(stderr, "cdm: bug: %zu options in one table, at most %d\n", n, CLI_MAX_OPTIONS);
        abort();
    }
    return n;
}

/* Record option o, written as argv[*i]: a value follows '=' or is the next word. */
static int take(struct cli *cli, const struct cli_option *options, const struct cli_option *o,
                int argc, char **argv, int *i, struct cli_args *out)
{
    const char *eq = argv[*i][1] == '-' ? strchr(argv[*i], '=') : NULL;
    size_t k = (size_t)(o - options);
    if (o->kind == CLI_FLAG) {
        if (eq)
            return cli_usage_error(cli, "option '--%s' takes no value", o->name);
        out->given[k] = true;
        return EXIT_OK;
    }
    if (eq)
        out->value[k] = eq + 1;
    else if (*i + 1 < argc)
        out->value[k] = argv[++*i];
    else
        return cli_usage_error(cli, "option '--%s' needs a value", o->name);
    out->given[k] = true;
    return EXIT_OK;
}

/* The whole numbers, checked once the command line is read through (so a missing
 * argument is reported first, as it is the larger mistake). */
static int read_numbers(struct cli *cli, const struct cli_option *options, size_t rows,
                        struct cli_args *out)
{
    for (size_t k = 0; k < rows; k++) {
        const struct cli_option *o = &options[k];
        if (o->kind != CLI_INT || !out->given[k])
            continue;
        const char *text = out->value[k];
        char *end;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (end == text || *end || errno == ERANGE || v < o->min || v > o->max)
            return cli_usage_error(cli, "--%s takes %s, not '%s'", o->name, o->expects, text);
        out->number[k] = v;
    }
    return EXIT_OK;
}

/* An option no row names, with the nearest one of the command's or the global ones. */
static int unknown_option(struct cli *cli, const struct cli_option *options, const char *arg)
{
    int n = (int)strcspn(arg, "=");
    char *word = xasprintf("%.*s", n, arg);
    char *names[2 * CLI_MAX_OPTIONS + 16];
    size_t count = 0;
    for (const struct cli_option *o = options; o && o->name && count < 2 * CLI_MAX_OPTIONS; o++)
        names[count++] = xasprintf("--%s", o->name);
    for (const struct cli_option *o = cli_global_options;
         o->name && count < 2 * CLI_MAX_OPTIONS + 16; o++)
        names[count++] = xasprintf("--%s", o->name);
    const char *near = str_closest(word, (const char *const *)names, count);
    int rc = near ? cli_usage_error(cli, "unknown option '%s'; did you mean '%s'?", word, near)
                  : cli_usage_error(cli, "unknown option '%s'", word);
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(word);
    return rc;
}

int cli_parse(struct cli *cli, const struct cli_command *cmd, int argc, char **argv,
              struct cli_args *out)
{
    memset(out, 0, sizeof(*out));
    size_t rows = count_rows(cmd->options);
    int min_pos = 0, max_pos = 0;
    bool rest = false;
    for (const struct cli_arg *a = cmd->args; a && a->name; a++) {
        if (a->kind == CLI_ARG_REST) {
            rest = true;
            continue;
        }
        max_pos++;
        if (a->kind == CLI_ARG_REQUIRED)
            min_pos++;
    }
    if (max_pos > CLI_MAX_ARGS)
        abort(); /* a bug in the table, as above */
    int npos = 0;
    bool only_positionals = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!only_positionals && !strcmp(arg, "--")) {
            if (rest) {
                out->rest = argv + i + 1;
                out->nrest = argc - i - 1;
                break;
            }
            only_positionals = true;
            continue;
        }
        if (!only_positionals && arg[0] == '-' && arg[1]) {
            const struct cli_option *o = cli_match_option(cmd->options, arg);
            if (!o)
                return unknown_option(cli, cmd->options, arg);
            int rc = take(cli, cmd->options, o, argc, argv, &i, out);
            if (rc)
                return rc;
            continue;
        }
        if (npos >= max_pos)
            return cli_usage_error(cli, "unexpected argument '%s'", arg);
        out->pos[npos++] = arg;
    }
    if (npos < min_pos) { /* required rows come first: the first missing is the npos'th */
        const struct cli_arg *a = cmd->args;
        for (int k = 0; a->kind == CLI_ARG_REST || k++ < npos; a++)
            ;
        return cli_usage_error(cli, "missing %s", a->name);
    }
    for (size_t r = 0; r < rows; r++)
        if (cmd->options[r].required && !out->given[r])
            return cli_usage_error(cli, "missing option '--%s'", cmd->options[r].name);
    return read_numbers(cli, cmd->options, rows, out);
}

int cli_take_options(struct cli *cli, const struct cli_option *options, int *argc, char **argv,
                     struct cli_args *out)
{
    memset(out, 0, sizeof(*out));
    size_t rows = count_rows(options);
    int kept = 0;
    for (int i = 0; i < *argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < *argc)
                argv[kept++] = argv[i++];
            break;
        }
        const struct cli_option *o = cli_match_option(options, argv[i]);
        if (!o) {
            argv[kept++] = argv[i];
            continue;
        }
        int rc = take(cli, options, o, *argc, argv, &i, out);
        if (rc)
            return rc;
    }
    *argc = kept;
    return read_numbers(cli, options, rows, out);
}
