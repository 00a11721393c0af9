/* Walking and freeing a loader search order (shared by both platforms' loader files). */
#include "fs.h"
#include "loader.h"

#include <stdlib.h>
#include <string.h>

void search_free(struct search *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->steps[i].dir);
    free(s->steps);
    ldcache_free(&s->cache);
    memset(s, 0, sizeof(*s));
}

static bool same_machine(const char *path, const struct bin_imports *want)
{
    if (!want || want->format != BIN_ELF)
        return true; /* Windows skips wrong-machine DLLs too, but reports them; keep it simple */
    FILE *f = loader_fopen(path);
    if (!f)
        return false;
    struct bin_imports im;
    const char *why = elf_read_imports(f, &im);
    fclose(f);
    bool same = !why && im.machine == want->machine && im.bits == want->bits;
    if (!why)
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
