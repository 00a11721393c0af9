/* cdm resolve: the version that works here, each candidate with its reasons; and the one
 * line that `cdm link PROJECT auto` and `cdm install auto` print for their choice. */
#include "cli.h"
#include "base/util.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_CUDA, OPT_AVAILABLE, OPT_FRESH };

/* "NVIDIA H200 (9.0), driver 580.159.04": what the choice was made for. */
static void machine_words(const struct cdm_machine_facts *m, struct strbuf *sb)
{
    if (!m->driver_found) {
        sb_addf(sb, "no NVIDIA driver");
        return;
    }
    for (size_t i = 0; i < m->gpu_count; i++)
        sb_addf(sb, "%s%s (%d.%d)", i ? ", " : "", m->gpus[i].name[0] ? m->gpus[i].name : "GPU",
                m->gpus[i].cc_major, m->gpus[i].cc_minor);
    if (!m->gpu_count)
        sb_addf(sb, "no GPU visible");
    if (*m->driver_version)
        sb_addf(sb, ", driver %s", m->driver_version);
    else if (m->driver_cuda)
        sb_addf(sb, ", a driver for CUDA %d.%d", m->driver_cuda / 1000, m->driver_cuda % 1000 / 10);
}

static const char *first_refusal(const struct cdm_candidate *c)
{
    for (size_t r = 0; r < c->reason_count; r++)
        if (c->reasons[r].refuses)
            return c->reasons[r].rule;
    return "";
}

void cli_print_choice_line(struct cli *cli, const struct cdm_choice *ch)
{
    struct strbuf sb = STRBUF_INIT;
    machine_words(&ch->machine, &sb);
    size_t newer = 0;
    for (const struct cdm_candidate *c = ch->candidates; c < ch->chosen; c++)
        newer++;
    cli_info(cli, "auto: %s for %s: the newest of %zu candidate%s that every rule accepts",
             ch->chosen->id, sb_str(&sb), ch->count, ch->count == 1 ? "" : "s");
    for (size_t i = 0; i < newer; i++)
        cli_info(cli, "%s%s (%s)", i ? ", " : "; newer, refused: ", ch->candidates[i].id,
                 first_refusal(&ch->candidates[i]));
    cli_info(cli, "\n");
    sb_free(&sb);
}

static void text_machine(const struct cdm_machine_facts *m)
{
    if (!m->driver_found)
        cli_printf("machine: no NVIDIA driver%s%s\n", *m->error ? ": " : "", m->error);
    else
        cli_printf("machine: driver %s%s",
                   *m->driver_version ? m->driver_version : "of unknown version",
                   m->driver_cuda ? "" : "\n");
    if (m->driver_found && m->driver_cuda)
        cli_printf(", CUDA %d.%d\n", m->driver_cuda / 1000, m->driver_cuda % 1000 / 10);
    for (size_t i = 0; i < m->gpu_count; i++)
        cli_printf("  GPU %d: %s, compute capability %d.%d\n", m->gpus[i].index, m->gpus[i].name,
                   m->gpus[i].cc_major, m->gpus[i].cc_minor);
    if (m->driver_found && !m->gpu_count)
        cli_printf("  no GPU visible%s\n", m->visible_set ? " (CUDA_VISIBLE_DEVICES)" : "");
    if (m->hidden)
        cli_printf("  %zu GPU%s left out by CUDA_VISIBLE_DEVICES=%s\n", m->hidden,
                   m->hidden == 1 ? "" : "s", m->visible_devices);
}

static void print_text(const struct cdm_choice *ch)
{
    text_machine(&ch->machine);
    if (*ch->project)
        cli_printf("project: %s (pin: %s, toolkit: %s)\n", ch->project, *ch->pin ? ch->pin : "none",
                   *ch->toolkit ? ch->toolkit : "none");
    for (size_t i = 0; ch->environments[i]; i++)
        cli_printf("environment: %s\n", ch->environments[i]);
    for (size_t i = 0; i < ch->count; i++) {
        const struct cdm_candidate *c = &ch->candidates[i];
        cli_printf("%-9s %s%s\n", c->accepted ? "accepted" : "refused", c->id,
                   c->installed ? "" : " (offered, not installed)");
        for (size_t r = 0; r < c->reason_count; r++)
            cli_printf("          %s %s: %s\n", c->reasons[r].refuses ? "-" : "*",
                       c->reasons[r].rule, c->reasons[r].text);
    }
    if (ch->chosen)
        cli_printf("chosen: %s\n", ch->chosen->id);
    else
        cli_printf("chosen: none (no candidate is accepted by every rule)\n");
    for (size_t k = 0; k < ch->majors; k++)
        cli_printf("newest for cuDNN %d: %s\n", atoi(ch->per_major[k]->version),
                   ch->per_major[k]->id);
}

static void json_machine(struct json *j, const struct cdm_machine_facts *m)
{
    json_key(j, "machine");
    json_object_begin(j);
    json_kv_bool(j, "driver_found", m->driver_found);
    json_kv_string(j, "driver_version", *m->driver_version ? m->driver_version : NULL);
    char cuda[16];
    snprintf(cuda, sizeof(cuda), "%d.%d", m->driver_cuda / 1000, m->driver_cuda % 1000 / 10);
    json_kv_string(j, "driver_cuda", m->driver_cuda ? cuda : NULL);
    json_kv_string(j, "driver_source", m->driver_source);
    json_kv_string(j, "error", *m->error ? m->error : NULL);
    json_key(j, "gpus");
    json_array_begin(j);
    for (size_t i = 0; i < m->gpu_count; i++) {
        char cc[16];
        snprintf(cc, sizeof(cc), "%d.%d", m->gpus[i].cc_major, m->gpus[i].cc_minor);
        json_object_begin(j);
        json_kv_int(j, "index", m->gpus[i].index);
        json_kv_string(j, "name", m->gpus[i].name);
        json_kv_string(j, "uuid", *m->gpus[i].uuid ? m->gpus[i].uuid : NULL);
        json_kv_string(j, "compute_capability", cc);
        json_object_end(j);
    }
    json_array_end(j);
    json_kv_int(j, "hidden", (long long)m->hidden);
    json_kv_string(j, "cuda_visible_devices", m->visible_set ? m->visible_devices : NULL);
    json_kv_bool(j, "cached", m->cached);
    json_object_end(j);
}

static void json_candidate(struct json *j, const struct cdm_candidate *c)
{
    json_object_begin(j);
    json_kv_string(j, "id", c->id);
    json_kv_string(j, "version", c->version);
    json_kv_int(j, "cuda", c->cuda);
    json_kv_bool(j, "installed", c->installed);
    json_kv_bool(j, "accepted", c->accepted);
    json_key(j, "reasons");
    json_array_begin(j);
    for (size_t r = 0; r < c->reason_count; r++) {
        json_object_begin(j);
        json_kv_string(j, "rule", c->reasons[r].rule);
        json_kv_bool(j, "refuses", c->reasons[r].refuses);
        json_kv_string(j, "text", c->reasons[r].text);
        if (c->reasons[r].wants_major)
            json_kv_int(j, "wants_major", c->reasons[r].wants_major);
        json_object_end(j);
    }
    json_array_end(j);
    json_object_end(j);
}

static void print_json(const struct cdm_choice *ch)
{
    struct json j;
    json_init(&j);
    json_object_begin(&j);
    json_machine(&j, &ch->machine);
    json_kv_string(&j, "project", *ch->project ? ch->project : NULL);
    json_kv_string(&j, "pin", *ch->pin ? ch->pin : NULL);
    json_kv_string(&j, "toolkit", *ch->toolkit ? ch->toolkit : NULL);
    json_key(&j, "environments");
    json_array_begin(&j);
    for (size_t i = 0; ch->environments[i]; i++)
        json_string(&j, ch->environments[i]);
    json_array_end(&j);
    json_key(&j, "candidates");
    json_array_begin(&j);
    for (size_t i = 0; i < ch->count; i++)
        json_candidate(&j, &ch->candidates[i]);
    json_array_end(&j);
    json_kv_string(&j, "chosen", ch->chosen ? ch->chosen->id : NULL);
    json_key(&j, "per_major");
    json_object_begin(&j);
    for (size_t k = 0; k < ch->majors; k++) {
        char major[16];
        snprintf(major, sizeof(major), "%d", atoi(ch->per_major[k]->version));
        json_kv_string(&j, major, ch->per_major[k]->id);
    }
    json_object_end(&j);
    json_object_end(&j);
    json_print(&j, stdout);
}

static int run_resolve(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    struct cdm_choose_request req = {args->pos[0], args->given[OPT_AVAILABLE],
                                     args->given[OPT_FRESH], (int)args->number[OPT_CUDA], false};
    struct cdm_choice ch;
    if (cdm_choose(ctx, &req, &ch) != CDM_OK)
        return cli_fail(cli);
    if (cli->json)
        print_json(&ch);
    else
        print_text(&ch);
    int code = ch.chosen ? EXIT_OK : EXIT_FAIL;
    cdm_choice_free(&ch);
    return code;
}

static const struct cli_arg resolve_args[] = {
    {"PROJECT", CLI_ARG_OPTIONAL, CLI_COMPLETE_DIRS},
    CLI_ARG_END,
};

static const struct cli_option resolve_options[] = {
    [OPT_CUDA] = CLI_OPT_INT("cuda", "N", CLI_COMPLETE_NONE, 1, 99,
                             "a CUDA major version such as 12", "only builds for this CUDA major"),
    [OPT_AVAILABLE] = CLI_OPT_FLAG("available", "also what [fetch] base offers (reads NVIDIA's "
                                                "manifests)"),
    [OPT_FRESH] = CLI_OPT_FLAG("fresh", "ask the driver now, not this boot's record"),
    CLI_OPT_END,
};

const struct cli_command cli_cmd_resolve = {
    .name = "resolve",
    .needs = CLI_NEEDS_STORE_READ,
    .run = run_resolve,
    .summary = "choose the cuDNN that works here, and say why",
    .args = resolve_args,
    .options = resolve_options,
    .description =
        "Judges every install (and with --available every archive [fetch] base offers) "
        "against this machine's GPUs (CUDA_VISIBLE_DEVICES applied) and driver, the "
        "project's CUDA toolkit and pin, and each framework of its Python environments (its "
        ".venv, VIRTUAL_ENV, CONDA_PREFIX, those attached). Each is accepted or refused with "
        "every reason; the newest accepted is chosen, and the newest per cuDNN major is "
        "named. Exits 1 when none is accepted.\n"
        "The GPUs and driver are read from NVML (else the CUDA driver) once per boot.\n"
        "'cdm link PROJECT auto' links the choice.\n"
        "--json prints {\"machine\", \"project\", \"pin\", \"toolkit\", \"environments\", "
        "\"candidates\": [{\"id\", \"accepted\", \"reasons\"}], \"chosen\", \"per_major\"}.\n",
};
