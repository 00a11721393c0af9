/* Small helpers every core file uses: checked allocation and a growable string. */
#ifndef CDM_UTIL_H
#define CDM_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* Before banned.h, which turns some of their functions into errors: */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__MINGW32__)
/* meson defines __USE_MINGW_ANSI_STDIO: C99 formats (%zu, %lld) on every Windows */
#define CDM_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#elif defined(__GNUC__)
#define CDM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CDM_PRINTF(f, a)
#endif
/* A result that must be looked at (a cut-short copy, a failure). */
#if defined(__GNUC__)
#define CDM_MUST_CHECK __attribute__((warn_unused_result))
#else
#define CDM_MUST_CHECK
#endif

#define CDM_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failure is not recoverable in a command-line tool: these abort. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) CDM_PRINTF(1, 2);

/* Room for x[nr] in an array that grows one element at a time (git's ALLOC_GROW): the size
 * doubles when it is full, so n appends cost n copies in all, not n * n / 2. Unlike git's,
 * there is no alloc counter: the size is implied by nr (8, then the power of two at or
 * above it), so the structures keep their one count; the array must start NULL and grow
 * only through here. */
#define ALLOC_GROW(x, nr) ((x) = alloc_grow((x), (nr), sizeof(*(x))))
void *alloc_grow(void *p, size_t nr, size_t size);

struct strbuf {
    char *buf; /* always NUL-terminated once anything was added */
    size_t len;
    size_t cap;
};
#define STRBUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void sb_add(struct strbuf *sb, const char *s);
void sb_addn(struct strbuf *sb, const char *s, size_t n);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) CDM_PRINTF(2, 3);
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);
const char *sb_str(const struct strbuf *sb); /* "" when empty */
char *sb_detach(struct strbuf *sb);
void sb_free(struct strbuf *sb);
/* Append at most max bytes of stream f, reading no further. False on a read error. */
bool sb_read_stream(struct strbuf *sb, FILE *f, size_t max);
/* The same for a command's output (a popen stream): what is past max is read and dropped,
 * so that the command neither blocks nor dies of a closed pipe for having said more. */
bool sb_read_command_output(struct strbuf *sb, FILE *f, size_t max);

/* Free a NULL-terminated array of malloc'd strings and the array (NULL is fine). */
void strv_free(char **v);

/* Copy with truncation check: false when src did not fit (dst then holds what did). The
 * result must be used: a name, path, id or hash cut short names something else. A string
 * literal or an array that fits by its size goes through COPY_STR_ARRAY instead (checked when
 * compiled); text only a person reads, where a cut is harmless, through copy_text. */
bool copy_str(char *dst, size_t size, const char *src) CDM_MUST_CHECK;
/* Copy, cut short where src does not fit: for text only a person reads (a reason, a
 * label, a detail), never for what a program reads back. */
void copy_text(char *dst, size_t size, const char *src);

/* Copy the string in array src (or a string literal) into array dst, which is at least as
 * large, so nothing can be cut short: checked when compiled, and src must not be a
 * pointer (whose size says nothing of its string's length). Not git's COPY_ARRAY, which
 * copies n elements of any type: this one copies a string. */
#if defined(__GNUC__)
#define COPY_NOT_POINTER(src)                                                                      \
    _Static_assert(!__builtin_types_compatible_p(__typeof__(src), __typeof__(&(src)[0])),          \
                   "COPY_STR_ARRAY needs an array, not a pointer")
#else
#define COPY_NOT_POINTER(src) _Static_assert(1, "")
#endif
#define COPY_STR_ARRAY(dst, src)                                                                   \
    do {                                                                                           \
        COPY_NOT_POINTER(src);                                                                     \
        _Static_assert(sizeof(dst) >= sizeof(src), "COPY_STR_ARRAY into a smaller array");         \
        size_t n_ = strnlen(src, sizeof(src) - 1);                                                 \
        memcpy(dst, src, n_);                                                                      \
        dst[n_] = '\0';                                                                            \
    } while (0)

/* The value of the first `key=value` line of text, malloc'd; NULL when absent. spaced: the
 * form Python's pyvenv.cfg takes, blanks allowed around key, '=' and value and not kept;
 * else the line is exactly key=value (cdm's own state files) and the value kept whole. */
char *text_key_value(const char *text, const char *key, bool spaced);

bool str_starts_with(const char *s, const char *prefix);
bool str_ends_with(const char *s, const char *suffix);
bool str_ends_with_icase(const char *s, const char *suffix);
bool str_starts_with_icase(const char *s, const char *prefix);

/* Join with '/' ('\' after a Windows path such as C:\x), never doubling it. Result
 * malloc'd. */
char *path_join(const char *a, const char *b);
/* The last component (points into path). */
const char *path_basename(const char *path);
/* Everything before the last separator, malloc'd ("." when there is none); a root keeps its
 * separator ("/", "C:\\"), so walking upwards ends at the root. */
char *path_dirname(const char *path);
/* Every '/' of path turned into sep, in place ('\\' for a Windows path shown or stored in
 * the system's own form; '/' leaves it); returns path. */
char *path_slashes_to(char *path, char sep);
/* path is dir itself or below it, by their text (give both canonical, or both as given). */
bool path_within(const char *path, const char *dir);
/* A name cdm gave something with its process id in it (<prefix><pid><rest>): the rest after
 * the pid's digits, *pid set; NULL (and *pid 0) when name does not start with prefix and
 * 1 to 19 digits. The one reader of such names: temporary files, a store set aside to be
 * deleted, a trace's folder. */
const char *name_pid(const char *name, const char *prefix, uint64_t *pid);
/* The rest of path below dir (after the separator; "" for dir itself), or NULL when path is
 * not within dir: the one place that decides containment by text. */
const char *path_below(const char *path, const char *dir);

/* Lowercase hex of n bytes into out (2n + 1 chars, NUL-terminated). */
void hex_encode(const unsigned char *bytes, size_t n, char *out);

/* Edit distance between a and b (Damerau's, as git's "did you mean": an insertion, a
 * deletion, a change or a swap of two neighbouring letters is one edit), counted up to
 * limit + 1 (a "did you mean" needs only to know whether it is small). */
size_t str_edit_distance(const char *a, const char *b, size_t limit);
/* The candidate closest to word within a distance of at most a third of word's length
 * (at least 1, at most 3), NULL when none is that close: for "did you mean". */
const char *str_closest(const char *word, const char *const *candidates, size_t n);

/* Format bytes as "1.2 GiB". */
void format_size(char *out, size_t size, unsigned long long bytes);

#include "banned.h"

/* The unsigned number of n bytes (1 to 8) stored little-endian at p: the binary formats cdm
 * reads (zip, PE, a junction's reparse data) are little-endian whatever the host. */
static inline uint64_t load_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

#endif
