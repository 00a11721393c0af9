/* The doctor's shadowing layer: other cuDNN copies that the loader's search order reaches
 * before the project's own folder (the stale cudnn64_7.dll in an Anaconda folder). */
#include "cudnn_lib.h"
#include "doctor.h"
#include "platform/fs.h"

#include <stdlib.h>
#include <string.h>

/* One copy of cuDNN into a list: 'path' (cuDNN VERSION) via ORIGIN. */
static void add_copy(struct strbuf *list, const char *path, const char *origin)
{
    char ver[64];
    cudnn_version_of_file(path, ver, sizeof(ver));
    sb_addf(list, "%s'%s'%s%s%s via %s", list->len ? ", " : "", path, *ver ? " (cuDNN " : "", ver,
            *ver ? ")" : "", origin);
}

/* Every copy of the install's libraries found ahead of step own (the project's folder)
 * into before; how many. */
static size_t copies_before(const struct doctor *d, const struct search *s, size_t own,
                            struct strbuf *before)
{
    size_t n = 0;
    for (char **p = d->libs; p && *p; p++) {
        char *own_path = path_join(d->lib_dir, *p);
        size_t step = 0;
        char *hit = search_find(s, *p, NULL, 0, &step);
        while (hit && step < own) {
            if (!fs_same_path(hit, own_path)) {
                add_copy(before, hit, s->steps[step].origin);
                n++;
            }
            free(hit);
            hit = step + 1 < s->count ? search_find(s, *p, NULL, step + 1, &step) : NULL;
        }
        free(hit);
        free(own_path);
    }
    return n;
}

/* cuDNN of another major ahead of step own: what a program built for it loads. */
static void other_majors_before(const struct doctor *d, const struct search *s, size_t own,
                                struct strbuf *other)
{
    for (size_t i = 0; i < own && i < s->count; i++) {
        if (!s->steps[i].dir)
            continue;
        for (int m = 7; m <= 10; m++) {
            if (m == d->major)
                continue;
            char *file = cudnn_lib_name(d->windows, m);
            char *path = path_join(s->steps[i].dir, file);
            if (fs_kind(path) != FS_NONE)
                add_copy(other, path, s->steps[i].origin);
            free(path);
            free(file);
        }
    }
}

static void check_shadowing(struct doctor *d)
{
    if (!doctor_need_install(d, "shadowing"))
        return;
    bool win = d->windows;
    struct search s;
    loader_search_order(NULL, NULL, &s);
    /* Is the project's folder on the search path at all, and at which step? */
    size_t own = s.count;
    for (size_t i = 0; i < s.count && own == s.count; i++)
        if (s.steps[i].dir && fs_same_path(s.steps[i].dir, d->lib_dir))
            own = i;
    struct strbuf before = STRBUF_INIT, other = STRBUF_INIT;
    size_t nbefore = copies_before(d, &s, own, &before);
    other_majors_before(d, &s, own, &other);
    const char *var = win ? "PATH" : "LD_LIBRARY_PATH";
    char *activate = xasprintf("activate the project (%s) so that '%s' comes first on %s",
                               win ? "cdm activate --shell pwsh | Out-String | Invoke-Expression"
                                   : "eval \"$(cdm activate)\"",
                               d->lib_dir, var);
    if (nbefore && own < s.count) {
        char *fix =
            xasprintf("remove those folders from %s, or put '%s' before them", var, d->lib_dir);
        doctor_add(d, "shadowing", CDM_CHECK_FAIL, fix,
                   "found before the project's own library: %s", sb_str(&before));
        free(fix);
    } else if (nbefore) {
        doctor_add(d, "shadowing", CDM_CHECK_WARN, activate,
                   "'%s' is not on %s, so programs load another cuDNN: %s", d->lib_dir, var,
                   sb_str(&before));
    } else if (other.len) {
        doctor_add(d, "shadowing", CDM_CHECK_WARN, "remove stale cuDNN copies from those folders",
                   "other cuDNN versions come first for programs built against them: %s",
                   sb_str(&other));
    } else if (own == s.count) {
        doctor_add(d, "shadowing", CDM_CHECK_OK, NULL,
                   "no other cuDNN on the search path; '%s' is not on %s (activate the project "
                   "to use it)",
                   d->lib_dir, var);
    } else {
        doctor_add(d, "shadowing", CDM_CHECK_OK, NULL, "no other cuDNN comes before '%s' (%s)",
                   d->lib_dir, s.steps[own].origin);
    }
    free(activate);
    sb_free(&before);
    sb_free(&other);
    search_free(&s);
}

static const doctor_check_fn checks[] = {check_shadowing};

const struct doctor_layer doctor_shadow_layer = {"shadowing", checks, CDM_ARRAY_LEN(checks)};
