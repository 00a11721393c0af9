/* The INI reader of inifile.h: inih, fed by a reader that refuses a line above
 * INIFILE_MAX_LINE (inih would cut it short and read on). */
#include "inifile.h"
#include "base/util.h"
#include <ini.h>
#include <string.h>

struct ini_source {
    FILE *f;
    size_t line_len; /* bytes of the current line read so far */
    int line;        /* the current line's number */
    int too_long;    /* the number of a line above INIFILE_MAX_LINE, or 0 */
    inifile_fn fn;
    void *arg;
    int fn_rc; /* fn's positive return, which stops the reading */
};

/* inih's reader (fgets' contract), counting lines and their length. */
static char *read_part(char *buf, int size, void *stream)
{
    struct ini_source *src = stream;
    if (src->too_long || !fgets(buf, size, src->f))
        return NULL;
    if (src->line_len == 0)
        src->line++;
    size_t n = strlen(buf);
    src->line_len += n;
    if (src->line_len > INIFILE_MAX_LINE + 1) { /* + 1: the line break */
        src->too_long = src->line;
        return NULL;
    }
    if (n && buf[n - 1] == '\n')
        src->line_len = 0;
    return buf;
}

static int on_value(void *user, const char *section, const char *name, const char *value, int line)
{
    struct ini_source *src = user;
    src->fn_rc = src->fn(src->arg, section, name, value, line);
    return src->fn_rc == 0; /* inih goes on while the handler returns non-zero */
}

int inifile_read(FILE *f, inifile_fn fn, void *arg, int *bad_line)
{
    struct ini_source src = {.f = f, .fn = fn, .arg = arg};
    int got = ini_parse_stream(read_part, &src, on_value, &src);
    if (src.fn_rc > 0)
        return src.fn_rc;
    if (got == -2 || ferror(f)) /* -2: inih could not allocate its line */
        return -2;
    if (src.too_long) {
        *bad_line = src.too_long;
        return -1;
    }
    if (got != 0) {
        *bad_line = got;
        return -1;
    }
    return 0;
}
