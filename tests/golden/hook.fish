# cdm: switch cuDNN with the working folder.
# In ~/.config/fish/config.fish: cdm hook fish | source
# Before each prompt the shell checks, with builtins alone, what `cdm activate --auto`
# decides from: the folders from here up (links, pin files), the active link's target, the
# default's and the config's files, cdm's variables. cdm starts only when one differs.
function __cdm_hook_file --argument-names file
    # what a file holds: a regular file's first 4096 characters
    set -l text -
    if test -f "$file"
        set text ''
        read -z -n 4096 text <$file
    end
    set -ga __cdm_hook_f (string escape -- $file $text)
end
function __cdm_hook_env
    set -g __cdm_hook_e
    for n in CDM_PROJECT CDM_ACTIVE CDM_PATH_ENTRY CDM_SAVED_CUDA_HOME CDM_ROOT CDM_CONFIG \
            CDM_STATE HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME
        set -q $n; and set -a __cdm_hook_e (string escape -- ":$$n"); or set -a __cdm_hook_e -
    end
end
function __cdm_hook_facts --argument-names d
    set -g __cdm_hook_f (string escape -- "$_cdm_hook_name")
    while true
        __cdm_hook_file $d/.cudnn-version
        if test -L "$d/$_cdm_hook_name"
            set -a __cdm_hook_f L
            break
        end
        test "$d" = /; and break
        set d (string replace -r '/[^/]*$' '' -- $d)
        test -n "$d"; or set d /
    end
    __cdm_hook_file "$_cdm_hook_default"
    __cdm_hook_file "$_cdm_hook_config"
end
function __cdm_hook --on-variable PWD --on-event fish_prompt --description 'cdm: follow the folder and the link'
    set -l quiet --quiet
    if test "$__cdm_hook_pwd" != "$PWD"
        set -g __cdm_hook_pwd $PWD
        set quiet
    end
    set -l dir "$_cdm_hook_dir"
    if test -z "$quiet"; or test -z "$dir"; or not test "$PWD" -ef "$dir"
        # cdm decides from the real path (getcwd): walk the folders it walks
        set dir (builtin realpath . 2>/dev/null)
        test -n "$dir"; or set dir $PWD
    end
    __cdm_hook_env
    __cdm_hook_facts $dir
    if test -n "$quiet"; and test "$__cdm_hook_e / $__cdm_hook_f" = "$__cdm_hook_seen"
        if test -z "$_cdm_hook_target"; or test "$_cdm_hook_link" -ef "$_cdm_hook_target"
            return 0
        end
    end
    set -l seen "$__cdm_hook_f"
    set -l used (string escape -- $dir "$_cdm_hook_name" "$_cdm_hook_default" "$_cdm_hook_config")
    set -g _cdm_hook_dir
    set -g __cdm_hook_seen
    command cdm activate --hook-state $quiet --shell fish | source
    # What was read before cdm decided stands for its decision only where cdm read the same.
    set -l now (string escape -- "$_cdm_hook_dir" "$_cdm_hook_name" "$_cdm_hook_default" "$_cdm_hook_config")
    if test -n "$_cdm_hook_dir"; and test "$used" = "$now"
        __cdm_hook_env
        set -g __cdm_hook_seen "$__cdm_hook_e / $seen"
    end
end
set -g _cdm_hook_name 'cuda_link'
set -g _cdm_hook_default '@SCRATCH@/home/.local/share/cdm/default'
set -g _cdm_hook_config '@SCRATCH@/config.ini'
__cdm_hook
