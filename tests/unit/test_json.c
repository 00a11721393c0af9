/*
 * The front end's --json writer (src/cli/json.c, on cJSON): what it prints must parse
 * back to what was written, escapes and all, with 64-bit numbers exact.
 */
#include "cli/json.h"
#include "tap.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>

/* The document j prints, read back from a file in the working folder (tmpfile() writes
 * to the drive's root on Windows, which may not be writable). */
static char *printed(struct json *j)
{
    const char *name = "test_json.out";
    FILE *f = fopen(name, "w+b");
    if (!f)
        return NULL;
    json_print(j, f);
    long n = ftell(f);
    rewind(f);
    char *text = calloc(1, (size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    remove(name);
    return text;
}

static void shapes(void)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_kv_string(&j, "id", "9.27.0.48-cuda13");
    json_kv_int(&j, "size", 1234);
    json_kv_bool(&j, "official", true);
    json_key(&j, "generation");
    json_null(&j);
    json_key(&j, "paths");
    json_array_begin(&j);
    json_string(&j, "a");
    json_string(&j, NULL);
    json_int(&j, -7);
    json_array_end(&j);
    json_object_end(&j);
    char *text = printed(&j);
    is_str(text,
           "{\"id\":\"9.27.0.48-cuda13\",\"size\":1234,\"official\":true,\"generation\":null,"
           "\"paths\":[\"a\",null,-7]}\n",
           "an object on one line, keys in order, ending in a newline");
    free(text);

    json_init(&j);
    json_array_begin(&j);
    json_array_end(&j);
    text = printed(&j);
    is_str(text, "[]\n", "an empty array");
    free(text);

    json_init(&j);
    text = printed(&j);
    is_str(text, "", "nothing begun prints nothing");
    free(text);
}

static void escapes(void)
{
    const char *nasty = "C:\\cudnn \"9\"\n\t\r\x01 caf\xc3\xa9";
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_kv_string(&j, "path", nasty);
    json_kv_string(&j, "k\"ey", "v");
    json_object_end(&j);
    char *text = printed(&j);
    ok(text && !strchr(text, '\t') && !strchr(text, '\r') && strstr(text, "\\u0001"),
       "control characters are escaped");
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    ok(doc != NULL, "the document parses");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "path");
    is_str(cJSON_IsString(p) ? p->valuestring : NULL, nasty,
           "quotes, backslashes, control characters and UTF-8 come back as written");
    ok(cJSON_GetObjectItemCaseSensitive(doc, "k\"ey") != NULL, "a key is escaped too");
    cJSON_Delete(doc);
    free(text);
}

static void not_utf8(void)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_kv_string(&j, "path", "a\xff");
    json_object_end(&j);
    char *text = printed(&j);
    is_str(text, "{\"path\":\"a\xef\xbf\xbd\",\"path_bytes\":\"61ff\"}\n",
           "bytes that are not UTF-8: U+FFFD, and the bytes in hex beside");
    free(text);
}

static void numbers(void)
{
    struct json j;
    json_init(&j);
    json_array_begin(&j);
    json_int(&j, INT64_MAX);
    json_int(&j, INT64_MIN);
    json_int(&j, 9007199254740993LL); /* 2^53 + 1: a double would print ...992 */
    json_int(&j, 3000000000LL);
    json_array_end(&j);
    char *text = printed(&j);
    is_str(text, "[9223372036854775807,-9223372036854775808,9007199254740993,3000000000]\n",
           "64-bit whole numbers are written exactly");
    free(text);
}

static void dropped(void)
{
    /* a command that fails half-way frees its document: nothing reaches the output */
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_key(&j, "installs");
    json_array_begin(&j);
    json_free(&j);
    char *text = printed(&j);
    is_str(text, "", "a freed document prints nothing");
    free(text);
}

int main(void)
{
    shapes();
    escapes();
    not_utf8();
    numbers();
    dropped();
    return tap_done();
}
