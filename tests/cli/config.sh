# The configuration file (INI): store root, link name, limits, errors and warnings.
. "$TESTS_DIR/cli/lib.sh"

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
unset CDM_ROOT

printf '[store]\nroot = %s\n' "$SCRATCH/from-config" >"$CDM_CONFIG"
run_cdm install "$a"
expect_rc 0 "install with [store] root from the config"
check "went to the config's root" test -d "$SCRATCH/from-config/9.1.0.70-cuda12"
CDM_ROOT=$SCRATCH/from-env run_cdm install "$a"
check "CDM_ROOT overrides the config" test -d "$SCRATCH/from-env/9.1.0.70-cuda12"
CDM_ROOT=$SCRATCH/from-env run_cdm --root "$SCRATCH/from-flag" install "$a"
check "--root overrides CDM_ROOT" test -d "$SCRATCH/from-flag/9.1.0.70-cuda12"
run_cdm install "$a" --root="$SCRATCH/from-flag2"
check "--root=DIR after the command works too" test -d "$SCRATCH/from-flag2/9.1.0.70-cuda12"

printf '[store]\nroot = %s\ncolour = blue\n[install]\nmax_size = 1G\n' "$SCRATCH/from-config" >"$CDM_CONFIG"
run_cdm list
expect_rc 0 "an unknown key is not fatal"
expect_err "warning: .*config.ini:3: unknown setting 'colour' in section \\[store\\]" \
  "but warned about with file and line"

printf '[store]\nroot = %s\nthis line is wrong\n' "$SCRATCH/from-config" >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "a malformed config is an error"
expect_err "config '.*config.ini' at line 3" "naming the file and the line"

printf '[install]\nmax_size = lots\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "a bad size is an error"
expect_err "line 2: \\[install\\] max_size = 'lots': not a size" "naming the line and the value"

mkdir -p "$SCRATCH/proj"
printf '[link]\nname = sub/link\n' >"$CDM_CONFIG"
run_cdm which "$SCRATCH/proj"
expect_rc 1 "a [link] name that is no plain file name is an error"
expect_err "config '.*config.ini' line 2: \\[link\\] name = 'sub/link': it holds a path separator" "naming the file, the line and the value"
long=$(printf 'x%.0s' $(seq 300))
printf '[link]\nname = %s\n' "$long" >"$CDM_CONFIG"
run_cdm which "$SCRATCH/proj"
expect_rc 1 "so is one too long for a file name (it was cut short before)"

run_cdm --config "$SCRATCH/missing.ini" list
expect_rc 1 "--config naming a missing file is an error"
expect_err "cannot read config '.*missing.ini'" "naming it"

# Without CDM_CONFIG the per-user file is read: ${XDG_CONFIG_HOME:-~/.config}/cdm/config.ini
unset CDM_CONFIG
mkdir -p "$HOME/.config/cdm"
printf '[store]\nroot = %s\n' "$SCRATCH/from-home" >"$HOME/.config/cdm/config.ini"
run_cdm install "$a"
# shellcheck disable=SC2088 # the ~ is text, in the check's name
check "~/.config/cdm/config.ini is the default" test -d "$SCRATCH/from-home/9.1.0.70-cuda12"
mkdir -p "$SCRATCH/xdg/cdm"
printf '[store]\nroot = %s\n' "$SCRATCH/from-xdg" >"$SCRATCH/xdg/cdm/config.ini"
XDG_CONFIG_HOME=$SCRATCH/xdg run_cdm install "$a"
check "XDG_CONFIG_HOME is honoured" test -d "$SCRATCH/from-xdg/9.1.0.70-cuda12"
rm "$HOME/.config/cdm/config.ini"
run_cdm install "$a"
check "no config at all: the default root \${XDG_DATA_HOME:-~/.local/share}/cdm" \
  test -d "$HOME/.local/share/cdm/9.1.0.70-cuda12"

done_testing
