# cdm: switch cuDNN with the working folder. In ~/.bashrc: eval "$(cdm hook bash)"
# Before each prompt the shell checks, with builtins alone, what `cdm activate --auto`
# decides from: cdm's variables, the folders from here up to the nearest link (links, the
# text of pin files), where that link leads, the config's text and, outside projects, the
# default's. cdm starts only when one differs. One function, no calls: in bash a call costs
# as much as a few tests.
_cdm_hook() {
  local rc=$? quiet=--quiet dir=${_cdm_hook_dir-} d f text file default=${_cdm_hook_default-} used
  if [[ "${_CDM_HOOK_PWD-}" != "$PWD" ]]; then
    _CDM_HOOK_PWD=$PWD
    quiet=
  fi
  [[ $quiet && $dir && ($PWD == "$dir" || $PWD -ef $dir) ]] || dir=$PWD
  d=$dir f=${CDM_PROJECT+:$CDM_PROJECT}/${CDM_ACTIVE+:$CDM_ACTIVE}/${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}/${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}/${CDM_ROOT+:$CDM_ROOT}/${CDM_CONFIG+:$CDM_CONFIG}/${CDM_STATE+:$CDM_STATE}/${HOME+:$HOME}/${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}/${XDG_DATA_HOME+:$XDG_DATA_HOME}/${XDG_STATE_HOME+:$XDG_STATE_HOME}$'\5'${_cdm_hook_name-}
  while :; do # as cdm looks: a link first, then a pin file
    [[ -L $d/$_cdm_hook_name ]] && { f+=$'\1'$d default=; break; }
    if [[ -f $d/.cudnn-version ]]; then # a regular file: nothing that could block is read
      text=
      IFS= read -r -d '' -n 4096 text <"$d/.cudnn-version"
      f+=$'\2'$d$'\3'$text
    fi
    [[ $d ]] || break
    d=${d%/*}
  done
  for file in "$default" "${_cdm_hook_config-}"; do
    text=-
    [[ $file == /* && -f $file ]] && { text=; IFS= read -r -d '' -n 65536 text <"$file"; }
    f+=$'\4'$text
  done
  if [[ $quiet && $f == "${_cdm_hook_seen-}" ]] &&
    [[ -z ${_cdm_hook_target-} || $_cdm_hook_link -ef $_cdm_hook_target ]]; then
    return $rc
  fi
  used=$dir$'\1'${_cdm_hook_name-}$'\1'${_cdm_hook_default-}$'\1'${_cdm_hook_config-}
  _cdm_hook_dir= _cdm_hook_seen=
  eval "$(command cdm activate --hook-state $quiet --shell bash)"
  # What was read before cdm decided stands for its decision only where cdm read the same,
  # with cdm's variables as it left them.
  if [[ $_cdm_hook_dir && $used == "$_cdm_hook_dir"$'\1'$_cdm_hook_name$'\1'$_cdm_hook_default$'\1'$_cdm_hook_config ]]; then
    _cdm_hook_seen=${CDM_PROJECT+:$CDM_PROJECT}/${CDM_ACTIVE+:$CDM_ACTIVE}/${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}/${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}/${CDM_ROOT+:$CDM_ROOT}/${CDM_CONFIG+:$CDM_CONFIG}/${CDM_STATE+:$CDM_STATE}/${HOME+:$HOME}/${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}/${XDG_DATA_HOME+:$XDG_DATA_HOME}/${XDG_STATE_HOME+:$XDG_STATE_HOME}$'\5'${f#*$'\5'}
  fi
  return $rc
}
if [[ ";${PROMPT_COMMAND[*]:-};" != *";_cdm_hook;"* ]]; then
  if [[ "$(declare -p PROMPT_COMMAND 2>&1)" == "declare -a"* ]]; then
    PROMPT_COMMAND=(_cdm_hook "${PROMPT_COMMAND[@]}")
  else
    PROMPT_COMMAND="_cdm_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  fi
fi
_cdm_hook_name='cuda_link'
_cdm_hook_default='@SCRATCH@/home/.local/share/cdm/default'
_cdm_hook_config='@SCRATCH@/config.ini'
