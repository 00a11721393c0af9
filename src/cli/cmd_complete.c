/*
 * cdm complete: the candidates for the word under the cursor, one per line, for the
 * completion scripts in completions/. The scripts pass the words; everything else is
 * decided here, from the command table's usage and help text, so a new command or option
 * completes without touching four shell scripts. An empty answer means "file names".
 */
#include "cli.h"
#include "engine/shell.h"
#include "base/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct completion {
    const char *current;
    struct strbuf seen; /* "\n"-separated candidates printed so far: usage and help repeat */
};

static void offer(struct completion *c, const char *candidate, size_t n)
{
    if (n < strlen(c->current) || strncmp(candidate, c->current, strlen(c->current)))
        return;
    char *line = xasprintf("\n%.*s\n", (int)n, candidate);
    if (!strstr(sb_str(&c->seen), line)) {
        fputs(line + 1, stdout);
        sb_add(&c->seen, line + 1);
    }
    free(line);
}

static void offer_str(struct completion *c, const char *candidate)
{
    offer(c, candidate, strlen(candidate));
}

static const char *const global_flags[] = {"--json", "--quiet", "--verbose", "--version", "--help"};
static const char *const global_values[] = {"--root", "--config"};

static bool is_placeholder(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isupper((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

/* Walk "--name VALUE" tokens in a command's usage and help text. fn gets each option name
 * and whether it takes a value; it returns true to stop. */
typedef bool (*option_fn)(void *arg, const char *name, size_t n, bool takes_value);

static bool each_option(const struct cli_command *cmd, option_fn fn, void *arg)
{
    const char *texts[] = {cmd->usage, cmd->help};
    for (size_t t = 0; t < CDM_ARRAY_LEN(texts); t++) {
        for (const char *p = texts[t]; p && (p = strstr(p, "--"));) {
            if (p > texts[t] && !strchr(" [\n", p[-1])) {
                p += 2;
                continue;
            }
            size_t n = 2;
            while (isalnum((unsigned char)p[n]) || p[n] == '-')
                n++;
            const char *v = p + n;
            bool takes_value = false;
            if (*v == ' ') {
                size_t vn = strcspn(v + 1, " ]\n");
                takes_value = is_placeholder(v + 1, vn);
            }
            if (n > 2 && fn(arg, p, n, takes_value))
                return true;
            p += n;
        }
    }
    return false;
}

struct option_query {
    const char *name;
    bool found, takes_value;
};

static bool match_option(void *arg, const char *name, size_t n, bool takes_value)
{
    struct option_query *q = arg;
    if (strlen(q->name) != n || strncmp(q->name, name, n))
        return false;
    q->found = true;
    q->takes_value = takes_value;
    return true;
}

static bool option_takes_value(const struct cli_command *cmd, const char *word)
{
    size_t n = strcspn(word, "=");
    if (word[n] == '=')
        return false;
    for (size_t i = 0; i < CDM_ARRAY_LEN(global_values); i++)
        if (!strcmp(word, global_values[i]))
            return true;
    struct option_query q = {word, false, false};
    if (cmd)
        each_option(cmd, match_option, &q);
    return q.takes_value;
}

static bool offer_option(void *arg, const char *name, size_t n, bool takes_value)
{
    (void)takes_value;
    offer(arg, name, n);
    return false;
}

static const struct cli_command *find_command(const char *name)
{
    for (const struct cli_command *c = cli_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static void offer_versions(struct cli *cli, struct completion *c)
{
    bool quiet = cli->quiet;
    cli->quiet = true;
    cdm_ctx *ctx = cli_ctx(cli);
    cli->quiet = quiet;
    struct cdm_install_info *all = NULL;
    size_t n = 0;
    if (!ctx || cdm_list(ctx, &all, &n) != CDM_OK)
        return;
    for (size_t i = 0; i < n; i++)
        offer_str(c, all[i].id);
    free(all);
}

static void offer_words(struct completion *c, const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, " |");
        offer(c, p, n);
        p += n;
        p += strspn(p, " |");
    }
}

/* The pos'th positional placeholder in usage ("<ARCHIVE|VERSION>", "[PROJECT]"). */
static void offer_positional(struct cli *cli, struct completion *c, const struct cli_command *cmd,
                             int pos)
{
    const char *p = cmd->usage;
    while (*p) {
        p += strspn(p, " ");
        size_t n = strcspn(p, " ");
        bool positional = (*p == '<' || *p == '[') && p[1] != '-';
        if (positional && pos-- == 0) {
            char *token = xstrndup(p + 1, n > 2 ? n - 2 : 0);
            if (strstr(token, "ARCHIVE") || strstr(token, "PROJECT") || strstr(token, "FILE"))
                ; /* file names: the script's own completion */
            else if (strstr(token, "VERSION"))
                offer_versions(cli, c);
            else if (strstr(token, "SHELL"))
                offer_words(c, shell_names());
            else if (strstr(token, "COMMAND"))
                for (const struct cli_command *k = cli_commands; k->name; k++)
                    offer_str(c, k->name);
            else if (strchr(token, '|') && !is_placeholder(token, 1))
                offer_words(c, token);
            free(token);
            return;
        }
        p += n;
    }
}

int cmd_complete(struct cli *cli, int argc, char **argv)
{
    /* Parsed by hand: everything after "--" is the user's words, options included. */
    const char *current = "";
    char **words = argv + argc;
    size_t nwords = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            words = argv + i + 1;
            nwords = (size_t)(argc - i - 1);
            break;
        }
        if (str_starts_with(argv[i], "--current="))
            current = argv[i] + strlen("--current=");
        else
            return cli_usage_error(cli, "unexpected argument '%s'", argv[i]);
    }
    struct completion c = {current, STRBUF_INIT};
    sb_add(&c.seen, "\n");
    const struct cli_command *cmd = NULL;
    int pos = 0;
    const char *value_of = NULL;
    for (size_t i = 0; i < nwords; i++) {
        const char *w = words[i];
        if (w[0] == '-' && w[1]) {
            if (option_takes_value(cmd, w)) {
                if (i + 1 == nwords)
                    value_of = w;
                else if (!strcmp(w, "--root") && !cli->root)
                    cli->root = words[i + 1];
                i++;
            }
        } else if (!cmd) {
            if (!(cmd = find_command(w)))
                break; /* not a command: nothing to offer */
        } else {
            pos++;
        }
    }
    if (nwords && !cmd && words[0][0] != '-') {
        /* an unknown command: nothing to offer */
    } else if (value_of) {
        if (!strcmp(value_of, "--shell"))
            offer_words(&c, shell_names());
    } else if (current[0] == '-') {
        if (cmd)
            each_option(cmd, offer_option, &c);
        for (size_t i = 0; i < CDM_ARRAY_LEN(global_flags); i++)
            offer_str(&c, global_flags[i]);
        for (size_t i = 0; i < CDM_ARRAY_LEN(global_values); i++)
            offer_str(&c, global_values[i]);
    } else if (!cmd) {
        for (const struct cli_command *k = cli_commands; k->name; k++)
            offer_str(&c, k->name);
    } else {
        offer_positional(cli, &c, cmd, pos);
    }
    sb_free(&c.seen);
    return EXIT_OK;
}
