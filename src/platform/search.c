/* The loader's search order, built, walked and freed the same way on both platforms (the
 * platform's loader file says which steps it has, loader.h). */
#include "fs.h"
#include "loader.h"

#include <stdlib.h>
#include <string.h>

void search_add(struct search *s, const char *dir, const char *origin)
{
    ALLOC_GROW(s->steps, s->count);
    s->steps[s->count].dir = dir ? xstrdup(dir) : NULL;
    s->steps[s->count].origin = origin;
    s->count++;
}

/* One folder of a list, with $ORIGIN expanded when origin_dir is given. */
static void add_folder(struct search *s, const char *dir, size_t n, const char *origin_dir,
                       const char *origin)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n;) {
        const char *q = dir + i;
        if (origin_dir && n - i >= 7 && !strncmp(q, "$ORIGIN", 7)) {
            sb_add(&sb, origin_dir);
            i += 7;
        } else if (origin_dir && n - i >= 9 && !strncmp(q, "${ORIGIN}", 9)) {
            sb_add(&sb, origin_dir);
            i += 9;
        } else {
            sb_addc(&sb, *q);
            i++;
        }
    }
    search_add(s, sb_str(&sb), origin);
    sb_free(&sb);
}

void search_add_list(struct search *s, const char *list, char sep, const char *origin_dir,
                     const char *origin)
{
    if (!list)
        return;
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, sep);
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n)
            add_folder(s, p, n, origin_dir, origin);
        if (!end)
            break;
        p = end + 1;
    }
}

void search_free(struct search *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->steps[i].dir);
    free(s->steps);
    ldcache_free(&s->cache);
    memset(s, 0, sizeof(*s));
}

/* The reader the file's magic names (binfmt.h); here rather than in bin_common.c,
 * which the readers use: the dispatcher above them keeps the files without a cycle. */
const char *bin_read_imports(FILE *f, struct bin_imports *out)
{
    switch (bin_detect(f)) {
    case BIN_ELF:
        return elf_read_imports(f, out);
    case BIN_PE:
        return pe_read_imports(f, out);
    default:
        memset(out, 0, sizeof(*out));
        return "neither an ELF nor a PE file";
    }
}

const char *loader_read_imports(const char *path, struct bin_imports *out)
{
    FILE *f = fs_fopen_read(path);
    if (!f)
        return "cannot open it as a regular file";
    const char *why = bin_read_imports(f, out);
    fclose(f);
    return why;
}

static bool same_machine(const char *path, const struct bin_imports *want)
{
    if (!want || want->format != BIN_ELF)
        return true; /* Windows skips wrong-machine DLLs too, but reports them; keep it simple */
    struct bin_imports im;
    const char *why = loader_read_imports(path, &im);
    if (why)
        return false;
    bool same = im.format == BIN_ELF && im.machine == want->machine && im.bits == want->bits;
    bin_imports_free(&im);
    return same;
}

char *search_find(const struct search *s, const char *name, const struct bin_imports *im,
                  size_t start, size_t *step_out)
{
    for (size_t i = start; i < s->count; i++) {
        const struct search_step *st = &s->steps[i];
        if (st->dir) {
            char *path = path_join(st->dir, name);
            if (fs_kind(path) != FS_NONE && same_machine(path, im)) {
                if (step_out)
                    *step_out = i;
                return path;
            }
            free(path);
            continue;
        }
        for (size_t e = 0; e < s->cache.count; e++) {
            const struct ldcache_entry *c = &s->cache.entries[e];
            if (!strcmp(c->name, name) && fs_kind(c->path) != FS_NONE &&
                same_machine(c->path, im)) {
                if (step_out)
                    *step_out = i;
                return xstrdup(c->path);
            }
        }
    }
    return NULL;
}
