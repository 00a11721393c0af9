/*
 * --json output (front end only), built as a cJSON tree: the library that reads NVIDIA's
 * manifests also writes cdm's documents, so escaping and syntax come from one well-kept
 * place. The calls stream (begin, key, value, end); the tree reaches stdout whole, on one
 * line, with json_print once the command has succeeded: a command that fails half-way
 * prints no half document (json_free drops it).
 */
#ifndef CDM_JSON_H
#define CDM_JSON_H

#include "base/util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cJSON;
struct json {
    struct cJSON *root;
    struct cJSON **open; /* the containers begun and not yet ended, innermost last */
    size_t depth, cap;
    char *key; /* the key json_key gave, for the next value */
};

void json_init(struct json *j);
/* Write the document to out, on one line ending in a newline, and free it. */
void json_print(struct json *j, FILE *out);
void json_free(struct json *j);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s); /* NULL writes null */
void json_int(struct json *j, long long v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* Shorthands for "key": value. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_bool(struct json *j, const char *key, bool v);

#endif
