# cdm: switch cuDNN with the working folder. In ~/.zshrc: eval "$(cdm hook zsh)"
# Before each prompt the shell checks, with builtins alone, what `cdm activate --auto`
# decides from: the folders from here up (links, pin files), the active link's target, the
# default's and the config's files, cdm's variables. cdm starts only when one differs.
_cdm_hook_file() { # FILE: append what it holds (a regular file's first 4096 characters)
  local text=-
  [[ -f $1 ]] && { text=; read -r -k 4096 -u 0 text <"$1"; }
  _cdm_hook_f+=$'\1'$1$'\2'$text
}
_cdm_hook_env() { # cdm's variables, and those that choose its files
  _cdm_hook_e=${CDM_PROJECT+:$CDM_PROJECT}$'\1'${CDM_ACTIVE+:$CDM_ACTIVE}$'\1'${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}$'\1'${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}$'\1'${CDM_ROOT+:$CDM_ROOT}$'\1'${CDM_CONFIG+:$CDM_CONFIG}$'\1'${CDM_STATE+:$CDM_STATE}$'\1'${HOME+:$HOME}$'\1'${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}$'\1'${XDG_DATA_HOME+:$XDG_DATA_HOME}$'\1'${XDG_STATE_HOME+:$XDG_STATE_HOME}
}
_cdm_hook_facts() { # DIR
  local d=$1
  _cdm_hook_f=${_cdm_hook_name-}
  while :; do
    _cdm_hook_file "$d/.cudnn-version"
    [[ -L $d/$_cdm_hook_name ]] && { _cdm_hook_f+=$'\3'; break; }
    [[ $d == / || -z $d ]] && break
    d=${d%/*}
    d=${d:-/}
  done
  _cdm_hook_file "${_cdm_hook_default-}"
  _cdm_hook_file "${_cdm_hook_config-}"
}
_cdm_hook() {
  local rc=$? quiet=--quiet dir=${_cdm_hook_dir-} used seen
  if [[ "${_CDM_HOOK_PWD-}" != "$PWD" ]]; then
    _CDM_HOOK_PWD=$PWD
    quiet=
  fi
  [[ $quiet && $dir && $PWD -ef $dir ]] || dir=$PWD
  _cdm_hook_env
  _cdm_hook_facts "$dir"
  if [[ $quiet && $_cdm_hook_e$'\4'$_cdm_hook_f == "${_cdm_hook_seen-}" ]] &&
    [[ -z $_cdm_hook_target || $_cdm_hook_link -ef $_cdm_hook_target ]]; then
    return $rc
  fi
  seen=$_cdm_hook_f used=$dir$'\1'${_cdm_hook_name-}$'\1'${_cdm_hook_default-}$'\1'${_cdm_hook_config-}
  _cdm_hook_dir= _cdm_hook_seen=
  eval "$(command cdm activate --hook-state $quiet --shell zsh)"
  # What was read before cdm decided stands for its decision only where cdm read the same.
  if [[ $_cdm_hook_dir && $used == "$_cdm_hook_dir"$'\1'$_cdm_hook_name$'\1'$_cdm_hook_default$'\1'$_cdm_hook_config ]]; then
    _cdm_hook_env
    _cdm_hook_seen=$_cdm_hook_e$'\4'$seen
  fi
  return $rc
}
typeset -ag precmd_functions chpwd_functions
if (( ! ${precmd_functions[(I)_cdm_hook]} )); then
  precmd_functions=(_cdm_hook $precmd_functions)
fi
if (( ! ${chpwd_functions[(I)_cdm_hook]} )); then
  chpwd_functions=(_cdm_hook $chpwd_functions)
fi
