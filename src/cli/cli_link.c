/* Printing what link, unlink, rollback and which report about a project. */
#include "cli.h"

#include <stdio.h>

static void kv_string_or_null(struct json *j, const char *key, const char *s)
{
    json_key(j, key);
    json_string(j, s && *s ? s : NULL);
}

void cli_json_which(struct json *j, const struct cdm_which_info *w)
{
    const struct cdm_project *p = &w->project;
    json_kv_string(j, "project", p->path);
    json_kv_string(j, "link", p->link_path);
    kv_string_or_null(j, "id", p->linked_id);
    kv_string_or_null(j, "version", w->version);
    kv_string_or_null(j, "target", p->target);
    json_key(j, "generation");
    if (w->generation)
        json_int(j, w->generation);
    else
        json_null(j);
    kv_string_or_null(j, "index_id", w->index_id);
    kv_string_or_null(j, "pinned", p->has_pin ? p->pinned_id : NULL);
    json_kv_bool(j, "installed", w->installed);
    kv_string_or_null(j, "install_state",
                      w->installed ? cdm_install_state_name(w->install_state) : NULL);
    json_kv_bool(j, "drift", w->drift);
    kv_string_or_null(j, "toolkit", w->toolkit);
    kv_string_or_null(j, "toolkit_path", w->toolkit_path);
    kv_string_or_null(j, "view", p->view);
    char also[64];
    cdm_pair_view_also(p->view, also, sizeof(also));
    kv_string_or_null(j, "also", also);
    kv_string_or_null(j, "no_link", p->no_link);
    json_kv_bool(j, "gone", w->gone);
}

/* Warnings about a project that the index and the disk disagree on. */
void cli_warn_which(struct cli *cli, const struct cdm_which_info *w)
{
    if (cli->quiet)
        return;
    const struct cdm_project *p = &w->project;
    if (w->gone) {
        cli_eprintf("cdm: warning: project folder '%s' is gone; its history stays, and 'cdm gc' "
                    "drops its record\n",
                    p->path);
        return;
    }
    if (p->link_foreign)
        cli_eprintf("cdm: warning: '%s' is a real folder or file, not a link\n", p->link_path);
    if (w->drift && *p->linked_id)
        cli_eprintf("cdm: warning: '%s' points to %s but the index says %s (generation %lld); was "
                    "it changed by hand? 'cdm link %s %s' records it\n",
                    p->link_path, p->linked_id, *w->index_id ? w->index_id : "no link",
                    w->generation, p->path, p->linked_id);
    else if (w->drift)
        cli_eprintf("cdm: warning: the index says '%s' links to %s (generation %lld) but %s; "
                    "'cdm link %s %s' puts it back\n",
                    p->path, w->index_id, w->generation,
                    p->has_link ? "the link points outside the store" : "there is no link", p->path,
                    w->index_id);
    if (*p->linked_id && !w->installed)
        cli_eprintf("cdm: warning: %s is not installed in this store; run 'cdm install %s'\n",
                    p->linked_id, p->linked_id);
    else if (*p->linked_id && w->install_state == CDM_INSTALL_MISSING)
        cli_eprintf("cdm: warning: the store folder of %s is missing; run 'cdm install --force "
                    "ARCHIVE' to put it back\n",
                    p->linked_id);
    else if (*p->linked_id && w->install_state != CDM_INSTALL_OK)
        cli_eprintf("cdm: warning: another cdm is %s %s now\n",
                    cdm_install_state_name(w->install_state), p->linked_id);
}

void cli_print_which(struct cli *cli, const struct cdm_which_info *w)
{
    const struct cdm_project *p = &w->project;
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        cli_json_which(&j, w);
        json_object_end(&j);
        json_print(&j, stdout);
    } else {
        cli_printf("project     %s%s\n", p->path, w->gone ? " (gone)" : "");
        if (*p->no_link)
            cli_printf("link        none (%s); activation points at the target itself\n",
                       p->no_link);
        else
            cli_printf("link        %s\n", p->link_path);
        cli_printf("target      %s\n", *p->target ? p->target : "-");
        cli_printf("id          %s\n", *p->linked_id ? p->linked_id : "-");
        cli_printf("version     %s\n", *w->version ? w->version : "-");
        if (w->generation)
            cli_printf("generation  %lld%s\n", w->generation,
                       w->drift ? " (the link disagrees)" : "");
        else
            cli_printf("generation  -\n");
        if (p->has_pin)
            cli_printf("pinned      %s\n", p->pinned_id);
        char also[64];
        if (cdm_pair_view_also(p->view, also, sizeof(also)))
            cli_printf("also        %s (a second cuDNN major, through the same link)\n", also);
        if (*w->toolkit)
            cli_printf("toolkit     CUDA %s, '%s'%s\n", w->toolkit, w->toolkit_path,
                       *p->view ? "" : " (no view: the link leads to cuDNN alone)");
    }
    cli_warn_which(cli, w);
}

void cli_print_change(struct cli *cli, const struct cdm_link_result *r, const char *done)
{
    const struct cdm_which_info *w = &r->now;
    char also[64];
    if (cli->json) {
        struct json j;
        json_init(&j);
        json_object_begin(&j);
        cli_json_which(&j, w);
        kv_string_or_null(&j, "previous", r->previous_id);
        json_kv_bool(&j, "changed", r->changed);
        json_kv_bool(&j, "dry_run", r->dry_run);
        json_object_end(&j);
        json_print(&j, stdout);
        return;
    }
    if (r->dry_run && r->changed)
        cli_info(cli, "would change '%s' from %s to %s; changed nothing (--dry-run)\n",
                 w->project.link_path, *r->previous_id ? r->previous_id : "no link",
                 *w->project.linked_id ? w->project.linked_id : "no link");
    else if (*w->project.no_link && *w->project.linked_id)
        cli_info(cli,
                 "%s '%s' -> %s %swithout a link; activation points at '%s' (generation "
                 "%lld)\n",
                 r->changed ? "recorded" : "already", w->project.path, w->project.linked_id,
                 r->changed ? "" : "recorded ", w->project.target, w->generation);
    else if (!r->changed && *w->project.linked_id)
        cli_info(cli, "'%s' -> %s already; nothing to do\n", w->project.link_path,
                 w->project.linked_id);
    else if (!r->changed)
        cli_info(cli, "'%s': no link; nothing to do\n", w->project.link_path);
    else if (*w->project.linked_id && cdm_pair_view_also(w->project.view, also, sizeof(also)))
        cli_info(cli, "%s '%s' -> %s beside %s (generation %lld)\n", done, w->project.link_path,
                 w->project.linked_id, also, w->generation);
    else if (*w->project.linked_id && *w->project.view)
        cli_info(cli, "%s '%s' -> %s with the CUDA %s toolkit (generation %lld)\n", done,
                 w->project.link_path, w->project.linked_id, w->toolkit, w->generation);
    else if (*w->project.linked_id)
        cli_info(cli, "%s '%s' -> %s (generation %lld)\n", done, w->project.link_path,
                 w->project.linked_id, w->generation);
    else
        cli_info(cli, "%s '%s'%s%s (generation %lld)\n", done, w->project.link_path,
                 *r->previous_id ? ", was " : "", r->previous_id, w->generation);
}
