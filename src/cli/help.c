/*
 * Help generated from the command and option rows: the overview, `cdm help CMD`, the usage
 * lines of usage errors and the man page cdm(1) (`cdm help --man`, scdoc source), the same
 * walk in another markup: NAME from the summary, SYNOPSIS from the usage units, the
 * descriptions' paragraphs (indented lines are examples), OPTIONS from the rows' labels and
 * help, and the global options from cli_global_options.
 *
 * Below the command table (main.c) and the commands, which report usage errors here: the
 * table comes as an argument (struct cli's commands), never by its name. The global
 * options' rows are here too, the overview's first lines and the parser's (options.c).
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH       79 /* columns of a line of help */
#define HELP_COLUMN 20 /* where an option's help starts */

/* The options every command takes, in the order the overview lists them. */
const struct cli_option cli_global_options[] = {
    [CLI_GLOBAL_ROOT] =
        CLI_OPT_VALUE("root", "DIR", CLI_COMPLETE_DIRS,
                      "the store (default: $CDM_ROOT, [store] root, or "
                      "${XDG_DATA_HOME:-~/.local/share}/cdm; C:\\cudnn_archive on Windows)"),
    [CLI_GLOBAL_CONFIG] =
        CLI_OPT_VALUE("config", "FILE", CLI_COMPLETE_FILES,
                      "the configuration (default: $CDM_CONFIG or the per-user file)"),
    [CLI_GLOBAL_JSON] = CLI_OPT_FLAG("json", "print one JSON document on stdout"),
    [CLI_GLOBAL_QUIET] = {.name = "quiet", .short_name = 'q', .help = "no messages or progress"},
    [CLI_GLOBAL_VERBOSE] = {.name = "verbose", .short_name = 'v', .help = "more messages"},
    [CLI_GLOBAL_VERSION] = {.name = "version", .help = "print the version", .not_in_usage = true},
    [CLI_GLOBAL_HELP] = {.name = "help",
                         .short_name = 'h',
                         .help = "show this overview, or a command's help after its name",
                         .not_in_usage = true},
    CLI_OPT_END,
};

/* Text laid out in lines of at most WIDTH columns; a unit is never broken, and a
 * continuation line starts at indent. */
struct wrap {
    struct strbuf *sb;
    size_t col, indent;
    bool fresh; /* nothing on this line yet after the indent */
};

static void wrap_unit(struct wrap *w, const char *s, size_t n)
{
    if (!w->fresh && w->col + 1 + n > WIDTH) {
        sb_addf(w->sb, "\n%*s", (int)w->indent, "");
        w->col = w->indent;
        w->fresh = true;
    }
    if (!w->fresh) {
        sb_addc(w->sb, ' ');
        w->col++;
    }
    sb_addn(w->sb, s, n);
    w->col += n;
    w->fresh = false;
}

static void wrap_words(struct wrap *w, const char *text)
{
    for (const char *p = text + strspn(text, " "); *p; p += strspn(p, " ")) {
        size_t n = strcspn(p, " ");
        wrap_unit(w, p, n);
        p += n;
    }
}

/* "--name VALUE", or "-s, --name VALUE" where a short name is given. */
static void add_label(struct strbuf *sb, const struct cli_option *o)
{
    if (o->short_name)
        sb_addf(sb, "-%c, ", o->short_name);
    sb_addf(sb, "--%s", o->name);
    if (o->value_name)
        sb_addf(sb, " %s", o->value_name);
}

static void add_usage_line(struct strbuf *sb, const char *prefix, const struct cli_arg *args,
                           const struct cli_option *options, const char *tail)
{
    sb_add(sb, prefix);
    struct wrap w = {sb, strlen(prefix), strlen(prefix) + 1, false};
    char *unit;
    for (const struct cli_arg *a = args; a && a->name; a++) {
        if (a->kind == CLI_ARG_REST)
            continue;
        unit = xasprintf(a->kind == CLI_ARG_REQUIRED ? "<%s>" : "[%s]", a->name);
        wrap_unit(&w, unit, strlen(unit));
        free(unit);
    }
    for (const struct cli_option *o = options; o && o->name; o++) {
        if (o->not_in_usage)
            continue;
        if (o->required)
            unit = xasprintf(o->value_name ? "--%s %s" : "--%s", o->name, o->value_name);
        else
            unit = xasprintf(o->value_name ? "[--%s %s]" : "[--%s]", o->name, o->value_name);
        wrap_unit(&w, unit, strlen(unit));
        free(unit);
    }
    for (const struct cli_arg *a = args; a && a->name; a++) {
        if (a->kind != CLI_ARG_REST)
            continue;
        unit = xasprintf("-- [%s...]", a->name);
        wrap_unit(&w, unit, strlen(unit));
        free(unit);
    }
    if (tail)
        wrap_unit(&w, tail, strlen(tail));
    sb_addc(sb, '\n');
}

static void add_options(struct strbuf *sb, const char *title, const struct cli_option *options)
{
    sb_addf(sb, "\n%s:\n", title);
    for (const struct cli_option *o = options; o->name; o++) {
        struct strbuf label = STRBUF_INIT;
        add_label(&label, o);
        sb_addf(sb, "  %s", sb_str(&label));
        /* a label too long for the column puts the help on a line of its own */
        size_t col = 2 + label.len;
        if (col + 2 > HELP_COLUMN) {
            sb_addc(sb, '\n');
            col = 0;
        }
        sb_addf(sb, "%*s", (int)(HELP_COLUMN - col), "");
        struct wrap w = {sb, HELP_COLUMN, HELP_COLUMN, true};
        wrap_words(&w, o->help);
        sb_addc(sb, '\n');
        sb_free(&label);
    }
}

/* Each line of a description is a paragraph, wrapped; a line that starts with a space is
 * an example, kept as written. */
static void add_description(struct strbuf *sb, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (*p == ' ') {
            sb_addn(sb, p, n);
        } else {
            char *paragraph = xstrndup(p, n);
            struct wrap w = {sb, 0, 0, true};
            wrap_words(&w, paragraph);
            free(paragraph);
        }
        sb_addc(sb, '\n');
        p += n;
        p += *p == '\n';
    }
}

static void print_text(FILE *out, struct strbuf *sb)
{
    fputs(sb_str(sb), out);
    sb_free(sb);
}

void cli_print_overview(FILE *out, const struct cli_command *const *commands)
{
    struct strbuf sb = STRBUF_INIT;
    add_usage_line(&sb, "usage: cdm", NULL, cli_global_options, "<command> [<args>]");
    sb_add(&sb, "\nKeep several cuDNN versions side by side and give each project its own.\n\n"
                "commands:\n");
    for (const struct cli_command *const *c = commands; *c; c++)
        sb_addf(&sb, "  %-12s %s\n", (*c)->name, (*c)->summary);
    add_options(&sb, "global options", cli_global_options);
    sb_add(&sb, "\n'cdm help COMMAND' describes a command.\n");
    print_text(out, &sb);
}

void cli_print_usage(FILE *out, const struct cli_command *c)
{
    struct strbuf sb = STRBUF_INIT;
    char *prefix = xasprintf("usage: cdm %s", c->name);
    add_usage_line(&sb, prefix, c->args, c->options, NULL);
    free(prefix);
    print_text(out, &sb);
}

int cli_usage_error(struct cli *cli, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cdm: ", stderr);
    cli_vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (cli->command)
        cli_print_usage(stderr, cli->command);
    return EXIT_USAGE;
}

void cli_print_command_help(FILE *out, const struct cli_command *c)
{
    cli_print_usage(out, c);
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "\n%s\n", c->summary);
    if (c->description) {
        sb_addc(&sb, '\n');
        add_description(&sb, c->description);
    }
    if (c->options && c->options->name)
        add_options(&sb, "options", c->options);
    print_text(out, &sb);
}

/* ---- the man page: scdoc(5) source, built into cdm(1) by meson where scdoc is ---------- */

/* Text with scdoc's markup characters escaped. */
static void man_text(struct strbuf *sb, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strchr("*_\\", s[i]))
            sb_addc(sb, '\\');
        sb_addc(sb, s[i]);
    }
}

static void man_str(struct strbuf *sb, const char *s)
{
    man_text(sb, s, strlen(s));
}

static void man_usage(struct strbuf *sb, const char *name, const struct cli_arg *args,
                      const struct cli_option *options)
{
    sb_addf(sb, "*cdm%s%s*", name ? " " : "", name ? name : "");
    for (const struct cli_arg *a = args; a && a->name; a++) {
        sb_add(sb, a->kind == CLI_ARG_REQUIRED ? " <" : a->kind == CLI_ARG_REST ? " -- [" : " [");
        man_str(sb, a->name);
        sb_add(sb, a->kind == CLI_ARG_REQUIRED ? ">" : a->kind == CLI_ARG_REST ? "...]" : "]");
    }
    for (const struct cli_option *o = options; o && o->name; o++) {
        if (o->not_in_usage)
            continue;
        sb_add(sb, " [--");
        man_str(sb, o->name);
        if (o->value_name) {
            sb_addc(sb, ' ');
            man_str(sb, o->value_name);
        }
        sb_addc(sb, ']');
    }
    sb_add(sb, "\n\n");
}

static void man_options(struct strbuf *sb, const struct cli_option *options)
{
    for (const struct cli_option *o = options; o && o->name; o++) {
        if (o->short_name)
            sb_addf(sb, "*-%c*, ", o->short_name);
        sb_add(sb, "*--");
        man_str(sb, o->name);
        sb_addc(sb, '*');
        if (o->value_name) {
            sb_add(sb, " _");
            man_str(sb, o->value_name);
            sb_addc(sb, '_');
        }
        sb_add(sb, "\n\t");
        man_str(sb, o->help);
        sb_add(sb, "\n\n");
    }
}

/* A description's paragraphs; its examples (lines indented by a space) as literal text. */
static void man_description(struct strbuf *sb, const char *text)
{
    bool literal = false;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if ((*p == ' ') != literal) {
            sb_add(sb, "```\n");
            literal = !literal;
        }
        if (literal) {
            sb_addn(sb, p + 1, n - 1);
        } else {
            if (*p == '-' || *p == '.' || *p == '#')
                sb_addc(sb, '\\'); /* not a list, a request or a heading */
            man_text(sb, p, n);
        }
        sb_add(sb, literal ? "\n" : "\n\n");
        p += n;
        p += *p == '\n';
    }
    if (literal)
        sb_add(sb, "```\n\n");
}

void cli_print_man(FILE *out, const struct cli_command *const *commands)
{
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb,
            "cdm(1) \"cdm %s\"\n\n# NAME\n\ncdm - keep several cuDNN versions side by "
            "side and give each project its own\n\n# SYNOPSIS\n\n",
            CDM_VERSION_STRING);
    man_usage(&sb, NULL, NULL, cli_global_options);
    sb_add(&sb, "*cdm* _command_ [_args_]\n\n# DESCRIPTION\n\n"
                "cdm keeps cuDNN installs unpacked in a store, gives each project a link "
                "(cuda\\_link) to the version it needs, and prints the lines a shell evaluates "
                "to use it. This page is generated from the same option rows as *cdm help*.\n\n"
                "# GLOBAL OPTIONS\n\n");
    man_options(&sb, cli_global_options);
    sb_add(&sb, "# COMMANDS\n\n");
    for (const struct cli_command *const *c = commands; *c; c++) {
        sb_addf(&sb, "## %s\n\n", (*c)->name);
        man_usage(&sb, (*c)->name, (*c)->args, (*c)->options);
        man_str(&sb, (*c)->summary);
        sb_add(&sb, ".\n\n");
        if ((*c)->description)
            man_description(&sb, (*c)->description);
        man_options(&sb, (*c)->options);
    }
    sb_add(&sb, "# EXIT STATUS\n\n0 success, 1 failure, 2 usage error, 130 interrupted "
                "(Ctrl-C).\n\n# ENVIRONMENT\n\n"
                "*CDM\\_ROOT* the store; *CDM\\_CONFIG* the configuration file; *CDM\\_SHELL* "
                "the shell activation writes for.\n\n# SEE ALSO\n\n"
                "docs/ in cdm's sources: the store, projects and links, shells, the doctor.\n");
    print_text(out, &sb);
}

const struct cli_command *cli_find_command(const struct cli_command *const *commands,
                                           const char *name)
{
    for (const struct cli_command *const *c = commands; *c; c++)
        if (!strcmp((*c)->name, name))
            return *c;
    return NULL;
}

static int cmd_help(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    (void)ctx;
    if (args->given[0]) {
        cli_print_man(stdout, cli->commands);
        return EXIT_OK;
    }
    const char *name = args->pos[0];
    if (!name) {
        cli_print_overview(stdout, cli->commands);
        return EXIT_OK;
    }
    const struct cli_command *c = cli_find_command(cli->commands, name);
    if (!c) {
        cli_eprintf("cdm: no command '%s'; see 'cdm help'\n", name);
        return EXIT_USAGE;
    }
    cli_print_command_help(stdout, c);
    return EXIT_OK;
}

static const struct cli_arg help_args[] = {
    {"COMMAND", CLI_ARG_OPTIONAL, CLI_COMPLETE_COMMANDS},
    CLI_ARG_END,
};

static const struct cli_option help_options[] = {
    CLI_OPT_FLAG("man", "print the man page cdm(1) as scdoc source, made from the same rows"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_help = {
    .name = "help",
    .needs = CLI_NEEDS_NOTHING,
    .run = cmd_help,
    .summary = "show help for a command",
    .args = help_args,
    .options = help_options,
};
