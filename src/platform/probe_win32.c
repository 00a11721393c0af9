/* Asking a cuDNN library on Windows: in cdm's own process (probe.h). */
#include "fs.h"
#include "probe.h"

static void add_line(void *arg, const char *line)
{
    sb_add(arg, line);
    sb_addc(arg, '\n');
}

void cudnn_probe(const char *path, unsigned timeout_ms, struct cudnn_probe *out)
{
    (void)timeout_ms; /* no child to wait for */
    struct strbuf lines = STRBUF_INIT;
    probe_ask(path, add_line, &lines);
    probe_parse(sb_str(&lines), out);
    sb_free(&lines);
}
