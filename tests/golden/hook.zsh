# cdm: switch cuDNN with the working folder. In ~/.zshrc: eval "$(cdm hook zsh)"
# Before each prompt the shell checks, with builtins alone, what `cdm activate --auto`
# decides from: cdm's variables, the folders from here up to the nearest link (links, the
# text of pin files), where that link leads, the config's text and, outside projects, the
# default's. cdm starts only when one differs. bash copies a function's whole body at each
# call, and a test, a local, a loop's turn or a command costs about what the file system's
# answer costs: so each time cdm has run, the walk up to the link is written out as one
# test of those folders by ../ from here (_cdm_hook_same), and the prompt runs that alone;
# the walk (_cdm_hook_walk) runs only when something differs.
_cdm_hook() {
  local rc=$?
  _cdm_hook_same || _cdm_hook_walk
  return $rc
}
_cdm_hook_same() { return 1; }
# The texts _cdm_hook_same compares after its test: FILE TEXT N..., each a regular file.
_cdm_hook_read() {
  local t
  while (($#)); do t=; read -r -k "$3" -u 0 t <"$1"; [[ $t == "$2" ]] || return; shift 3; done
}
# The folders from here up, as cdm walks them from its real path: by ../ from here, which
# is that path and a shorter one for the file system to follow; d names them. Each fact
# read is added to s as a test (and each text to x): as cdm looks, a link first, then a pin
# file; up to the link, or the top, and then the default's file; and the config's.
_cdm_hook_walk() {
  local q=--quiet dir=${_cdm_hook_dir-} d r=./ l= t s= x=()
  [[ ${_CDM_HOOK_PWD-} == "$PWD" && $dir && ($PWD == "$dir" || . -ef $dir) ]] || _cdm_hook_where
  d=$dir
  while :; do
    while [[ $d && ! -L $r$_cdm_hook_name && ! -f $r.cudnn-version ]]; do
      s+=" && ! -L $r\$_cdm_hook_name && ! -f $r.cudnn-version" d=${d%/*} r=${r#./}../
    done
    [[ -L $r$_cdm_hook_name ]] && { l=$r; break; }
    s+=" && ! -L $r\$_cdm_hook_name"
    _cdm_hook_file "$r.cudnn-version" "$r.cudnn-version" 4096
    [[ $d ]] || break
    d=${d%/*} r=${r#./}../
  done
  [[ $d || ${_cdm_hook_default-} != /* ]] || _cdm_hook_file '$_cdm_hook_default' "$_cdm_hook_default" 65536
  [[ ${_cdm_hook_config-} != /* ]] || _cdm_hook_file '$_cdm_hook_config' "$_cdm_hook_config" 65536
  _cdm_hook_run
}
# CODE FILE N: whether FILE is a regular file (nothing that could block is read), empty
# (then not opened), and its first N characters, as a test of CODE and a text.
_cdm_hook_file() {
  if [[ -f $2 ]]; then
    if [[ -s $2 ]]; then
      t=; read -r -k "$3" -u 0 t <"$2"; s+=" && -s $1 && -f $1" x+=("$2" "$t" "$3")
    else s+=" && -f $1 && ! -s $1"; fi
  else s+=" && ! -f $1"; fi
}
# A new folder (cdm then runs without --quiet), or one cdm did not name: walk from its real
# path, as cdm (getcwd) does, so that its answer is for the same path.
_cdm_hook_where() {
  [[ ${_CDM_HOOK_PWD-} == "$PWD" ]] || { _CDM_HOOK_PWD=$PWD q=; }
  dir=${PWD:A}
}
# What was read before cdm decided stands for its decision only where cdm read the same,
# with cdm's variables as it left them: then _cdm_hook_same tests it, here, in this folder
# (by the path cdm named), and that the link cdm read still leads where it led.
_cdm_hook_run() {
  local used=$dir$'\1'${_cdm_hook_name-}$'\1'${_cdm_hook_default-}$'\1'${_cdm_hook_config-}
  _cdm_hook_dir= _cdm_hook_texts=()
  _cdm_hook_same() { return 1; }
  eval "$(command cdm activate --hook-state $q --shell zsh)"
  [[ $_cdm_hook_dir && $used == "$_cdm_hook_dir"$'\1'$_cdm_hook_name$'\1'$_cdm_hook_default$'\1'$_cdm_hook_config ]] || return
  _cdm_hook_seen=${CDM_PROJECT+:$CDM_PROJECT}/${CDM_ACTIVE+:$CDM_ACTIVE}/${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}/${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}/${CDM_ROOT+:$CDM_ROOT}/${CDM_CONFIG+:$CDM_CONFIG}/${CDM_STATE+:$CDM_STATE}/${HOME+:$HOME}/${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}/${XDG_DATA_HOME+:$XDG_DATA_HOME}/${XDG_STATE_HOME+:$XDG_STATE_HOME}
  [[ $PWD == "$dir" ]] || s=' && . -ef $_cdm_hook_dir'$s
  if [[ $l && $_cdm_hook_target && $_cdm_hook_link == "$d/$_cdm_hook_name" ]]; then
    s+=" && $l\$_cdm_hook_name -ef \$_cdm_hook_target"
  else
    [[ $l ]] && s+=" && -L $l\$_cdm_hook_name"
    [[ $_cdm_hook_target ]] && s+=' && $_cdm_hook_link -ef $_cdm_hook_target'
  fi
  _cdm_hook_texts=("${x[@]}")
  ((${#x[@]})) && s+=' ]] && _cdm_hook_read "${_cdm_hook_texts[@]}"' || s+=' ]]'
  eval '_cdm_hook_same() { [[ $PWD == "$_CDM_HOOK_PWD" && ${CDM_PROJECT+:$CDM_PROJECT}/${CDM_ACTIVE+:$CDM_ACTIVE}/${CDM_PATH_ENTRY+:$CDM_PATH_ENTRY}/${CDM_SAVED_CUDA_HOME+:$CDM_SAVED_CUDA_HOME}/${CDM_ROOT+:$CDM_ROOT}/${CDM_CONFIG+:$CDM_CONFIG}/${CDM_STATE+:$CDM_STATE}/${HOME+:$HOME}/${XDG_CONFIG_HOME+:$XDG_CONFIG_HOME}/${XDG_DATA_HOME+:$XDG_DATA_HOME}/${XDG_STATE_HOME+:$XDG_STATE_HOME} == "$_cdm_hook_seen"'"$s; }"
}
typeset -ag precmd_functions chpwd_functions
if (( ! ${precmd_functions[(I)_cdm_hook]} )); then
  precmd_functions=(_cdm_hook $precmd_functions)
fi
if (( ! ${chpwd_functions[(I)_cdm_hook]} )); then
  chpwd_functions=(_cdm_hook $chpwd_functions)
fi
_cdm_hook_name='cuda_link'
_cdm_hook_default='@SCRATCH@/home/.local/share/cdm/default'
_cdm_hook_config='@SCRATCH@/config.ini'
