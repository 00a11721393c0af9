# cdm: switch cuDNN with the working folder. In ~/.bashrc: eval "$(cdm hook bash)"
_cdm_hook() {
  local status=$? quiet=--quiet
  if [[ "${_CDM_HOOK_PWD-}" != "$PWD" ]]; then
    _CDM_HOOK_PWD=$PWD
    quiet=
  fi
  eval "$(command cdm activate --auto $quiet --shell bash)"
  return $status
}
if [[ ";${PROMPT_COMMAND[*]:-};" != *";_cdm_hook;"* ]]; then
  if [[ "$(declare -p PROMPT_COMMAND 2>&1)" == "declare -a"* ]]; then
    PROMPT_COMMAND=(_cdm_hook "${PROMPT_COMMAND[@]}")
  else
    PROMPT_COMMAND="_cdm_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  fi
fi
