/*
 * A small JSON writer for --json output (front end only). The document grows in memory
 * and reaches stdout whole with json_print, once the command has succeeded: a command that
 * fails half-way prints no half document (json_free drops it).
 */
#ifndef CDM_JSON_H
#define CDM_JSON_H

#include "base/util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
    struct strbuf text;
    int depth;
    bool first[32]; /* no comma yet at this depth */
    bool after_key;
};

void json_init(struct json *j);
/* Write the document to out and free it. */
void json_print(struct json *j, FILE *out);
void json_free(struct json *j);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j); /* the outermost end also writes a newline */
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
