# cdm: switch cuDNN with the working folder.
# In ~/.config/fish/config.fish: cdm hook fish | source
function __cdm_hook --on-variable PWD --description 'cdm: follow the working folder'
    command cdm activate --auto --shell fish | source
end
function __cdm_hook_prompt --on-event fish_prompt --description 'cdm: follow the link'
    command cdm activate --auto --quiet --shell fish | source
end
__cdm_hook
