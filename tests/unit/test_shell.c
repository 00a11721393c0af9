/* Shell emitters and activation plans: golden text per shell and case. */
#include "engine/activation/env_plan.h"
#include "engine/activation/shell.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* A fake environment: NAME=value strings; a name without '=' is absent. */
struct env {
    char *vars[64];
    size_t n;
};

static const char *env_get(void *arg, const char *name)
{
    struct env *e = arg;
    size_t len = strlen(name);
    for (size_t i = 0; i < e->n; i++)
        if (!strncmp(e->vars[i], name, len) && e->vars[i][len] == '=')
            return e->vars[i] + len + 1;
    return NULL;
}

static void env_apply(struct env *e, const struct shell_platform *pf, const struct cdm_env_plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct cdm_env_change *c = &p->v[i];
        size_t len = strlen(c->name);
        for (size_t k = 0; k < e->n; k++) {
            if (!strncmp(e->vars[k], c->name, len) && e->vars[k][len] == '=') {
                free(e->vars[k]);
                e->vars[k] = e->vars[--e->n];
                break;
            }
        }
        if (!c->value)
            continue;
        if (c->first && *c->value)
            e->vars[e->n++] = xasprintf("%s=%s%c%s", c->name, c->first, pf->list_sep, c->value);
        else
            e->vars[e->n++] = xasprintf("%s=%s", c->name, c->first ? c->first : c->value);
    }
}

static void env_free(struct env *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->vars[i]);
    e->n = 0;
}

static char *render(const char *shell, const struct shell_platform *pf,
                    const struct cdm_env_plan *p)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "");
    const char *bad = shell_render(cdm_shell_find(shell), pf, p, &sb);
    if (bad) {
        sb_free(&sb);
        return xasprintf("cannot: %s", bad);
    }
    return sb_detach(&sb);
}

static char *quoted(const char *shell, const char *value)
{
    struct strbuf sb = STRBUF_INIT;
    shell_quote(cdm_shell_find(shell), &sb, value);
    return sb_detach(&sb);
}

#define AWKWARD "/p/a b'c\"d$e%f^g&h`i;j\\k\xc3\xa9\xe2\x80\x99z"

static void test_quoting(void)
{
    char *q;
    is_str(q = quoted("sh", AWKWARD), "'/p/a b'\\''c\"d$e%f^g&h`i;j\\k\xc3\xa9\xe2\x80\x99z'",
           "sh: single quotes, a quote as '\\''");
    free(q);
    is_str(q = quoted("fish", AWKWARD), "'/p/a b\\'c\"d$e%f^g&h`i;j\\\\k\xc3\xa9\xe2\x80\x99z'",
           "fish: \\' and \\\\ inside single quotes");
    free(q);
    /* ASCII only, whatever the console's code page: non-ASCII as [char] */
    is_str(q = quoted("pwsh", AWKWARD),
           "('' + '/p/a b''c\"d$e%f^g&h`i;j\\k' + [char]0x00E9 + [char]0x2019 + 'z')",
           "pwsh: '' inside, and é and a typographic quote as [char] outside the literal");
    free(q);
    is_str(q = quoted("pwsh", "C:\\\xd0\x98\xd0\xb2\\\xe6\x97\xa5\xf0\x9f\x98\x80"),
           "('' + 'C:\\' + [char]0x0418 + [char]0x0432 + '\\' + [char]0x65E5 + [char]0xD83D + "
           "[char]0xDE00)",
           "pwsh: Cyrillic, CJK, and a character outside the BMP as two UTF-16 halves");
    free(q);
    is_str(q = quoted("pwsh", "a\xff"
                              "b"),
           "('' + 'a' + [char]0xFFFD + 'b')", "pwsh: a byte of no UTF-8 sequence is U+FFFD");
    free(q);
    is_str(q = quoted("powershell", "C:\\Program Files\\x"), "'C:\\Program Files\\x'",
           "powershell: backslashes stay");
    free(q);
}

static void test_names(void)
{
    ok(cdm_shell_find("bash") && !strcmp(cdm_shell_name(cdm_shell_find("/usr/bin/bash")), "bash"),
       "a path names its shell");
    is_str(cdm_shell_name(cdm_shell_find("dash")), "sh", "dash reads sh syntax");
    is_str(cdm_shell_name(cdm_shell_find("PWSH.EXE")), "pwsh", "pwsh.exe, any case");
    is_str(cdm_shell_name(cdm_shell_find("C:\\Windows\\System32\\cmd.exe")), "cmd",
           "cmd.exe by path");
    is_str(cdm_shell_name(cdm_shell_find("-zsh")), "zsh", "a login shell's -zsh");
    ok(cdm_shell_find("tcsh") == NULL, "tcsh is not a shell cdm writes for");
    ok(cdm_shell_find("") == NULL && cdm_shell_find(NULL) == NULL, "no name, no shell");
}

static const struct activation_target proj_a = {
    .id = "9.1.0.70-cuda12", .project = "/w/a", .link_path = "/w/a/cuda_link", .lib_dir = "lib"};
static const struct activation_target proj_b = {
    .id = "8.2.1.32-cuda11", .project = "/w/b", .link_path = "/w/b/cuda_link", .lib_dir = "lib64"};

static void test_posix_cycle(void)
{
    const struct shell_platform *pf = &shell_platform_posix;
    struct env e = {{xstrdup("LD_LIBRARY_PATH=/x::/y"), xstrdup("CUDNN_PATH=")}, 2};
    struct cdm_env_plan p;
    activation_plan(pf, env_get, &e, &proj_a, &p);
    char *text = render("bash", pf, &p);
    is_str(text,
           "export CDM_SAVED_CUDA_PATH='unset'\n"
           "export CDM_SAVED_CUDNN_PATH='set:'\n"
           "export CDM_SAVED_LD_LIBRARY_PATH='set:/x::/y'\n"
           "export CUDA_PATH='/w/a/cuda_link'\n"
           "export CUDNN_PATH='/w/a/cuda_link'\n"
           "export LD_LIBRARY_PATH='/w/a/cuda_link/lib:/x::/y'\n"
           "export CDM_PATH_ENTRY='/w/a/cuda_link/lib'\n"
           "export CDM_PROJECT='/w/a'\n"
           "export CDM_ACTIVE='9.1.0.70-cuda12'\n"
           "export CDM_SAVED_CUDNN_ROOT='unset'\n"
           "export CUDNN_ROOT='/w/a/cuda_link'\n"
           "export CDM_SAVED_CUDNN_ROOT_DIR='unset'\n"
           "export CUDNN_ROOT_DIR='/w/a/cuda_link'\n",
           "bash: first activation saves unset, empty and set values");
    free(text);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);

    activation_plan(pf, env_get, &e, &proj_a, &p);
    is_int(p.n, 8, "activating again saves nothing more");
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    is_str(env_get(&e, "LD_LIBRARY_PATH"), "/w/a/cuda_link/lib:/x::/y", "and adds no duplicate");

    activation_plan(pf, env_get, &e, &proj_b, &p);
    text = render("fish", pf, &p);
    is_str(text,
           "set -gx CUDA_PATH '/w/b/cuda_link'\n"
           "set -gx CUDNN_PATH '/w/b/cuda_link'\n"
           "set -gx LD_LIBRARY_PATH '/w/b/cuda_link/lib64:/x::/y'\n"
           "set -gx CDM_PATH_ENTRY '/w/b/cuda_link/lib64'\n"
           "set -gx CDM_PROJECT '/w/b'\n"
           "set -gx CDM_ACTIVE '8.2.1.32-cuda11'\n"
           "set -gx CUDNN_ROOT '/w/b/cuda_link'\n"
           "set -gx CUDNN_ROOT_DIR '/w/b/cuda_link'\n",
           "fish: another project replaces the old entry");
    free(text);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);

    deactivation_plan(pf, env_get, &e, &p);
    text = render("zsh", pf, &p);
    is_str(text,
           "unset CUDA_PATH\n"
           "export CUDNN_PATH=''\n"
           "export LD_LIBRARY_PATH='/x::/y'\n"
           "unset CDM_SAVED_CUDA_PATH\n"
           "unset CDM_SAVED_CUDNN_PATH\n"
           "unset CDM_SAVED_LD_LIBRARY_PATH\n"
           "unset CDM_PATH_ENTRY\n"
           "unset CDM_PROJECT\n"
           "unset CDM_ACTIVE\n"
           "unset CUDNN_ROOT\n"
           "unset CDM_SAVED_CUDNN_ROOT\n"
           "unset CUDNN_ROOT_DIR\n"
           "unset CDM_SAVED_CUDNN_ROOT_DIR\n",
           "zsh: deactivation restores unset, empty and the list byte for byte");
    free(text);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    is_int(e.n, 2, "the environment has its two variables again");
    deactivation_plan(pf, env_get, &e, &p);
    is_int(p.n, 0, "deactivating twice does nothing");
    env_free(&e);
}

static void test_unset_list_and_user_changes(void)
{
    const struct shell_platform *pf = &shell_platform_posix;
    struct env e = {{0}, 0};
    struct cdm_env_plan p;
    activation_plan(pf, env_get, &e, &proj_a, &p);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    is_str(env_get(&e, "LD_LIBRARY_PATH"), "/w/a/cuda_link/lib",
           "an unset list becomes the entry alone, no empty item");
    deactivation_plan(pf, env_get, &e, &p);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    ok(env_get(&e, "LD_LIBRARY_PATH") == NULL, "and comes back unset");

    activation_plan(pf, env_get, &e, &proj_a, &p);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    /* The user adds a folder after activation: deactivation keeps it. */
    for (size_t i = 0; i < e.n; i++)
        if (!strncmp(e.vars[i], "LD_LIBRARY_PATH=", 16)) {
            free(e.vars[i]);
            e.vars[i] = xstrdup("LD_LIBRARY_PATH=/mine:/w/a/cuda_link/lib");
        }
    deactivation_plan(pf, env_get, &e, &p);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    is_str(env_get(&e, "LD_LIBRARY_PATH"), "/mine", "a folder added later stays");
    env_free(&e);
}

static void test_windows(void)
{
    const struct shell_platform *pf = &shell_platform_windows;
    const struct activation_target t = {.id = "8.8.0.121-cuda11",
                                        .project = "C:/w/it's 100%",
                                        .link_path = "C:/w/it's 100%/cuda_link",
                                        .lib_dir = "bin/x64"};
    struct env e = {{xstrdup("PATH=C:\\Windows;C:\\W\\IT'S 100%\\CUDA_LINK\\BIN\\X64\\")}, 1};
    struct cdm_env_plan p;
    activation_plan(pf, env_get, &e, &t, &p);
    char *text = render("pwsh", pf, &p);
    is_str(text,
           "$env:CDM_SAVED_CUDA_PATH = 'unset'\n"
           "$env:CDM_SAVED_CUDNN_PATH = 'unset'\n"
           "$env:CDM_SAVED_PATH = 'set:C:\\Windows;C:\\W\\IT''S 100%\\CUDA_LINK\\BIN\\X64\\'\n"
           "$env:CUDA_PATH = 'C:\\w\\it''s 100%\\cuda_link'\n"
           "$env:CUDNN_PATH = 'C:\\w\\it''s 100%\\cuda_link'\n"
           "$env:PATH = 'C:\\w\\it''s 100%\\cuda_link\\bin\\x64' + [IO.Path]::PathSeparator + "
           "'C:\\Windows'\n"
           "$env:CDM_PATH_ENTRY = 'C:\\w\\it''s 100%\\cuda_link\\bin\\x64'\n"
           "$env:CDM_PROJECT = 'C:\\w\\it''s 100%'\n"
           "$env:CDM_ACTIVE = '8.8.0.121-cuda11'\n"
           "$env:CDM_SAVED_CUDNN_ROOT = 'unset'\n"
           "$env:CUDNN_ROOT = 'C:\\w\\it''s 100%\\cuda_link'\n"
           "$env:CDM_SAVED_CUDNN_ROOT_DIR = 'unset'\n"
           "$env:CUDNN_ROOT_DIR = 'C:\\w\\it''s 100%\\cuda_link'\n",
           "pwsh on Windows: bin\\x64 first on PATH, the same folder in other case dropped");
    free(text);
    text = render("cmd", pf, &p);
    is_str(text,
           "set \"CDM_SAVED_CUDA_PATH=unset\"\n"
           "set \"CDM_SAVED_CUDNN_PATH=unset\"\n"
           "set \"CDM_SAVED_PATH=set:C:\\Windows;C:\\W\\IT'S 100%\\CUDA_LINK\\BIN\\X64\\\"\n"
           "set \"CUDA_PATH=C:\\w\\it's 100%\\cuda_link\"\n"
           "set \"CUDNN_PATH=C:\\w\\it's 100%\\cuda_link\"\n"
           "set \"PATH=C:\\w\\it's 100%\\cuda_link\\bin\\x64;C:\\Windows\"\n"
           "set \"CDM_PATH_ENTRY=C:\\w\\it's 100%\\cuda_link\\bin\\x64\"\n"
           "set \"CDM_PROJECT=C:\\w\\it's 100%\"\n"
           "set \"CDM_ACTIVE=8.8.0.121-cuda11\"\n"
           "set \"CDM_SAVED_CUDNN_ROOT=unset\"\n"
           "set \"CUDNN_ROOT=C:\\w\\it's 100%\\cuda_link\"\n"
           "set \"CDM_SAVED_CUDNN_ROOT_DIR=unset\"\n"
           "set \"CUDNN_ROOT_DIR=C:\\w\\it's 100%\\cuda_link\"\n",
           "cmd: set \"NAME=value\"");
    free(text);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    deactivation_plan(pf, env_get, &e, &p);
    text = render("powershell", pf, &p);
    is_str(
        text,
        "Remove-Item -LiteralPath 'Env:CUDA_PATH' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CUDNN_PATH' -ErrorAction SilentlyContinue\n"
        "$env:PATH = 'C:\\Windows;C:\\W\\IT''S 100%\\CUDA_LINK\\BIN\\X64\\'\n"
        "Remove-Item -LiteralPath 'Env:CDM_SAVED_CUDA_PATH' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CDM_SAVED_CUDNN_PATH' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CDM_SAVED_PATH' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CDM_PATH_ENTRY' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CDM_PROJECT' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CDM_ACTIVE' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CUDNN_ROOT' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CDM_SAVED_CUDNN_ROOT' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CUDNN_ROOT_DIR' -ErrorAction SilentlyContinue\n"
        "Remove-Item -LiteralPath 'Env:CDM_SAVED_CUDNN_ROOT_DIR' -ErrorAction SilentlyContinue\n",
        "powershell: deactivation restores PATH exactly, its old entry included");
    free(text);
    cdm_env_plan_free(&p);
    env_free(&e);

    struct cdm_env_plan q = {.n = 0};
    q.v[q.n++] = (struct cdm_env_change){"CUDA_PATH", xstrdup("a\"b&c"), NULL};
    text = render("cmd", pf, &q);
    is_str(text, "cannot: CUDA_PATH", "cmd refuses a value whose & a quote leaves unquoted");
    free(text);
    cdm_env_plan_free(&q);
    struct cdm_env_plan r = {.n = 0};
    r.v[r.n++] =
        (struct cdm_env_change){"PATH", xstrdup("C:\\a;\"C:\\Program Files\\Foo\";C:\\b"), NULL};
    text = render("cmd", pf, &r);
    is_str(text, "set \"PATH=C:\\a;\"C:\\Program Files\\Foo\";C:\\b\"\n",
           "cmd takes a PATH with an entry an installer quoted");
    free(text);
    cdm_env_plan_free(&r);
}

/* A folder named with the list separator cannot go on the path list: the loader would
 * split it, and a second activation could not find it to drop it. */
static void test_separator_in_name(void)
{
    const struct activation_target win = {.id = "8.8.0.121-cuda11",
                                          .project = "C:/w/a;b",
                                          .link_path = "C:/w/a;b/cuda_link",
                                          .lib_dir = "bin"};
    const struct activation_target posix = {.id = "9.1.0.70-cuda12",
                                            .project = "/w/a:b",
                                            .link_path = "/w/a:b/cuda_link",
                                            .lib_dir = "lib"};
    const struct activation_target semi = {.id = "9.1.0.70-cuda12",
                                           .project = "/w/a;b",
                                           .link_path = "/w/a;b/cuda_link",
                                           .lib_dir = "lib"};
    struct env e = {{xstrdup("PATH=C:\\Windows")}, 1};
    struct cdm_env_plan p;
    ok(!activation_plan(&shell_platform_windows, env_get, &e, &win, &p) && p.n == 0,
       "Windows: a project folder with ';' is refused, nothing planned");
    ok(activation_plan(&shell_platform_posix, env_get, &e, &semi, &p),
       "POSIX: ';' is not the separator there");
    cdm_env_plan_free(&p);
    ok(!activation_plan(&shell_platform_posix, env_get, &e, &posix, &p) && p.n == 0,
       "POSIX: a project folder with ':' is refused");
    env_free(&e);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The environment as sorted NAME=value lines (malloc'd), to compare two wholes. */
static char *env_text(struct env *e)
{
    qsort(e->vars, e->n, sizeof(*e->vars), by_text);
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "");
    for (size_t i = 0; i < e->n; i++)
        sb_addf(&sb, "%s\n", e->vars[i]);
    return sb_detach(&sb);
}

static void plan_apply(struct env *e, const struct shell_platform *pf,
                       const struct activation_target *t)
{
    struct cdm_env_plan p;
    if (t)
        activation_plan(pf, env_get, e, t, &p);
    else
        deactivation_plan(pf, env_get, e, &p);
    env_apply(e, pf, &p);
    cdm_env_plan_free(&p);
}

/* CUDNN_ROOT(_DIR), the build paths and the redirect: set, replaced by another project,
 * dropped when no longer asked for, and the environment whole again after deactivation. */
static void test_build_paths_and_redirect(void)
{
    const struct shell_platform *pf = &shell_platform_posix;
    struct activation_target a = proj_a, b = proj_b;
    a.lib_folder = "lib";
    b.lib_folder = "lib64";
    a.build_paths = b.build_paths = true;
    a.audit = b.audit = "/usr/lib/cdm/cdm-audit.so";
    struct env e = {{xstrdup("CPATH="), xstrdup("CMAKE_PREFIX_PATH=/opt/x"),
                     xstrdup("LD_AUDIT=/other/audit.so"), xstrdup("CUDNN_ROOT=/mine"),
                     xstrdup("CDM_REDIRECT_DIR=")},
                    5};
    char *before = env_text(&e);
    struct cdm_env_plan p;
    activation_plan(pf, env_get, &e, &a, &p);
    char *text = render("bash", pf, &p);
    const char *tail = strstr(text, "export CDM_SAVED_CUDNN_ROOT=");
    is_str(tail,
           "export CDM_SAVED_CUDNN_ROOT='set:/mine'\n"
           "export CUDNN_ROOT='/w/a/cuda_link'\n"
           "export CDM_SAVED_CUDNN_ROOT_DIR='unset'\n"
           "export CUDNN_ROOT_DIR='/w/a/cuda_link'\n"
           "export CDM_SAVED_CMAKE_PREFIX_PATH='set:/opt/x'\n"
           "export CMAKE_PREFIX_PATH='/w/a/cuda_link:/opt/x'\n"
           "export CDM_CMAKE_PREFIX_PATH_ENTRY='/w/a/cuda_link'\n"
           "export CDM_SAVED_CPATH='set:'\n"
           "export CPATH='/w/a/cuda_link/include'\n"
           "export CDM_CPATH_ENTRY='/w/a/cuda_link/include'\n"
           "export CDM_SAVED_LIBRARY_PATH='unset'\n"
           "export LIBRARY_PATH='/w/a/cuda_link/lib'\n"
           "export CDM_LIBRARY_PATH_ENTRY='/w/a/cuda_link/lib'\n"
           "export CDM_SAVED_LD_AUDIT='set:/other/audit.so'\n"
           "export LD_AUDIT='/other/audit.so:/usr/lib/cdm/cdm-audit.so'\n"
           "export CDM_LD_AUDIT_ENTRY='/usr/lib/cdm/cdm-audit.so'\n"
           "export CDM_SAVED_CDM_REDIRECT_DIR='set:'\n"
           "export CDM_REDIRECT_DIR='/w/a/cuda_link/lib'\n",
           "bash: the build paths first in their lists, cdm-audit.so last on LD_AUDIT");
    free(text);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    ok(activation_current(pf, env_get, &e, &a, true),
       "the activation is current with the redirect");
    ok(!activation_current(pf, env_get, &e, &a, false), "and not when no redirect is wanted");

    plan_apply(&e, pf, &a);
    plan_apply(&e, pf, &b);
    is_str(env_get(&e, "CPATH"), "/w/b/cuda_link/include",
           "another project replaces CPATH's entry");
    is_str(env_get(&e, "LIBRARY_PATH"), "/w/b/cuda_link/lib64", "and LIBRARY_PATH's");
    is_str(env_get(&e, "CMAKE_PREFIX_PATH"), "/w/b/cuda_link:/opt/x", "and CMAKE_PREFIX_PATH's");
    is_str(env_get(&e, "LD_AUDIT"), "/other/audit.so:/usr/lib/cdm/cdm-audit.so",
           "LD_AUDIT holds cdm-audit.so once");
    is_str(env_get(&e, "CDM_REDIRECT_DIR"), "/w/b/cuda_link/lib64", "the redirect follows");

    /* the configuration no longer asks for them: they go back, the activation stays */
    b.build_paths = false;
    b.audit = NULL;
    plan_apply(&e, pf, &b);
    is_str(env_get(&e, "CPATH"), "", "without build_paths CPATH is empty again");
    ok(!env_get(&e, "LIBRARY_PATH"), "and LIBRARY_PATH unset");
    is_str(env_get(&e, "LD_AUDIT"), "/other/audit.so", "without the redirect LD_AUDIT is its own");
    is_str(env_get(&e, "CDM_ACTIVE"), "8.2.1.32-cuda11", "while the activation stays");
    ok(activation_current(pf, env_get, &e, &b, false), "as current as it asks");

    plan_apply(&e, pf, &a);
    plan_apply(&e, pf, NULL);
    char *after = env_text(&e);
    is_str(after, before, "deactivation gives back the environment exactly");
    free(after);
    free(before);
    env_free(&e);
}

/* Windows: the same lists joined with ';', the library folder lib\x64 (not bin). */
static void test_windows_build_paths(void)
{
    const struct shell_platform *pf = &shell_platform_windows;
    const struct activation_target t = {.id = "9.1.0.70-cuda12",
                                        .project = "C:/w/p q",
                                        .link_path = "C:/w/p q/cuda_link",
                                        .lib_dir = "bin",
                                        .lib_folder = "lib/x64",
                                        .build_paths = true};
    struct env e = {{xstrdup("PATH=C:\\Windows"), xstrdup("CMAKE_PREFIX_PATH=C:\\Qt")}, 2};
    struct cdm_env_plan p;
    activation_plan(pf, env_get, &e, &t, &p);
    char *text = render("pwsh", pf, &p);
    is_str(strstr(text, "$env:CDM_SAVED_CMAKE_PREFIX_PATH"),
           "$env:CDM_SAVED_CMAKE_PREFIX_PATH = 'set:C:\\Qt'\n"
           "$env:CMAKE_PREFIX_PATH = 'C:\\w\\p q\\cuda_link' + [IO.Path]::PathSeparator + "
           "'C:\\Qt'\n"
           "$env:CDM_CMAKE_PREFIX_PATH_ENTRY = 'C:\\w\\p q\\cuda_link'\n"
           "$env:CDM_SAVED_CPATH = 'unset'\n"
           "$env:CPATH = 'C:\\w\\p q\\cuda_link\\include'\n"
           "$env:CDM_CPATH_ENTRY = 'C:\\w\\p q\\cuda_link\\include'\n"
           "$env:CDM_SAVED_LIBRARY_PATH = 'unset'\n"
           "$env:LIBRARY_PATH = 'C:\\w\\p q\\cuda_link\\lib\\x64'\n"
           "$env:CDM_LIBRARY_PATH_ENTRY = 'C:\\w\\p q\\cuda_link\\lib\\x64'\n",
           "pwsh: the build paths with Windows' separators, lib\\x64 for the linker");
    free(text);
    text = render("cmd", pf, &p);
    ok(strstr(text, "set \"CMAKE_PREFIX_PATH=C:\\w\\p q\\cuda_link;C:\\Qt\"\n") &&
           strstr(text, "set \"LIBRARY_PATH=C:\\w\\p q\\cuda_link\\lib\\x64\"\n") &&
           strstr(text, "set \"CUDNN_ROOT_DIR=C:\\w\\p q\\cuda_link\"\n"),
       "cmd: the same, ';' between entries");
    free(text);
    char *before = env_text(&e);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    deactivation_plan(pf, env_get, &e, &p);
    text = render("cmd", pf, &p);
    ok(strstr(text, "set \"CMAKE_PREFIX_PATH=C:\\Qt\"\n") && strstr(text, "set \"CPATH=\"\n"),
       "cmd: deactivation sets the old list back and unsets the new ones");
    free(text);
    env_apply(&e, pf, &p);
    cdm_env_plan_free(&p);
    char *after = env_text(&e);
    is_str(after, before, "and the environment is whole again");
    free(after);
    free(before);
    env_free(&e);
}

int main(void)
{
    test_quoting();
    test_names();
    test_posix_cycle();
    test_unset_list_and_user_changes();
    test_windows();
    test_separator_in_name();
    test_build_paths_and_redirect();
    test_windows_build_paths();
    return tap_done();
}
