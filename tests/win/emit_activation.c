/*
 * The cmd text of `cdm activate --shell cmd` and `cdm deactivate --shell cmd`, for a
 * project given on the command line: under Wine 8 no junction can be made, so cdm
 * activate finds no project link there. The plan and the text come from the same core
 * calls cmd_activate.c and cmd_deactivate.c make, over this process's environment.
 *
 *   emit_activation activate [PROJECT LINK ID BIN_DIR]
 *   emit_activation deactivate
 *
 * Without them, activate takes the four from CDM_TEST_PROJECT, CDM_TEST_LINK, CDM_TEST_ID
 * and CDM_TEST_BIN_DIR: a cmd command line would expand the '%' of a folder name before
 * this program saw it, and it is the text this program writes that is under test.
 *
 * Windows only: wmain takes the arguments in UTF-16, as cdm.exe does.
 */
#include "engine/activation/env_plan.h"
#include "engine/activation/shell.h"
#include "base/util.h"
#include "platform/win32_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int emit(int argc, char **argv)
{
    const struct shell_platform *pf = shell_host_platform();
    const cdm_shell *sh = cdm_shell_find("cmd");
    struct env_snapshot env = {NULL, 0};
    struct cdm_env_plan plan = {.n = 0};
    bool listable = true;
    if (argc == 6 && !strcmp(argv[1], "activate")) {
        const struct activation_target t = {
            .id = argv[4], .project = argv[2], .link_path = argv[3], .lib_dir = argv[5]};
        listable = activation_plan(pf, env_snapshot_get, &env, &t, &plan);
    } else if (argc == 2 && !strcmp(argv[1], "activate")) {
        /* its own snapshot: the plan below reads the environment as it is */
        struct env_snapshot given = {NULL, 0};
        const struct activation_target t = {.id = env_snapshot_get(&given, "CDM_TEST_ID"),
                                            .project = env_snapshot_get(&given, "CDM_TEST_PROJECT"),
                                            .link_path = env_snapshot_get(&given, "CDM_TEST_LINK"),
                                            .lib_dir =
                                                env_snapshot_get(&given, "CDM_TEST_BIN_DIR")};
        if (!t.id || !t.project || !t.link_path || !t.lib_dir) {
            fprintf(stderr, "emit_activation: set CDM_TEST_PROJECT, CDM_TEST_LINK, "
                            "CDM_TEST_ID and CDM_TEST_BIN_DIR\n");
            env_snapshot_free(&given);
            return 2;
        }
        listable = activation_plan(pf, env_snapshot_get, &env, &t, &plan);
        env_snapshot_free(&given);
    } else if (argc == 2 && !strcmp(argv[1], "deactivate")) {
        deactivation_plan(pf, env_snapshot_get, &env, &plan);
    } else {
        fprintf(stderr, "usage: emit_activation activate [PROJECT LINK ID BIN_DIR]\n"
                        "       emit_activation deactivate\n");
        return 2;
    }
    env_snapshot_free(&env);
    if (!listable) { /* cdm activate's case too, with the same test */
        fprintf(stderr, "emit_activation: the project's path entry holds '%c'\n", pf->list_sep);
        return 1;
    }
    struct strbuf text = STRBUF_INIT;
    const char *bad = shell_render(sh, pf, &plan, &text);
    int rc = 0;
    if (bad) {
        fprintf(stderr, "emit_activation: cmd cannot set %s\n", bad);
        rc = 1;
    } else {
        fputs(sb_str(&text), stdout);
    }
    sb_free(&text);
    cdm_env_plan_free(&plan);
    if (fflush(stdout) || ferror(stdout))
        rc = 1;
    return rc;
}

int wmain(int argc, wchar_t **wargv)
{
    char **argv = xcalloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++)
        argv[i] = win_narrow(wargv[i]);
    int rc = emit(argc, argv);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    free(argv);
    return rc;
}
