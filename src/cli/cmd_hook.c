/*
 * cdm hook SHELL: a snippet for the shell's profile that makes the active cuDNN follow the
 * working folder and the current project's link. Each snippet calls `cdm activate --auto`
 * at every prompt (and on the shell's own directory-change event where it has one), so a
 * `cdm link`, `rollback` or `unlink` in the current project shows at the next prompt; when
 * nothing changed, that call reads only the environment, a stat per folder and one link
 * (cdm_activation_unchanged). It is --quiet unless the folder changed, so a project that
 * cannot be activated is reported once. None replaces `cd`: in bash, `cd p && cmd` runs cmd
 * before the prompt, so before the activation (README, "Shells").
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char hook_bash[] =
    "# cdm: switch cuDNN with the working folder. In ~/.bashrc: eval \"$(cdm hook bash)\"\n"
    "_cdm_hook() {\n"
    "  local status=$? quiet=--quiet\n"
    "  if [[ \"${_CDM_HOOK_PWD-}\" != \"$PWD\" ]]; then\n"
    "    _CDM_HOOK_PWD=$PWD\n"
    "    quiet=\n"
    "  fi\n"
    "  eval \"$(command cdm activate --auto $quiet --shell bash)\"\n"
    "  return $status\n"
    "}\n"
    "if [[ \";${PROMPT_COMMAND[*]:-};\" != *\";_cdm_hook;\"* ]]; then\n"
    "  if [[ \"$(declare -p PROMPT_COMMAND 2>&1)\" == \"declare -a\"* ]]; then\n"
    "    PROMPT_COMMAND=(_cdm_hook \"${PROMPT_COMMAND[@]}\")\n"
    "  else\n"
    "    PROMPT_COMMAND=\"_cdm_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}\"\n"
    "  fi\n"
    "fi\n";

static const char hook_zsh[] =
    "# cdm: switch cuDNN with the working folder. In ~/.zshrc: eval \"$(cdm hook zsh)\"\n"
    "_cdm_hook() {\n"
    "  local quiet=--quiet\n"
    "  if [[ \"${_CDM_HOOK_PWD-}\" != \"$PWD\" ]]; then\n"
    "    _CDM_HOOK_PWD=$PWD\n"
    "    quiet=\n"
    "  fi\n"
    "  eval \"$(command cdm activate --auto $quiet --shell zsh)\"\n"
    "}\n"
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
    "function __cdm_hook --on-variable PWD --description 'cdm: follow the working folder'\n"
    "    command cdm activate --auto --shell fish | source\n"
    "end\n"
    "function __cdm_hook_prompt --on-event fish_prompt --description 'cdm: follow the link'\n"
    "    command cdm activate --auto --quiet --shell fish | source\n"
    "end\n"
    "__cdm_hook\n";

/* PowerShell: wrap the prompt (Set-Location stays untouched); keep $LASTEXITCODE; pass
 * the folder, since Set-Location does not move the process's own working folder. */
static const char hook_pwsh[] =
    "# cdm: switch cuDNN with the working folder.\n"
    "# In $PROFILE: (& cdm hook pwsh) | Out-String | Invoke-Expression\n"
    "if (-not $global:__cdm_prompt) { $global:__cdm_prompt = $function:prompt }\n"
    "function global:prompt {\n"
    "    $code = $global:LASTEXITCODE\n"
    "    $here = $ExecutionContext.SessionState.Path.CurrentFileSystemLocation.ProviderPath\n"
    "    if ($here -cne $global:__cdm_pwd) {\n"
    "        $global:__cdm_pwd = $here\n"
    "        $text = (& cdm activate --auto --shell pwsh -- $here) | Out-String\n"
    "    } else {\n"
    "        $text = (& cdm activate --auto --quiet --shell pwsh -- $here) | Out-String\n"
    "    }\n"
    "    if ($text.Trim()) { Invoke-Expression $text }\n"
    "    $global:LASTEXITCODE = $code\n"
    "    & $global:__cdm_prompt\n"
    "}\n";

static const struct {
    const char *shell;
    const char *text;
} hooks[] = {
    {"bash", hook_bash}, {"zsh", hook_zsh},         {"fish", hook_fish},
    {"pwsh", hook_pwsh}, {"powershell", hook_pwsh},
};

static int run_hook(struct cli *cli, const struct cli_args *args)
{
    const char *name = args->pos[0];
    const cdm_shell *sh = cdm_shell_find(name);
    for (size_t i = 0; sh && i < CDM_ARRAY_LEN(hooks); i++) {
        if (!strcmp(hooks[i].shell, cdm_shell_name(sh))) {
            fputs(hooks[i].text, stdout);
            return EXIT_OK;
        }
    }
    return cli_usage_error(cli, "no hook for '%s'; cdm has hooks for bash, zsh, fish and pwsh",
                           name);
}

static const struct cli_arg hook_args[] = {
    {"bash|zsh|fish|pwsh", CLI_ARG_REQUIRED, CLI_COMPLETE_CHOICES},
    CLI_ARG_END,
};

const struct cli_command cli_cmd_hook = {
    .name = "hook",
    .run = run_hook,
    .summary = "print a profile snippet that activates projects on cd",
    .args = hook_args,
    .description = "  bash/zsh: eval \"$(cdm hook bash)\"   fish: cdm hook fish | source\n"
                   "  PowerShell: (& cdm hook pwsh) | Out-String | Invoke-Expression\n",
};
