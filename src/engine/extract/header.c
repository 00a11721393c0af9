/* The version a cuDNN header gives, as a compiler would see it. See header.h. */
#include "header.h"
#include "base/strmap.h"
#include "base/util.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NESTING    256     /* #if inside #if */
#define MAX_EXPANSION  32      /* a macro inside a macro */
#define MAX_EXPANSIONS 100000  /* macros expanded in one header, all told */
#define MAX_VERSION    9999999 /* a version part has at most seven digits (version.h) */

/* Line splices out, then comments to one space each and string or character literals
 * emptied, so that nothing inside them is read as a directive or a value. */
static bool clean(const char *text, size_t len, struct strbuf *out)
{
    struct strbuf spliced = STRBUF_INIT;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\\' && i + 1 < len && text[i + 1] == '\n')
            i++;
        else if (text[i] == '\\' && i + 2 < len && text[i + 1] == '\r' && text[i + 2] == '\n')
            i += 2;
        else
            sb_addc(&spliced, text[i] ? text[i] : ' ');
    }
    const char *s = sb_str(&spliced), *end = s + spliced.len;
    bool ok = true;
    while (s < end && ok) {
        if (s[0] == '/' && s + 1 < end && s[1] == '*') {
            const char *close = NULL;
            for (const char *p = s + 2; p + 1 < end && !close; p++)
                if (p[0] == '*' && p[1] == '/')
                    close = p;
            ok = close != NULL;
            s = close ? close + 2 : end;
            sb_addc(out, ' ');
        } else if (s[0] == '/' && s + 1 < end && s[1] == '/') {
            while (s < end && *s != '\n')
                s++;
        } else if (*s == '"' || *s == '\'') {
            char quote = *s++;
            while (s < end && *s != quote && *s != '\n')
                s += s[0] == '\\' && s + 1 < end && s[1] != '\n' ? 2 : 1;
            if (s < end && *s == quote)
                s++;
            sb_addc(out, quote);
            sb_addc(out, quote);
        } else {
            sb_addc(out, *s++);
        }
    }
    sb_free(&spliced);
    return ok;
}

/* The macros defined so far: their bodies, by name. */
struct macros {
    struct strmap index; /* name -> place in body */
    char **body;         /* NULL: not defined (or #undef'd) */
    bool *function;      /* a function-like macro */
    size_t count, cap;
};

static void macro_set(struct macros *m, const char *name, size_t n, const char *body,
                      size_t body_len, bool function)
{
    bool added;
    size_t *at = strmap_put(&m->index, name, n, m->count, &added);
    if (added) {
        if (m->count == m->cap) {
            m->cap = m->cap ? m->cap * 2 : 64;
            m->body = xrealloc(m->body, m->cap * sizeof(*m->body));
            m->function = xrealloc(m->function, m->cap * sizeof(*m->function));
        }
        m->body[m->count] = NULL;
        m->count++;
    }
    free(m->body[*at]);
    m->body[*at] = body ? xstrndup(body, body_len) : NULL;
    m->function[*at] = function;
}

static const char *macro_get(const struct macros *m, const char *name, size_t n, bool *function)
{
    size_t *at = strmap_get(&m->index, name, n);
    if (!at || !m->body[*at])
        return NULL;
    *function = m->function[*at];
    return m->body[*at];
}

static void macros_free(struct macros *m)
{
    for (size_t i = 0; i < m->count; i++)
        free(m->body[i]);
    free(m->body);
    free(m->function);
    strmap_free(&m->index);
}

/* An #if expression, evaluated in long long with the preprocessor's rules where they
 * matter here; arithmetic wraps as unsigned, so no input is undefined behaviour. */
struct eval {
    const char *p, *end;
    const struct macros *m;
    const char *expanding[MAX_EXPANSION]; /* names being expanded (not expanded again) */
    size_t expanding_len[MAX_EXPANSION];
    int depth;
    long *budget;
    int dead; /* inside an operand that is not evaluated (0 && x): no division error */
    bool error;
};

static bool is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void skip_space(struct eval *e)
{
    while (e->p < e->end && isspace((unsigned char)*e->p))
        e->p++;
}

static bool eat(struct eval *e, const char *op)
{
    skip_space(e);
    size_t n = strlen(op);
    if ((size_t)(e->end - e->p) < n || memcmp(e->p, op, n))
        return false;
    e->p += n;
    return true;
}

static long long conditional(struct eval *e);
static long long evaluate(const struct macros *m, const char *s, size_t n, struct eval *outer,
                          long *budget, bool *error);

static long long number(struct eval *e)
{
    unsigned long long v = 0;
    int base = 10;
    if (e->p[0] == '0' && e->p + 1 < e->end && (e->p[1] == 'x' || e->p[1] == 'X'))
        base = 16, e->p += 2;
    else if (e->p[0] == '0')
        base = 8;
    const char *start = e->p;
    for (; e->p < e->end && isxdigit((unsigned char)*e->p); e->p++) {
        int d =
            isdigit((unsigned char)*e->p) ? *e->p - '0' : tolower((unsigned char)*e->p) - 'a' + 10;
        if (d >= base || v > (ULLONG_MAX - (unsigned)d) / (unsigned)base) {
            e->error = true;
            return 0;
        }
        v = v * (unsigned)base + (unsigned)d;
    }
    if (base == 16 && e->p == start)
        e->error = true;
    while (e->p < e->end && *e->p && strchr("uUlL", *e->p))
        e->p++;
    if (v > LLONG_MAX || (e->p < e->end && is_ident(*e->p)))
        e->error = true;
    return (long long)v;
}

/* A name: defined X, a macro's value, or 0 for a name no macro has. */
static long long name(struct eval *e)
{
    const char *start = e->p;
    while (e->p < e->end && is_ident(*e->p))
        e->p++;
    size_t n = (size_t)(e->p - start);
    bool function = false;
    if (n == 7 && !memcmp(start, "defined", 7)) {
        bool paren = eat(e, "(");
        skip_space(e);
        const char *id = e->p;
        while (e->p < e->end && is_ident(*e->p))
            e->p++;
        if (e->p == id || (paren && !eat(e, ")")))
            e->error = true;
        return macro_get(e->m, id, (size_t)(e->p - id), &function) != NULL;
    }
    const char *body = macro_get(e->m, start, n, &function);
    if (body && function) { /* F(...): its arguments are skipped, its value taken as 0 */
        skip_space(e);
        int open = 0;
        if (e->p < e->end && *e->p == '(') {
            do {
                open += *e->p == '(' ? 1 : *e->p == ')' ? -1 : 0;
                e->p++;
            } while (e->p < e->end && open > 0);
        }
        e->error |= open != 0;
        return 0;
    }
    if (!body)
        return 0;
    for (int i = 0; i < e->depth; i++)
        if (e->expanding_len[i] == n && !memcmp(e->expanding[i], start, n))
            return 0; /* a macro is not expanded inside itself */
    if (e->depth == MAX_EXPANSION || --*e->budget < 0) {
        e->error = true;
        return 0;
    }
    e->expanding[e->depth] = start;
    e->expanding_len[e->depth] = n;
    e->depth++;
    long long v = evaluate(e->m, body, strlen(body), e, e->budget, &e->error);
    e->depth--;
    return v;
}

static long long unary(struct eval *e)
{
    skip_space(e);
    if (e->error || e->p >= e->end) {
        e->error = true;
        return 0;
    }
    char c = *e->p;
    if (c == '!' || c == '~' || c == '-' || c == '+') {
        e->p++;
        unsigned long long v = (unsigned long long)unary(e);
        return c == '!'   ? !v
               : c == '~' ? (long long)~v
               : c == '-' ? (long long)(0 - v)
                          : (long long)v;
    }
    if (c == '(') {
        e->p++;
        long long v = conditional(e);
        if (!eat(e, ")"))
            e->error = true;
        return v;
    }
    if (isdigit((unsigned char)c))
        return number(e);
    if (is_ident(c))
        return name(e);
    if (c == '\'' && e->p + 1 < e->end && e->p[1] == '\'') { /* an emptied character */
        e->p += 2;
        return 0;
    }
    e->error = true;
    return 0;
}

/* Two-character operators before their one-character prefixes; apply() goes by place. */
static const struct {
    const char *op;
    int prec;
} binary_ops[] = {
    {"||", 1}, {"&&", 2}, {"==", 6}, {"!=", 6}, {"<=", 7}, {">=", 7},
    {"<<", 8}, {">>", 8}, {"|", 3},  {"^", 4},  {"&", 5},  {"<", 7},
    {">", 7},  {"+", 9},  {"-", 9},  {"*", 10}, {"/", 10}, {"%", 10},
};

static int peek_op(struct eval *e, int min_prec)
{
    skip_space(e);
    for (size_t i = 0; i < CDM_ARRAY_LEN(binary_ops); i++) {
        size_t n = strlen(binary_ops[i].op);
        if ((size_t)(e->end - e->p) >= n && !memcmp(e->p, binary_ops[i].op, n))
            return binary_ops[i].prec >= min_prec ? (int)i : -1;
    }
    return -1;
}

/* binary_ops[i] applied to a and b */
static long long apply(struct eval *e, size_t i, long long a, long long b)
{
    unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    switch (i) {
    case 0:
        return a || b;
    case 1:
        return a && b;
    case 2:
        return a == b;
    case 3:
        return a != b;
    case 4:
        return a <= b;
    case 5:
        return a >= b;
    case 6:
        return (long long)(ua << (ub & 63));
    case 7:
        return (long long)(ua >> (ub & 63));
    case 8:
        return (long long)(ua | ub);
    case 9:
        return (long long)(ua ^ ub);
    case 10:
        return (long long)(ua & ub);
    case 11:
        return a < b;
    case 12:
        return a > b;
    case 13:
        return (long long)(ua + ub);
    case 14:
        return (long long)(ua - ub);
    case 15:
        return (long long)(ua * ub);
    default: /* 16 '/', 17 '%' */
        if (b == 0 || (a == LLONG_MIN && b == -1)) {
            e->error |= !e->dead;
            return 0;
        }
        return i == 16 ? a / b : a % b;
    }
}

static long long binary(struct eval *e, int min_prec)
{
    long long a = unary(e);
    int i;
    while (!e->error && (i = peek_op(e, min_prec)) >= 0) {
        const char *op = binary_ops[i].op;
        e->p += strlen(op);
        bool short_circuit = (!strcmp(op, "&&") && !a) || (!strcmp(op, "||") && a);
        e->dead += short_circuit;
        long long b = binary(e, binary_ops[i].prec + 1);
        e->dead -= short_circuit;
        a = short_circuit ? !strcmp(op, "||") : apply(e, (size_t)i, a, b);
    }
    return a;
}

static long long conditional(struct eval *e)
{
    long long c = binary(e, 1);
    if (e->error || !eat(e, "?"))
        return c;
    e->dead += !c;
    long long a = conditional(e);
    e->dead -= !c;
    if (!eat(e, ":"))
        e->error = true;
    e->dead += !!c;
    long long b = conditional(e);
    e->dead -= !!c;
    return c ? a : b;
}

/* The value of the n bytes at s, all of which must be one expression. */
static long long evaluate(const struct macros *m, const char *s, size_t n, struct eval *outer,
                          long *budget, bool *error)
{
    struct eval e = {.p = s, .end = s + n, .m = m, .budget = budget};
    if (outer) {
        e.depth = outer->depth;
        e.dead = outer->dead;
        memcpy(e.expanding, outer->expanding, sizeof(e.expanding));
        memcpy(e.expanding_len, outer->expanding_len, sizeof(e.expanding_len));
    }
    long long v = conditional(&e);
    skip_space(&e);
    if (e.error || e.p != e.end)
        *error = true;
    return v;
}

/* One frame per open #if. */
struct cond {
    bool parent; /* the lines around the #if are compiled */
    bool taken;  /* a branch of it was compiled already */
    bool active; /* the lines here are compiled */
    bool in_else;
};

struct reader {
    struct macros m;
    struct cond stack[MAX_NESTING];
    int depth;
    long budget;
    bool error;
};

static bool active(const struct reader *r)
{
    return r->depth == 0 || r->stack[r->depth - 1].active;
}

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v' || *p == '\r'))
        p++;
    return p;
}

static bool condition(struct reader *r, const char *word, size_t wn, const char *p, const char *end)
{
    bool function;
    if (wn == 2) /* if, elif is handled by the caller with "if" */
        return evaluate(&r->m, p, (size_t)(end - p), NULL, &r->budget, &r->error) != 0;
    const char *id = p;
    while (p < end && is_ident(*p))
        p++;
    if (p == id || skip_blank(p, end) != end)
        r->error = true;
    bool defined = macro_get(&r->m, id, (size_t)(p - id), &function) != NULL;
    return word[2] == 'n' ? !defined : defined; /* ifndef : ifdef */
}

static void define(struct reader *r, const char *p, const char *end, bool undef)
{
    const char *id = p;
    while (p < end && is_ident(*p))
        p++;
    if (p == id || isdigit((unsigned char)*id)) {
        r->error = true;
        return;
    }
    if (undef) {
        macro_set(&r->m, id, (size_t)(p - id), NULL, 0, false);
        return;
    }
    bool function = p < end && *p == '(';
    const char *body = skip_blank(p, end);
    while (end > body && isspace((unsigned char)end[-1]))
        end--;
    macro_set(&r->m, id, (size_t)(p - id), body, (size_t)(end - body), function);
}

static void directive(struct reader *r, const char *p, const char *end)
{
    const char *word = p = skip_blank(p, end);
    while (p < end && isalpha((unsigned char)*p))
        p++;
    size_t wn = (size_t)(p - word);
    p = skip_blank(p, end);
#define IS(w) (wn == sizeof(w) - 1 && !memcmp(word, w, wn))
    struct cond *top = r->depth ? &r->stack[r->depth - 1] : NULL;
    if (IS("if") || IS("ifdef") || IS("ifndef")) {
        if (r->depth == MAX_NESTING) {
            r->error = true;
            return;
        }
        bool parent = active(r);
        bool c = parent && condition(r, word, wn, p, end);
        r->stack[r->depth++] = (struct cond){parent, c, c, false};
    } else if (IS("elif")) {
        if (!top || top->in_else) {
            r->error = true;
            return;
        }
        bool c = top->parent && !top->taken && condition(r, "if", 2, p, end);
        top->active = c;
        top->taken |= c;
    } else if (IS("else")) {
        if (!top || top->in_else) {
            r->error = true;
            return;
        }
        top->in_else = true;
        top->active = top->parent && !top->taken;
        top->taken = true;
    } else if (IS("endif")) {
        if (!top)
            r->error = true;
        else
            r->depth--;
    } else if (active(r) && (IS("define") || IS("undef"))) {
        define(r, p, end, IS("undef"));
    }
#undef IS
}

/* An object-like macro's value, when it is a version part. */
static bool part(struct reader *r, const char *macro, int *out)
{
    bool function, error = false;
    const char *body = macro_get(&r->m, macro, strlen(macro), &function);
    if (!body || function)
        return false;
    long long v = evaluate(&r->m, body, strlen(body), NULL, &r->budget, &error);
    if (error || v < 0 || v > MAX_VERSION)
        return false;
    *out = (int)v;
    return true;
}

bool cudnn_header_version(const char *text, size_t len, int *major, int *minor, int *patch)
{
    struct strbuf clean_text = STRBUF_INIT;
    struct reader r = {.budget = MAX_EXPANSIONS};
    bool found = false;
    if (!clean(text, len, &clean_text))
        goto out;
    const char *s = sb_str(&clean_text), *end = s + clean_text.len;
    while (s < end && !r.error) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *line_end = nl ? nl : end;
        const char *p = skip_blank(s, line_end);
        if (p < line_end && *p == '#')
            directive(&r, p + 1, line_end);
        s = nl ? nl + 1 : end;
    }
    found = !r.error && r.depth == 0 && part(&r, "CUDNN_MAJOR", major) &&
            part(&r, "CUDNN_MINOR", minor) && part(&r, "CUDNN_PATCHLEVEL", patch);
out:
    macros_free(&r.m);
    sb_free(&clean_text);
    return found;
}
