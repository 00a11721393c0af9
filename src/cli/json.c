#include "json.h"
#include "text.h"

void json_init(struct json *j)
{
    j->text = (struct strbuf)STRBUF_INIT;
    j->depth = 0;
    j->first[0] = true;
    j->after_key = false;
}

void json_print(struct json *j, FILE *out)
{
    fputs(sb_str(&j->text), out);
    json_free(j);
}

void json_free(struct json *j)
{
    sb_free(&j->text);
}

static void before_value(struct json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (!j->first[j->depth])
        sb_addc(&j->text, ',');
    j->first[j->depth] = false;
}

static void open_(struct json *j, char c)
{
    before_value(j);
    sb_addc(&j->text, c);
    if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0])))
        j->depth++;
    j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
    sb_addc(&j->text, c);
    if (j->depth > 0)
        j->depth--;
    if (j->depth == 0)
        sb_addc(&j->text, '\n');
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

/* s as a JSON string; false when s was not UTF-8 (text_utf8 replaced what was not). */
static bool write_string(struct strbuf *out, const char *s)
{
    struct strbuf utf8 = STRBUF_INIT;
    bool valid = text_utf8(&utf8, s);
    sb_addc(out, '"');
    for (const unsigned char *p = (const unsigned char *)sb_str(&utf8); *p; p++) {
        switch (*p) {
        case '"':
            sb_add(out, "\\\"");
            break;
        case '\\':
            sb_add(out, "\\\\");
            break;
        case '\n':
            sb_add(out, "\\n");
            break;
        case '\r':
            sb_add(out, "\\r");
            break;
        case '\t':
            sb_add(out, "\\t");
            break;
        default:
            if (*p < 0x20)
                sb_addf(out, "\\u%04x", *p);
            else
                sb_addc(out, (char)*p); /* UTF-8 passes through */
        }
    }
    sb_addc(out, '"');
    sb_free(&utf8);
    return valid;
}

void json_key(struct json *j, const char *key)
{
    before_value(j);
    write_string(&j->text, key);
    sb_addc(&j->text, ':');
    j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
    if (!s) {
        json_null(j);
        return;
    }
    before_value(j);
    write_string(&j->text, s);
}

void json_int(struct json *j, long long v)
{
    before_value(j);
    sb_addf(&j->text, "%lld", v);
}

void json_bool(struct json *j, bool v)
{
    before_value(j);
    sb_add(&j->text, v ? "true" : "false");
}

void json_null(struct json *j)
{
    before_value(j);
    sb_add(&j->text, "null");
}

/* A value that is not UTF-8 (a path is bytes on POSIX) reads with U+FFFD where a byte was
 * not, and comes whole beside it as "<key>_bytes": its bytes in hex. */
void json_kv_string(struct json *j, const char *key, const char *s)
{
    json_key(j, key);
    if (!s) {
        json_null(j);
        return;
    }
    before_value(j);
    if (write_string(&j->text, s))
        return;
    char *bytes_key = xasprintf("%s_bytes", key);
    char *hex = xmalloc(2 * strlen(s) + 1);
    hex_encode((const unsigned char *)s, strlen(s), hex);
    json_key(j, bytes_key);
    json_string(j, hex);
    free(hex);
    free(bytes_key);
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
