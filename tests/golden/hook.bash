# cdm: switch cuDNN with the working folder. In ~/.bashrc: eval "$(cdm hook bash)"
# Before each prompt the shell checks, with builtins alone, what `cdm activate --auto`
# decides from: cdm's variables, the folders from here up to the nearest link (links, the
# text of pin files), where that link leads, the config's text and, outside projects, the
# default's. cdm starts only when one differs. bash copies a function's whole body at each
# call, and a test, a local or a command costs about what the file system's answer costs:
# so the check is one short function with few of each, and the rest is called only when
# something differs.
_cdm_hook() {
  local rc=$? q=--quiet dir=${_cdm_hook_dir-} d r f t
  [[ ${_CDM_HOOK_PWD-} == "$PWD" && $dir && ($PWD == "$dir" || . -ef $dir) ]] || _cdm_hook_where
  # The folders from here up, as cdm walks them from its real path: by ../ from here, which
  # is that path and a shorter one for the file system to follow; d names them in f.
  d=$dir r= f=${CDM_PROJECT+:$CDM_PROJECT}/${CDM_ACTIVE+:$CDM_ACTIVE}/${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}/${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}/${CDM_ROOT+:$CDM_ROOT}/${CDM_CONFIG+:$CDM_CONFIG}/${CDM_STATE+:$CDM_STATE}/${HOME+:$HOME}/${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}/${XDG_DATA_HOME+:$XDG_DATA_HOME}/${XDG_STATE_HOME+:$XDG_STATE_HOME}$'\5'${_cdm_hook_name-}
  while :; do # as cdm looks: a link first, then a pin file; one test per empty folder
    while [[ $d && ! -L $r$_cdm_hook_name && ! -f $r.cudnn-version ]]; do d=${d%/*} r+=../; done
    [[ -L $r$_cdm_hook_name ]] && { f+=$'\1'$d; break; }
    [[ -f $r.cudnn-version ]] && { t=; IFS= read -r -d '' -n 4096 t <"$r.cudnn-version"; f+=$'\2'$d$'\3'$t; }
    [[ $d ]] || break
    d=${d%/*} r+=../
  done
  # the default's text outside projects (d is empty then), the config's; - for no regular
  # file (nothing that could block is read), and an empty one is not opened
  t=-
  [[ ! $d && ${_cdm_hook_default-} == /* && -f $_cdm_hook_default ]] &&
    { t=; [[ -s $_cdm_hook_default ]] && IFS= read -r -d '' -n 65536 t <"$_cdm_hook_default"; }
  f+=$'\4'$t t=-
  [[ ${_cdm_hook_config-} == /* && -f $_cdm_hook_config ]] &&
    { t=; [[ -s $_cdm_hook_config ]] && IFS= read -r -d '' -n 65536 t <"$_cdm_hook_config"; }
  f+=$'\4'$t
  [[ $q && $f == "${_cdm_hook_seen-}" && (-z ${_cdm_hook_target-} || $_cdm_hook_link -ef $_cdm_hook_target) ]] ||
    _cdm_hook_run
  return $rc
}
# A new folder (cdm then runs without --quiet), or one cdm did not name: walk from its real
# path, as cdm (getcwd) does, so that its answer is for the same path.
_cdm_hook_where() {
  [[ ${_CDM_HOOK_PWD-} == "$PWD" ]] || { _CDM_HOOK_PWD=$PWD q=; }
  local d=$PWD
  dir=$PWD
  while [[ $d && ! -L $d ]]; do d=${d%/*}; done
  [[ $d || $PWD == //* ]] && { dir=$(builtin pwd -P 2>/dev/null) || dir=$PWD; }
}
_cdm_hook_run() {
  local used=$dir$'\1'${_cdm_hook_name-}$'\1'${_cdm_hook_default-}$'\1'${_cdm_hook_config-}
  _cdm_hook_dir= _cdm_hook_seen=
  eval "$(command cdm activate --hook-state $q --shell bash)"
  # What was read before cdm decided stands for its decision only where cdm read the same,
  # with cdm's variables as it left them.
  if [[ $_cdm_hook_dir && $used == "$_cdm_hook_dir"$'\1'$_cdm_hook_name$'\1'$_cdm_hook_default$'\1'$_cdm_hook_config ]]; then
    _cdm_hook_seen=${CDM_PROJECT+:$CDM_PROJECT}/${CDM_ACTIVE+:$CDM_ACTIVE}/${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}/${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}/${CDM_ROOT+:$CDM_ROOT}/${CDM_CONFIG+:$CDM_CONFIG}/${CDM_STATE+:$CDM_STATE}/${HOME+:$HOME}/${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}/${XDG_DATA_HOME+:$XDG_DATA_HOME}/${XDG_STATE_HOME+:$XDG_STATE_HOME}$'\5'${f#*$'\5'}
  fi
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
