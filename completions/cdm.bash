# bash completion for cdm. Candidates come from `cdm complete`, which reads cdm's own
# command table and the store's index; an empty answer falls back to file names.
_cdm() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local IFS=$'\n'
  # shellcheck disable=SC2207 # IFS is a new line: one candidate a line
  COMPREPLY=($(command cdm complete --current="$cur" -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null))
}
complete -o default -o bashdefault -F _cdm cdm
