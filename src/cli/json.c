#include "json.h"

void json_init(struct json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->first[0] = true;
    j->after_key = false;
}

static void before_value(struct json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (!j->first[j->depth])
        fputc(',', j->out);
    j->first[j->depth] = false;
}

static void open_(struct json *j, char c)
{
    before_value(j);
    fputc(c, j->out);
    if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0])))
        j->depth++;
    j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
    fputc(c, j->out);
    if (j->depth > 0)
        j->depth--;
    if (j->depth == 0)
        fputc('\n', j->out);
}

void json_object_begin(struct json *j)
{
    open_(j, '{');
}

void json_object_end(struct json *j)
{
    close_(j, '}');
}

void json_array_begin(struct json *j)
{
    open_(j, '[');
}

void json_array_end(struct json *j)
{
    close_(j, ']');
}

static void write_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out); /* UTF-8 passes through */
        }
    }
    fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
    before_value(j);
    write_string(j->out, key);
    fputc(':', j->out);
    j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
    if (!s) {
        json_null(j);
        return;
    }
    before_value(j);
    write_string(j->out, s);
}

void json_int(struct json *j, long long v)
{
    before_value(j);
    fprintf(j->out, "%lld", v);
}

void json_bool(struct json *j, bool v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
    before_value(j);
    fputs("null", j->out);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
    json_key(j, key);
    json_string(j, s);
}

void json_kv_int(struct json *j, const char *key, long long v)
{
    json_key(j, key);
    json_int(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
    json_key(j, key);
    json_bool(j, v);
}
