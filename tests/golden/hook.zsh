# cdm: switch cuDNN with the working folder. In ~/.zshrc: eval "$(cdm hook zsh)"
_cdm_hook() {
  local quiet=--quiet
  if [[ "${_CDM_HOOK_PWD-}" != "$PWD" ]]; then
    _CDM_HOOK_PWD=$PWD
    quiet=
  fi
  eval "$(command cdm activate --auto $quiet --shell zsh)"
}
typeset -ag precmd_functions chpwd_functions
if (( ! ${precmd_functions[(I)_cdm_hook]} )); then
  precmd_functions=(_cdm_hook $precmd_functions)
fi
if (( ! ${chpwd_functions[(I)_cdm_hook]} )); then
  chpwd_functions=(_cdm_hook $chpwd_functions)
fi
