#include "json.h"
#include "text.h"

#include <cJSON.h>

void json_init(struct json *j)
{
    memset(j, 0, sizeof(*j));
}

/* cJSON reports a failed allocation with NULL; like xmalloc, cdm cannot go on without it. */
static void *checked(void *p)
{
    if (!p) {
        fputs("cdm: out of memory writing the JSON document\n", stderr);
        abort();
    }
    return p;
}

void json_print(struct json *j, FILE *out)
{
    if (j->root) {
        char *text = checked(cJSON_PrintUnformatted(j->root));
        fputs(text, out);
        fputc('\n', out);
        cJSON_free(text);
    }
    json_free(j);
}

void json_free(struct json *j)
{
    cJSON_Delete(j->root);
    free(j->open);
    free(j->key);
    memset(j, 0, sizeof(*j));
}

/* Put item where the document stands: the root, an array's next element, or the value of
 * the key given last. */
static cJSON *add(struct json *j, cJSON *item)
{
    checked(item);
    if (j->depth == 0) {
        cJSON_Delete(j->root); /* one document: a second root replaces the first */
        j->root = item;
        return item;
    }
    cJSON *parent = j->open[j->depth - 1];
    if (cJSON_IsObject(parent)) {
        /* cJSON copies the key; a value without one gets "" rather than a broken object */
        if (!cJSON_AddItemToObject(parent, j->key ? j->key : "", item))
            checked(NULL);
        free(j->key);
        j->key = NULL;
    } else if (!cJSON_AddItemToArray(parent, item)) {
        checked(NULL);
    }
    return item;
}

static void begin(struct json *j, cJSON *container)
{
    add(j, container);
    if (j->depth == j->cap) {
        j->cap = j->cap ? 2 * j->cap : 8;
        j->open = xrealloc(j->open, j->cap * sizeof(*j->open));
    }
    j->open[j->depth++] = container;
}

static void end(struct json *j)
{
    if (j->depth > 0)
        j->depth--;
}

void json_object_begin(struct json *j)
{
    begin(j, cJSON_CreateObject());
}

void json_object_end(struct json *j)
{
    end(j);
}

void json_array_begin(struct json *j)
{
    begin(j, cJSON_CreateArray());
}

void json_array_end(struct json *j)
{
    end(j);
}

void json_key(struct json *j, const char *key)
{
    free(j->key);
    j->key = xstrdup(key);
}

/* s as a JSON string; false when s was not UTF-8 (text_utf8 replaced what was not). */
static bool add_string(struct json *j, const char *s)
{
    if (!s) {
        add(j, cJSON_CreateNull());
        return true;
    }
    struct strbuf utf8 = STRBUF_INIT;
    bool valid = text_utf8(&utf8, s);
    add(j, cJSON_CreateString(sb_str(&utf8)));
    sb_free(&utf8);
    return valid;
}

void json_string(struct json *j, const char *s)
{
    add_string(j, s);
}

/* cJSON keeps numbers as doubles, exact only up to 2^53: sizes and times are written as
 * their decimal text instead, exact over the whole 64-bit range. */
void json_int(struct json *j, long long v)
{
    char text[24];
    snprintf(text, sizeof(text), "%lld", v);
    add(j, cJSON_CreateRaw(text));
}

void json_bool(struct json *j, bool v)
{
    add(j, cJSON_CreateBool(v));
}

void json_null(struct json *j)
{
    add(j, cJSON_CreateNull());
}

/* A value that is not UTF-8 (a path is bytes on POSIX) reads with U+FFFD where a byte was
 * not, and comes whole beside it as "<key>_bytes": its bytes in hex. */
void json_kv_string(struct json *j, const char *key, const char *s)
{
    json_key(j, key);
    if (add_string(j, s))
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
