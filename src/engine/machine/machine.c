/* The machine's driver and GPUs: asked, kept for the boot, and narrowed to the GPUs
 * CUDA_VISIBLE_DEVICES leaves this process. */
#include "machine.h"
#include "platform/fs.h"
#include "userstate.h"

#include <stdlib.h>
#include <string.h>

#define RECORD_NAME  "machine.facts"
#define RECORD_FIRST "cdm machine facts 1"
#define RECORD_MAX   (64 * 1024)

const struct driver_gpu *machine_gpu(const struct machine *m, size_t i)
{
    return &m->drv.gpus[m->visible[i]];
}

/* The entry of CUDA_VISIBLE_DEVICES at tok (len bytes): an index into the driver's list,
 * or a prefix of one GPU's UUID ("GPU-5f1c"); false where CUDA stops. */
static bool entry_index(const struct machine *m, const char *tok, size_t len, size_t *out)
{
    if (!len)
        return false;
    if (strspn(tok, "0123456789") >= len) {
        size_t n = 0;
        for (size_t i = 0; i < len && n <= DRIVER_MAX_GPUS; i++)
            n = n * 10 + (size_t)(tok[i] - '0');
        *out = n;
        return n < m->drv.gpu_count;
    }
    if (len < 5 || strncmp(tok, "GPU-", 4))
        return false; /* MIG instances and anything else: cdm does not model them */
    size_t found = 0;
    for (size_t i = 0; i < m->drv.gpu_count; i++)
        if (!strncmp(m->drv.gpus[i].uuid, tok, len) && ++found)
            *out = i;
    return found == 1;
}

void machine_apply_visible(struct machine *m, const char *visible)
{
    m->visible_count = 0;
    m->visible_cut = false;
    m->visible_set = visible != NULL;
    if (!visible || !copy_str(m->visible_devices, sizeof(m->visible_devices), visible))
        m->visible_devices[0] = '\0';
    if (!visible || m->drv.gpus_filtered) {
        for (size_t i = 0; i < m->drv.gpu_count; i++)
            m->visible[m->visible_count++] = i;
        return;
    }
    const char *p = visible;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, ","), idx = 0;
        while (len && p[len - 1] == ' ')
            len--;
        bool ok = entry_index(m, p, len, &idx);
        for (size_t i = 0; ok && i < m->visible_count; i++)
            ok = m->visible[i] != idx;
        if (!ok) {
            m->visible_cut = true;
            return;
        }
        m->visible[m->visible_count++] = idx;
        p += strcspn(p, ",");
        if (*p == ',')
            p++;
    }
}

void machine_describe_gpus(const struct machine *m, struct strbuf *out)
{
    for (size_t i = 0; i < m->visible_count; i++) {
        const struct driver_gpu *g = machine_gpu(m, i);
        sb_addf(out, "%s%s (compute capability %d.%d)", i ? "; " : "",
                g->name[0] ? g->name : "an NVIDIA GPU", g->cc_major, g->cc_minor);
    }
}

/* What else than the boot the facts depend on: where the driver is looked for (tests) and
 * how CUDA numbers the GPUs. */
static char *record_key(void)
{
    static const char *const vars[] = {"CDM_DRIVER_LIB_PATH", "CUDA_VISIBLE_DEVICES",
                                       "CUDA_DEVICE_ORDER"};
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < CDM_ARRAY_LEN(vars); i++) {
        char *v = fs_getenv(vars[i]);
        sb_addf(&sb, "%s%s%s", i ? "|" : "", v ? "1:" : "0:", v ? v : "");
        free(v);
    }
    return sb_detach(&sb);
}

static bool one_line(const char *s)
{
    return !strpbrk(s, "\r\n");
}

static char *record_text(const char *boot, const char *key, const struct driver_info *d)
{
    if (!one_line(key) || !one_line(d->source) || !one_line(d->error) || !one_line(d->version))
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "%s\nboot=%s\nkey=%s\nfound=%d\nversion=%s\ncuda=%d\nsource=%s\nerror=%s\n",
            RECORD_FIRST, boot, key, d->found, d->version, d->cuda_version, d->source, d->error);
    sb_addf(&sb, "gpus_asked=%d\ngpus_filtered=%d\ngpu_error=%s\n", d->gpus_asked, d->gpus_filtered,
            one_line(d->gpu_error) ? d->gpu_error : "");
    for (size_t i = 0; i < d->gpu_count; i++) {
        const struct driver_gpu *g = &d->gpus[i];
        if (strchr(g->uuid, '|')) {
            sb_free(&sb);
            return NULL;
        }
        sb_addf(&sb, "gpu=%d.%d|%s|%s\n", g->cc_major, g->cc_minor, g->uuid, g->name);
    }
    return sb_detach(&sb);
}

static bool read_gpu(const char *v, struct driver_info *d)
{
    struct driver_gpu *g = &d->gpus[d->gpu_count];
    const char *bar = strchr(v, '|'), *bar2 = bar ? strchr(bar + 1, '|') : NULL;
    if (d->gpu_count >= DRIVER_MAX_GPUS || !bar2 ||
        sscanf(v, "%d.%d", &g->cc_major, &g->cc_minor) != 2 ||
        (size_t)(bar2 - bar - 1) >= sizeof(g->uuid) ||
        !copy_str(g->name, sizeof(g->name), bar2 + 1))
        return false;
    memcpy(g->uuid, bar + 1, (size_t)(bar2 - bar - 1));
    g->uuid[bar2 - bar - 1] = '\0';
    d->gpu_count++;
    return true;
}

/* One name=value line of the record into d; false for one cdm did not write. */
static bool read_field(const char *name, const char *v, struct driver_info *d)
{
    const struct {
        const char *name;
        bool *flag;
    } flags[] = {
        {"found", &d->found}, {"gpus_asked", &d->gpus_asked}, {"gpus_filtered", &d->gpus_filtered}};
    const struct {
        const char *name;
        char *text;
        size_t size;
    } texts[] = {{"version", d->version, sizeof(d->version)},
                 {"source", d->source, sizeof(d->source)},
                 {"error", d->error, sizeof(d->error)},
                 {"gpu_error", d->gpu_error, sizeof(d->gpu_error)}};
    for (size_t i = 0; i < CDM_ARRAY_LEN(flags); i++)
        if (!strcmp(name, flags[i].name)) {
            *flags[i].flag = !strcmp(v, "1");
            return *flags[i].flag || !strcmp(v, "0");
        }
    for (size_t i = 0; i < CDM_ARRAY_LEN(texts); i++)
        if (!strcmp(name, texts[i].name))
            return copy_str(texts[i].text, texts[i].size, v);
    if (!strcmp(name, "cuda"))
        return (d->cuda_version = atoi(v)) >= 0;
    return !strcmp(name, "gpu") && read_gpu(v, d);
}

/* This boot's record, when it is one and for the same key; false: ask the driver. */
static bool record_read(cdm_ctx *ctx, const char *boot, const char *key, struct driver_info *d)
{
    struct strbuf text = STRBUF_INIT;
    char *path = userstate_path(ctx, RECORD_NAME);
    struct saved_error saved = error_save(ctx);
    bool ok = fs_kind(path) == FS_FILE && fs_read_regular(ctx, path, RECORD_MAX, &text) == CDM_OK;
    (void)error_restore(ctx, &saved);
    free(path);
    ok = ok && text.buf && str_starts_with(text.buf, RECORD_FIRST "\n");
    bool boot_seen = false, key_seen = false;
    for (char *line = ok ? strchr(text.buf, '\n') + 1 : NULL; ok && *line;) {
        char *end = strchr(line, '\n'), *eq = strchr(line, '=');
        if (!end || !eq || eq > end)
            ok = false;
        else {
            *end = *eq = '\0';
            if (!strcmp(line, "boot"))
                ok = (boot_seen = !strcmp(eq + 1, boot));
            else if (!strcmp(line, "key"))
                ok = (key_seen = !strcmp(eq + 1, key));
            else
                ok = read_field(line, eq + 1, d);
            line = end + 1;
        }
    }
    sb_free(&text);
    return ok && boot_seen && key_seen;
}

/* NVML numbers GPUs by PCI bus, CUDA by default fastest first: where CUDA_VISIBLE_DEVICES
 * names GPUs by index and they differ, only the CUDA driver knows which are meant. */
static bool order_matters(const struct driver_info *d, const char *visible)
{
    char *order = fs_getenv("CUDA_DEVICE_ORDER");
    bool pci = order && !strcmp(order, "PCI_BUS_ID");
    free(order);
    if (!visible || pci || d->gpus_filtered || !strpbrk(visible, "0123456789"))
        return false;
    for (size_t i = 1; i < d->gpu_count; i++)
        if (strcmp(d->gpus[i].name, d->gpus[0].name) ||
            d->gpus[i].cc_major * 10 + d->gpus[i].cc_minor !=
                d->gpus[0].cc_major * 10 + d->gpus[0].cc_minor)
            return true;
    return false;
}

void machine_facts(cdm_ctx *ctx, bool fresh, struct machine *out)
{
    memset(out, 0, sizeof(*out));
    char *visible = fs_getenv("CUDA_VISIBLE_DEVICES");
    char *key = record_key();
    char boot[128];
    bool have_boot = loader_boot_id(boot, sizeof(boot)) && one_line(boot);
    if (!fresh && have_boot && record_read(ctx, boot, key, &out->drv)) {
        out->cached = true;
    } else {
        memset(&out->drv, 0, sizeof(out->drv));
        loader_driver(&out->drv);
        if (order_matters(&out->drv, visible))
            loader_cuda_gpus(&out->drv);
        char *text = have_boot ? record_text(boot, key, &out->drv) : NULL;
        char *dir = userstate_dir(ctx);
        /* a record that cannot be written is asked for again next time: no error */
        struct saved_error saved = error_save(ctx);
        if (text && fs_mkdir_p(ctx, dir) == CDM_OK) {
            char *path = path_join(dir, RECORD_NAME);
            if (fs_kind(path) == FS_NONE || fs_kind(path) == FS_FILE)
                (void)fs_atomic_write_whole(ctx, path, text, strlen(text));
            free(path);
        }
        (void)error_restore(ctx, &saved);
        free(dir);
        free(text);
    }
    machine_apply_visible(out, visible);
    free(visible);
    free(key);
}
