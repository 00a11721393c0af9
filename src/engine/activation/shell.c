/* Shell syntax: one row per shell, and rendering a plan with it. */
#include "shell.h"
#include "env_plan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* In the order cdm lists them: Windows' first, the first platform. */
enum shell_id {
    SHELL_PWSH,
    SHELL_POWERSHELL,
    SHELL_CMD,
    SHELL_BASH,
    SHELL_ZSH,
    SHELL_FISH,
    SHELL_SH,
    SHELL_COUNT
};

struct cdm_shell {
    const char *name;
    void (*quote)(struct strbuf *out, const char *value);
    bool (*expressible)(const char *value); /* NULL: every value */
    /* set: set_pre NAME set_mid QUOTED set_post; unset: unset_pre NAME unset_post */
    const char *set_pre, *set_mid, *set_post;
    const char *unset_pre, *unset_post;
    /* Between the separately quoted parts of a path list; NULL: the list is one literal
     * joined with the platform's separator. */
    const char *list_join;
    /* A variable of the session, not exported: var_pre NAME var_mid QUOTED var_post. */
    const char *var_pre, *var_mid, *var_post;
};

/* POSIX sh: nothing is special inside '...' except the closing quote itself. */
static void quote_sh(struct strbuf *out, const char *v)
{
    sb_addc(out, '\'');
    for (; *v; v++) {
        if (*v == '\'')
            sb_add(out, "'\\''");
        else
            sb_addc(out, *v);
    }
    sb_addc(out, '\'');
}

/* fish: inside '...' only \' and \\ are escapes. */
static void quote_fish(struct strbuf *out, const char *v)
{
    sb_addc(out, '\'');
    for (; *v; v++) {
        if (*v == '\'' || *v == '\\')
            sb_addc(out, '\\');
        sb_addc(out, *v);
    }
    sb_addc(out, '\'');
}

/* The code point of the UTF-8 sequence at v, its length in *len; U+FFFD for a byte that
 * starts none (a .NET string cannot hold it either). */
static unsigned utf8_point(const unsigned char *v, size_t *len)
{
    unsigned cp = v[0];
    size_t n = cp >= 0xF0 && cp < 0xF5 ? 4 : cp >= 0xE0 ? 3 : cp >= 0xC2 && cp < 0xE0 ? 2 : 0;
    if (cp >= 0xF5)
        n = 0;
    cp &= n == 4 ? 0x07 : n == 3 ? 0x0F : 0x1F;
    for (size_t i = 1; i < n; i++) {
        if ((v[i] & 0xC0) != 0x80) {
            n = 0;
            break;
        }
        cp = cp << 6 | (v[i] & 0x3Fu);
    }
    *len = n ? n : 1;
    return n ? cp : 0xFFFD;
}

/*
 * PowerShell: a single-quoted literal (no expansion; a quote doubled) of ASCII only. PowerShell
 * 5.1 and 7 decode a native program's output with the console's code page (the OEM one by
 * default), not as UTF-8, so any other byte would arrive as other characters, silently (and
 * some as typographic quotes, which PowerShell takes as quotes). A value with a non-ASCII
 * character is therefore an expression: ('' + 'C:\Users\Jos' + [char]0x00E9), a character
 * outside the BMP as its two UTF-16 halves.
 */
static void quote_pwsh(struct strbuf *out, const char *v)
{
    const unsigned char *u = (const unsigned char *)v;
    bool ascii = true;
    for (const unsigned char *c = u; *c && ascii; c++)
        ascii = *c < 0x80;
    sb_add(out, ascii ? "'" : "(''");
    bool open = ascii; /* inside a literal */
    while (*u) {
        size_t len = 1;
        unsigned cp = *u < 0x80 ? *u : utf8_point(u, &len);
        if (cp >= 0x80 || !open) {
            if (open)
                sb_addc(out, '\'');
            if (cp >= 0x10000)
                sb_addf(out, " + [char]0x%04X + [char]0x%04X", 0xD800 + ((cp - 0x10000) >> 10),
                        0xDC00 + ((cp - 0x10000) & 0x3FF));
            else if (cp >= 0x80)
                sb_addf(out, " + [char]0x%04X", cp);
            else
                sb_add(out, " + '");
            open = cp < 0x80;
        }
        if (cp < 0x80) {
            if (cp == '\'')
                sb_addc(out, '\'');
            sb_addc(out, (char)cp);
        }
        u += len;
    }
    sb_add(out, ascii ? "'" : open ? "')" : ")");
}

/* cmd: the whole `set "NAME=value"` is quoted by the template; inside it nothing but a quote
 * or a line break can go wrong (%, ^, & and ! are literal there when delayed expansion is
 * off, as it is by default). */
static void quote_cmd(struct strbuf *out, const char *v)
{
    sb_add(out, v);
}

/* A quote inside `set "NAME=value"` stays in the value (set drops only the last quote and
 * what follows it), so a PATH entry an installer quoted ("C:\Program Files\Foo") goes
 * through. But a quote also ends cmd's quoting when the text is run from a batch file: up to
 * the next quote, &, |, <, > and ^ would act as they do in a command, so a value with one
 * of them there cannot be written. */
static bool cmd_expressible(const char *v)
{
    bool quoted = true;
    for (const char *p = v; *p; p++) {
        if (*p == '\r' || *p == '\n' || (!quoted && strchr("&|<>^", *p)))
            return false;
        if (*p == '"')
            quoted = !quoted;
    }
    return true;
}

/*
 * One row per shell. How to add one: a row here (its quoting, and how it sets, unsets and
 * joins a path list), its value in the enum above, its golden texts in tests/golden/
 * (the unit test shell compares every row's activation and deactivation with them), a
 * prompt hook in cli/cmd_hook.c when it has prompts, and its completion in completions/.
 * The live shell then runs the text in tests/cli/shell.sh.
 */
static const struct cdm_shell shells[] = {
    [SHELL_PWSH] = {"pwsh", quote_pwsh, NULL, "$env:", " = ", "",
                    "Remove-Item -LiteralPath 'Env:", "' -ErrorAction SilentlyContinue",
                    " + [IO.Path]::PathSeparator + ", "$global:", " = ", ""},
    [SHELL_POWERSHELL] = {"powershell", quote_pwsh, NULL, "$env:", " = ", "",
                          "Remove-Item -LiteralPath 'Env:", "' -ErrorAction SilentlyContinue",
                          " + [IO.Path]::PathSeparator + ", "$global:", " = ", ""},
    [SHELL_CMD] = {"cmd", quote_cmd, cmd_expressible, "set \"", "=", "\"", "set \"", "=\"", NULL,
                   "set \"", "=", "\""},
    [SHELL_BASH] = {"bash", quote_sh, NULL, "export ", "=", "", "unset ", "", NULL, "", "=", ""},
    [SHELL_ZSH] = {"zsh", quote_sh, NULL, "export ", "=", "", "unset ", "", NULL, "", "=", ""},
    [SHELL_FISH] = {"fish", quote_fish, NULL, "set -gx ", " ", "", "set -e -g ", "", NULL,
                    "set -g ", " ", ""},
    [SHELL_SH] = {"sh", quote_sh, NULL, "export ", "=", "", "unset ", "", NULL, "", "=", ""},
};
_Static_assert(CDM_ARRAY_LEN(shells) == SHELL_COUNT, "one row per shell");

/* Programs that read one of the syntaxes above. */
static const struct {
    const char *program;
    enum shell_id shell;
} aliases[] = {
    {"dash", SHELL_SH}, {"ash", SHELL_SH},  {"ksh", SHELL_SH},
    {"mksh", SHELL_SH}, {"yash", SHELL_SH}, {"busybox", SHELL_SH},
};

static bool same_icase(const char *a, const char *b, size_t n)
{
    if (strlen(b) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return false;
    return true;
}

const cdm_shell *cdm_shell_find(const char *name)
{
    if (!name || !*name)
        return NULL;
    /* A path or a program file name: the last component, without a login '-' or ".exe". */
    const char *base = name;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    if (*base == '-')
        base++;
    size_t n = strlen(base);
    if (str_ends_with_icase(base, ".exe"))
        n -= 4;
    for (size_t i = 0; i < SHELL_COUNT; i++)
        if (same_icase(base, shells[i].name, n))
            return &shells[i];
    for (size_t i = 0; i < CDM_ARRAY_LEN(aliases); i++)
        if (same_icase(base, aliases[i].program, n))
            return &shells[aliases[i].shell];
    return NULL;
}

const cdm_shell *cdm_shell_at(size_t i)
{
    return i < SHELL_COUNT ? &shells[i] : NULL;
}

const char *cdm_shell_name(const cdm_shell *sh)
{
    return sh->name;
}

const cdm_shell *cdm_shell_parent(void)
{
    return cdm_shell_find(shell_parent_name());
}

void shell_quote(const cdm_shell *sh, struct strbuf *out, const char *value)
{
    sh->quote(out, value);
}

static bool expressible(const cdm_shell *sh, const char *v)
{
    return !v || !sh->expressible || sh->expressible(v);
}

const char *shell_render(const cdm_shell *sh, const struct shell_platform *pf,
                         const struct cdm_env_plan *plan, struct strbuf *out)
{
    for (size_t i = 0; i < plan->n; i++) {
        const struct cdm_env_change *c = &plan->v[i];
        if (!expressible(sh, c->value) || !expressible(sh, c->first))
            return c->name;
    }
    for (size_t i = 0; i < plan->n; i++) {
        const struct cdm_env_change *c = &plan->v[i];
        if (!c->value) {
            sb_addf(out, "%s%s%s\n", sh->unset_pre, c->name, sh->unset_post);
            continue;
        }
        sb_addf(out, "%s%s%s", sh->set_pre, c->name, sh->set_mid);
        if (c->first && *c->value && sh->list_join) {
            sh->quote(out, c->first);
            sb_add(out, sh->list_join);
            sh->quote(out, c->value);
        } else {
            char *value = env_change_value(pf, c);
            sh->quote(out, value);
            free(value);
        }
        sb_addf(out, "%s\n", sh->set_post);
    }
    return NULL;
}

const char *cdm_shell_render(const cdm_shell *sh, const struct cdm_env_plan *plan, char **text)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "");
    const char *bad = shell_render(sh, shell_host_platform(), plan, &sb);
    if (bad) {
        sb_free(&sb);
        *text = NULL;
        return bad;
    }
    *text = sb_detach(&sb);
    return NULL;
}

char *cdm_shell_assign(const cdm_shell *sh, const char *name, const char *value)
{
    if (!expressible(sh, value))
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s%s%s", sh->var_pre, name, sh->var_mid);
    sh->quote(&sb, value);
    sb_addf(&sb, "%s\n", sh->var_post);
    return sb_detach(&sb);
}
