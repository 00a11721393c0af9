/*
 * cdm hook SHELL: a snippet for the shell's profile that makes the active cuDNN follow the
 * working folder and the current project's link. Starting cdm at every prompt costs more
 * than the prompt itself, so before each prompt (and on the shell's own change-of-folder
 * event) the snippet checks, with the shell's builtins alone, what `cdm activate --auto`
 * decides from: cdm's variables, the folders from the working one up (a link, a pin file
 * and its text), whether the link that was read still leads to the same folder, the
 * default's file and the config file. Only when one differs does it run `cdm activate
 * --hook-state`, which is --auto and also sets the variables the snippet compares. What
 * the snippet read before cdm ran is what it keeps, so a change made while cdm decides
 * differs at the next prompt. cdm runs --quiet unless the folder changed, so a project that
 * cannot be activated is reported once. None replaces `cd`: in bash, `cd p && cmd` runs cmd
 * before the prompt, so before the activation (docs/shells.md).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shells' text below is laid out as the shell reads it, not as clang-format would. */
// clang-format off
/* cdm's variables and those that choose its files, set or not, as one word. */
#define HOOK_SH_ENV                                                                              \
    "${CDM_PROJECT+:$CDM_PROJECT}/${CDM_ACTIVE+:$CDM_ACTIVE}/${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}/" \
    "${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}/${CDM_ROOT+:$CDM_ROOT}/${CDM_CONFIG+:$CDM_CONFIG}/" \
    "${CDM_STATE+:$CDM_STATE}/${HOME+:$HOME}/${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}/"               \
    "${XDG_DATA_HOME+:$XDG_DATA_HOME}/${XDG_STATE_HOME+:$XDG_STATE_HOME}"

/* bash and zsh: the same text but for reading a file's first N characters (bash's read
 * counts with -n, zsh's with -k), the working folder's path with links resolved (zsh's :A
 * modifier; bash has no builtin for it, so a subshell, only where a link is on the way) and
 * the shell named. zsh's $status is its $?, hence rc. */
#define HOOK_BASH_ZSH(READ, REAL, SHELL) \
    "# Before each prompt the shell checks, with builtins alone, what `cdm activate --auto`\n" \
    "# decides from: cdm's variables, the folders from here up to the nearest link (links, the\n" \
    "# text of pin files), where that link leads, the config's text and, outside projects, the\n" \
    "# default's. cdm starts only when one differs. bash copies a function's whole body at each\n" \
    "# call, and a test, a local, a loop's turn or a command costs about what the file system's\n" \
    "# answer costs: so each time cdm has run, the walk up to the link is written out as one\n" \
    "# test of those folders by ../ from here (_cdm_hook_same), and the prompt runs that alone;\n" \
    "# the walk (_cdm_hook_walk) runs only when something differs.\n" \
    "_cdm_hook() {\n" \
    "  local rc=$?\n" \
    "  _cdm_hook_same || _cdm_hook_walk\n" \
    "  return $rc\n" \
    "}\n" \
    "_cdm_hook_same() { return 1; }\n" \
    "# The texts _cdm_hook_same compares after its test: FILE TEXT N..., each a regular file.\n" \
    "_cdm_hook_read() {\n" \
    "  local t\n" \
    "  while (($#)); do t=; " READ("\"$3\"") " <\"$1\"; [[ $t == \"$2\" ]] || return; shift 3; done\n" \
    "}\n" \
    "# The folders from here up, as cdm walks them from its real path: by ../ from here, which\n" \
    "# is that path and a shorter one for the file system to follow; d names them. Each fact\n" \
    "# read is added to s as a test (and each text to x): as cdm looks, a link first, then a pin\n" \
    "# file; up to the link, or the top, and then the default's file; and the config's.\n" \
    "_cdm_hook_walk() {\n" \
    "  local q=--quiet dir=${_cdm_hook_dir-} d r=./ l= t s= x=()\n" \
    "  [[ ${_CDM_HOOK_PWD-} == \"$PWD\" && $dir && ($PWD == \"$dir\" || . -ef $dir) ]] || _cdm_hook_where\n" \
    "  d=$dir\n" \
    "  while :; do\n" \
    "    while [[ $d && ! -L $r$_cdm_hook_name && ! -f $r.cudnn-version ]]; do\n" \
    "      s+=\" && ! -L $r\\$_cdm_hook_name && ! -f $r.cudnn-version\" d=${d%/*} r=${r#./}../\n" \
    "    done\n" \
    "    [[ -L $r$_cdm_hook_name ]] && { l=$r; break; }\n" \
    "    s+=\" && ! -L $r\\$_cdm_hook_name\"\n" \
    "    _cdm_hook_file \"$r.cudnn-version\" \"$r.cudnn-version\" 4096\n" \
    "    [[ $d ]] || break\n" \
    "    d=${d%/*} r=${r#./}../\n" \
    "  done\n" \
    "  [[ $d || ${_cdm_hook_default-} != /* ]] || _cdm_hook_file '$_cdm_hook_default' \"$_cdm_hook_default\" 65536\n" \
    "  [[ ${_cdm_hook_config-} != /* ]] || _cdm_hook_file '$_cdm_hook_config' \"$_cdm_hook_config\" 65536\n" \
    "  _cdm_hook_run\n" \
    "}\n" \
    "# CODE FILE N: whether FILE is a regular file (nothing that could block is read), empty\n" \
    "# (then not opened), and its first N characters, as a test of CODE and a text.\n" \
    "_cdm_hook_file() {\n" \
    "  if [[ -f $2 ]]; then\n" \
    "    if [[ -s $2 ]]; then\n" \
    "      t=; " READ("\"$3\"") " <\"$2\"; s+=\" && -s $1 && -f $1\" x+=(\"$2\" \"$t\" \"$3\")\n" \
    "    else s+=\" && -f $1 && ! -s $1\"; fi\n" \
    "  else s+=\" && ! -f $1\"; fi\n" \
    "}\n" \

/* the rest (two strings: C99 compilers need to take only 4095 characters in one) */
#define HOOK_BASH_ZSH_MORE(READ, REAL, SHELL) \
    "# A new folder (cdm then runs without --quiet), or one cdm did not name: walk from its real\n" \
    "# path, as cdm (getcwd) does, so that its answer is for the same path.\n" \
    "_cdm_hook_where() {\n" \
    "  [[ ${_CDM_HOOK_PWD-} == \"$PWD\" ]] || { _CDM_HOOK_PWD=$PWD q=; }\n" \
    "  " REAL "\n" \
    "}\n" \
    "# What was read before cdm decided stands for its decision only where cdm read the same,\n" \
    "# with cdm's variables as it left them: then _cdm_hook_same tests it, here, in this folder\n" \
    "# (by the path cdm named), and that the link cdm read still leads where it led.\n" \
    "_cdm_hook_run() {\n" \
    "  local used=$dir$'\\1'${_cdm_hook_name-}$'\\1'${_cdm_hook_default-}$'\\1'${_cdm_hook_config-}\n" \
    "  _cdm_hook_dir= _cdm_hook_texts=()\n" \
    "  _cdm_hook_same() { return 1; }\n" \
    "  eval \"$(command cdm activate --hook-state $q --shell " SHELL ")\"\n" \
    "  [[ $_cdm_hook_dir && $used == \"$_cdm_hook_dir\"$'\\1'$_cdm_hook_name$'\\1'$_cdm_hook_default$'\\1'$_cdm_hook_config ]] || return\n" \
    "  _cdm_hook_seen=" HOOK_SH_ENV "\n" \
    "  [[ $PWD == \"$dir\" ]] || s=' && . -ef $_cdm_hook_dir'$s\n" \
    "  if [[ $l && $_cdm_hook_target && $_cdm_hook_link == \"$d/$_cdm_hook_name\" ]]; then\n" \
    "    s+=\" && $l\\$_cdm_hook_name -ef \\$_cdm_hook_target\"\n" \
    "  else\n" \
    "    [[ $l ]] && s+=\" && -L $l\\$_cdm_hook_name\"\n" \
    "    [[ $_cdm_hook_target ]] && s+=' && $_cdm_hook_link -ef $_cdm_hook_target'\n" \
    "  fi\n" \
    "  _cdm_hook_texts=(\"${x[@]}\")\n" \
    "  ((${#x[@]})) && s+=' ]] && _cdm_hook_read \"${_cdm_hook_texts[@]}\"' || s+=' ]]'\n" \
    "  eval '_cdm_hook_same() { [[ $PWD == \"$_CDM_HOOK_PWD\" && " HOOK_SH_ENV " == \"$_cdm_hook_seen\"'\"$s; }\"\n" \
    "}\n"

#define BASH_READ(N) "IFS= read -r -d '' -n " N " t"
#define ZSH_READ(N) "read -r -k " N " -u 0 t"
/* A link on the way from / to $PWD: the path that cdm sees is another one. */
#define BASH_REAL                                                                        \
    "local d=$PWD\n"                                                                      \
    "  dir=$PWD\n"                                                                        \
    "  while [[ $d && ! -L $d ]]; do d=${d%/*}; done\n"                                   \
    "  [[ $d || $PWD == //* ]] && { dir=$(builtin pwd -P 2>/dev/null) || dir=$PWD; }"
#define ZSH_REAL "dir=${PWD:A}"

static const char hook_bash[] =
    "# cdm: switch cuDNN with the working folder. In ~/.bashrc: eval \"$(cdm hook bash)\"\n"
    HOOK_BASH_ZSH(BASH_READ, BASH_REAL, "bash");
static const char hook_bash_more[] =
    HOOK_BASH_ZSH_MORE(BASH_READ, BASH_REAL, "bash")
    "if [[ \";${PROMPT_COMMAND[*]:-};\" != *\";_cdm_hook;\"* ]]; then\n"
    "  if [[ \"$(declare -p PROMPT_COMMAND 2>&1)\" == \"declare -a\"* ]]; then\n"
    "    PROMPT_COMMAND=(_cdm_hook \"${PROMPT_COMMAND[@]}\")\n"
    "  else\n"
    "    PROMPT_COMMAND=\"_cdm_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}\"\n"
    "  fi\n"
    "fi\n";

static const char hook_zsh[] =
    "# cdm: switch cuDNN with the working folder. In ~/.zshrc: eval \"$(cdm hook zsh)\"\n"
    HOOK_BASH_ZSH(ZSH_READ, ZSH_REAL, "zsh");
static const char hook_zsh_more[] =
    HOOK_BASH_ZSH_MORE(ZSH_READ, ZSH_REAL, "zsh")
    "typeset -ag precmd_functions chpwd_functions\n"
    "if (( ! ${precmd_functions[(I)_cdm_hook]} )); then\n"
    "  precmd_functions=(_cdm_hook $precmd_functions)\n"
    "fi\n"
    "if (( ! ${chpwd_functions[(I)_cdm_hook]} )); then\n"
    "  chpwd_functions=(_cdm_hook $chpwd_functions)\n"
    "fi\n";

static const char hook_fish[] =
    "# cdm: switch cuDNN with the working folder.\n"
    "# In ~/.config/fish/config.fish: cdm hook fish | source\n"
    "# Before each prompt the shell checks, with builtins alone, what `cdm activate --auto`\n"
    "# decides from: the folders from here up (links, pin files), the active link's target, the\n"
    "# default's and the config's files, cdm's variables. cdm starts only when one differs.\n"
    "function __cdm_hook_file --argument-names file\n"
    "    # what a file holds: a regular file's first 4096 characters\n"
    "    set -l text -\n"
    "    if test -f \"$file\"\n"
    "        set text ''\n"
    "        read -z -n 4096 text <$file\n"
    "    end\n"
    "    set -ga __cdm_hook_f (string escape -- $file $text)\n"
    "end\n"
    "function __cdm_hook_env\n"
    "    set -g __cdm_hook_e\n"
    "    for n in CDM_PROJECT CDM_ACTIVE CDM_PATH_ENTRY CDM_SAVED_CUDA_HOME CDM_ROOT CDM_CONFIG \\\n"
    "            CDM_STATE HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME\n"
    "        set -q $n; and set -a __cdm_hook_e (string escape -- \":$$n\"); or set -a __cdm_hook_e -\n"
    "    end\n"
    "end\n"
    "function __cdm_hook_facts --argument-names d\n"
    "    set -g __cdm_hook_f (string escape -- \"$_cdm_hook_name\")\n"
    "    while true\n"
    "        __cdm_hook_file $d/.cudnn-version\n"
    "        if test -L \"$d/$_cdm_hook_name\"\n"
    "            set -a __cdm_hook_f L\n"
    "            break\n"
    "        end\n"
    "        test \"$d\" = /; and break\n"
    "        set d (string replace -r '/[^/]*$' '' -- $d)\n"
    "        test -n \"$d\"; or set d /\n"
    "    end\n"
    "    __cdm_hook_file \"$_cdm_hook_default\"\n"
    "    __cdm_hook_file \"$_cdm_hook_config\"\n"
    "end\n"
    "function __cdm_hook --on-variable PWD --on-event fish_prompt --description 'cdm: follow the folder and the link'\n"
    "    set -l quiet --quiet\n"
    "    if test \"$__cdm_hook_pwd\" != \"$PWD\"\n"
    "        set -g __cdm_hook_pwd $PWD\n"
    "        set quiet\n"
    "    end\n"
    "    set -l dir \"$_cdm_hook_dir\"\n"
    "    if test -z \"$quiet\"; or test -z \"$dir\"; or not test \"$PWD\" -ef \"$dir\"\n"
    "        # cdm decides from the real path (getcwd): walk the folders it walks\n"
    "        set dir (builtin realpath . 2>/dev/null)\n"
    "        test -n \"$dir\"; or set dir $PWD\n"
    "    end\n"
    "    __cdm_hook_env\n"
    "    __cdm_hook_facts $dir\n"
    "    if test -n \"$quiet\"; and test \"$__cdm_hook_e / $__cdm_hook_f\" = \"$__cdm_hook_seen\"\n"
    "        if test -z \"$_cdm_hook_target\"; or test \"$_cdm_hook_link\" -ef \"$_cdm_hook_target\"\n"
    "            return 0\n"
    "        end\n"
    "    end\n"
    "    set -l seen \"$__cdm_hook_f\"\n"
    "    set -l used (string escape -- $dir \"$_cdm_hook_name\" \"$_cdm_hook_default\" \"$_cdm_hook_config\")\n"
    "    set -g _cdm_hook_dir\n"
    "    set -g __cdm_hook_seen\n"
    "    command cdm activate --hook-state $quiet --shell fish | source\n"
    "    # What was read before cdm decided stands for its decision only where cdm read the same.\n"
    "    set -l now (string escape -- \"$_cdm_hook_dir\" \"$_cdm_hook_name\" \"$_cdm_hook_default\" \"$_cdm_hook_config\")\n"
    "    if test -n \"$_cdm_hook_dir\"; and test \"$used\" = \"$now\"\n"
    "        __cdm_hook_env\n"
    "        set -g __cdm_hook_seen \"$__cdm_hook_e / $seen\"\n"
    "    end\n"
    "end\n";

/* PowerShell: wrap the prompt (Set-Location stays untouched); keep $LASTEXITCODE; pass
 * the folder, since Set-Location does not move the process's own working folder. Files are
 * compared by size and time of change (Get-Item opens nothing). No pwsh runs in the tests:
 * this one is checked by its text and a parse only (tests/cli/shell_text.sh). */
static const char hook_pwsh[] =
    "# cdm: switch cuDNN with the working folder.\n"
    "# In $PROFILE: (& cdm hook pwsh) | Out-String | Invoke-Expression\n"
    "# Before each prompt PowerShell checks, without starting a process, what `cdm activate\n"
    "# --auto` decides from: the folders from here up (links, pin files), the active link's\n"
    "# target, the default's and the config's files (size and time of change), cdm's variables.\n"
    "# cdm starts only when one differs.\n"
    "# Set-StrictMode -Version Latest stops at a variable read before it is set: cdm's start\n"
    "# unset, and $LASTEXITCODE (unset until a native program ran) is asked for, not read.\n"
    "foreach ($n in '__cdm_prompt', '__cdm_pwd', '__cdm_hook_seen', '_cdm_hook_dir', '_cdm_hook_name',\n"
    "        '_cdm_hook_target', '_cdm_hook_link', '_cdm_hook_default', '_cdm_hook_config') {\n"
    "    if (-not (Get-Variable -Name $n -Scope Global -ErrorAction SilentlyContinue)) {\n"
    "        Set-Variable -Name $n -Scope Global -Value $null\n"
    "    }\n"
    "}\n"
    "if (-not $global:__cdm_prompt) { $global:__cdm_prompt = $function:prompt }\n"
    "function global:__cdm_hook_file([string]$file) {\n"
    "    $item = $null\n"
    "    if ($file) { $item = Get-Item -LiteralPath $file -Force -ErrorAction SilentlyContinue }\n"
    "    if ($item -is [IO.FileInfo]) { return \"$file|$($item.Length)|$($item.LastWriteTimeUtc.Ticks)\" }\n"
    "    return \"$file|-\"\n"
    "}\n"
    "function global:__cdm_hook_env {\n"
    "    $names = 'CDM_PROJECT', 'CDM_ACTIVE', 'CDM_PATH_ENTRY', 'CDM_SAVED_CUDA_HOME', 'CDM_ROOT',\n"
    "        'CDM_CONFIG', 'CDM_STATE', 'HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME',\n"
    "        'APPDATA', 'LOCALAPPDATA', 'USERPROFILE'\n"
    "    return ($names | ForEach-Object { \"$_=\" + [Environment]::GetEnvironmentVariable($_) }) -join [char]1\n"
    "}\n"
    "function global:__cdm_hook_facts([string]$dir) {\n"
    "    $facts = @(\"$global:_cdm_hook_name\")\n"
    "    $d = $dir\n"
    "    while ($d) {\n"
    "        $facts += __cdm_hook_file (Join-Path $d '.cudnn-version')\n"
    "        $link = $null\n"
    "        if ($global:_cdm_hook_name) {\n"
    "            $link = Get-Item -LiteralPath (Join-Path $d $global:_cdm_hook_name) -Force -ErrorAction SilentlyContinue\n"
    "        }\n"
    "        if ($link -and $link.LinkType) { $facts += 'L'; break }\n"
    "        $d = [IO.Path]::GetDirectoryName($d)\n"
    "    }\n"
    "    $facts += __cdm_hook_file $global:_cdm_hook_default\n"
    "    $facts += __cdm_hook_file $global:_cdm_hook_config\n"
    "    return $facts -join [char]1\n"
    "}\n"
    "function global:__cdm_hook_same {\n"
    "    # whether the link still leads where it led when cdm read it\n"
    "    if (-not $global:_cdm_hook_target) { return $true }\n"
    "    $item = Get-Item -LiteralPath $global:_cdm_hook_link -Force -ErrorAction SilentlyContinue\n"
    "    if (-not $item -or -not $item.LinkType) { return $false }\n"
    "    return \"$(@($item.Target)[0])\".TrimEnd('\\', '/') -eq $global:_cdm_hook_target.TrimEnd('\\', '/')\n"
    "}\n"
    "function global:__cdm_hook_used([string]$dir) {\n"
    "    return @($dir, $global:_cdm_hook_name, $global:_cdm_hook_default, $global:_cdm_hook_config) -join [char]1\n"
    "}\n"
    ;
/* the prompt itself, after the functions above (two strings: C99 compilers need to take
 * only 4095 characters in one) */
static const char hook_pwsh_prompt[] =
    "function global:prompt {\n"
    "    $code = Get-Variable -Name LASTEXITCODE -Scope Global -ValueOnly -ErrorAction SilentlyContinue\n"
    "    $here = $ExecutionContext.SessionState.Path.CurrentFileSystemLocation.ProviderPath\n"
    "    $quiet = $here -ceq $global:__cdm_pwd\n"
    "    $global:__cdm_pwd = $here\n"
    "    $dir = $here\n"
    "    if ($quiet -and $global:_cdm_hook_dir) { $dir = $global:_cdm_hook_dir }\n"
    "    $files = __cdm_hook_facts $dir\n"
    "    $same = $quiet -and (\"$(__cdm_hook_env)$([char]4)$files\" -ceq $global:__cdm_hook_seen)\n"
    "    if (-not ($same -and (__cdm_hook_same))) {\n"
    "        $used = __cdm_hook_used $dir\n"
    "        $global:_cdm_hook_dir = $null\n"
    "        $global:__cdm_hook_seen = $null\n"
    "        if ($quiet) {\n"
    "            $text = (& cdm activate --hook-state --quiet --shell pwsh -- $here) | Out-String\n"
    "        } else {\n"
    "            $text = (& cdm activate --hook-state --shell pwsh -- $here) | Out-String\n"
    "        }\n"
    "        if ($text.Trim()) { Invoke-Expression $text }\n"
    "        # What was read before cdm decided stands for its decision only where cdm read the same.\n"
    "        if ($global:_cdm_hook_dir -and $used -ceq (__cdm_hook_used $global:_cdm_hook_dir)) {\n"
    "            $global:__cdm_hook_seen = \"$(__cdm_hook_env)$([char]4)$files\"\n"
    "        }\n"
    "    }\n"
    "    if ($null -ne $code) { $global:LASTEXITCODE = $code }\n"
    "    & $global:__cdm_prompt\n"
    "}\n";
// clang-format on

static const struct {
    const char *shell;
    const char *text, *more;
    const char *last; /* after the first state: a call that should see it */
} hooks[] = {
    {"bash", hook_bash, hook_bash_more, ""},
    {"zsh", hook_zsh, hook_zsh_more, ""},
    /* fish runs the hook once as it is read: with the files to compare known, or that
     * first cdm's answer would be thrown away and the first prompt start cdm again */
    {"fish", hook_fish, "", "__cdm_hook\n"},
    {"pwsh", hook_pwsh, hook_pwsh_prompt, ""},
    {"powershell", hook_pwsh, hook_pwsh_prompt, ""},
};

/* What the first prompt's cdm will say the files it reads are (the link's name, the
 * default's file, the configuration file), as variables the snippet already compares: the
 * snippet then keeps that first decision, and the second prompt starts no cdm. Nothing when
 * the configuration cannot be read (the first prompt's cdm then says why) or a value cannot
 * be written for this shell: the hook asks cdm once more, as it would without. */
static void print_first_state(const struct cli *cli, const cdm_shell *sh)
{
    struct cdm_options options = {.root = cli->root, .config_path = cli->config};
    cdm_ctx *ctx = NULL;
    if (cdm_ctx_new(&ctx, &options) != CDM_OK) {
        cdm_ctx_free(ctx);
        return;
    }
    struct cdm_hook_state st;
    cdm_hook_state_files(ctx, &st);
    cdm_ctx_free(ctx);
    char *name = cdm_shell_assign(sh, "_cdm_hook_name", st.link_name);
    char *def = cdm_shell_assign(sh, "_cdm_hook_default", st.default_file);
    char *config = cdm_shell_assign(sh, "_cdm_hook_config", st.config);
    if (name && def && config)
        printf("%s%s%s", name, def, config);
    free(name);
    free(def);
    free(config);
}

static int run_hook(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args)
{
    (void)ctx;
    const char *name = args->pos[0];
    const cdm_shell *sh = cdm_shell_find(name);
    for (size_t i = 0; sh && i < CDM_ARRAY_LEN(hooks); i++) {
        if (!strcmp(hooks[i].shell, cdm_shell_name(sh))) {
            fputs(hooks[i].text, stdout);
            fputs(hooks[i].more, stdout);
            print_first_state(cli, sh);
            fputs(hooks[i].last, stdout);
            return EXIT_OK;
        }
    }
    struct strbuf known = STRBUF_INIT; /* the table above is the one list */
    for (size_t i = 0; i < CDM_ARRAY_LEN(hooks); i++)
        sb_addf(&known, "%s%s", i ? ", " : "", hooks[i].shell);
    int rc = cli_usage_error(cli, "no hook for '%s'; cdm has hooks for %s", name, sb_str(&known));
    sb_free(&known);
    return rc;
}

static const struct cli_arg hook_args[] = {
    {"bash|zsh|fish|pwsh", CLI_ARG_REQUIRED, CLI_COMPLETE_CHOICES},
    CLI_ARG_END,
};

const struct cli_command cli_cmd_hook = {
    .name = "hook",
    .needs = CLI_NEEDS_NOTHING,
    .run = run_hook,
    .summary = "print a profile snippet that activates projects on cd",
    .args = hook_args,
    .description = "  bash/zsh: eval \"$(cdm hook bash)\"   fish: cdm hook fish | source\n"
                   "  PowerShell: (& cdm hook pwsh) | Out-String | Invoke-Expression\n",
};
