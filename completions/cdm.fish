# fish completion for cdm. Candidates come from `cdm complete`, which reads cdm's own
# command table and the store's index; an empty answer falls back to file names.
function __cdm_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l current (commandline -ct)
    set -l out (command cdm complete --current="$current" -- $words 2>/dev/null)
    if test (count $out) -gt 0
        printf '%s\n' $out
    else
        __fish_complete_path $current
    end
end
complete -c cdm -f -a '(__cdm_complete)'
