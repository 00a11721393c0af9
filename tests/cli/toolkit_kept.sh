# Activation never hides a CUDA toolkit: a project whose link records none gets, in
# CUDA_PATH and CUDA_HOME, a view of the toolkit the user's environment named with the
# project's cuDNN on top; where no view can be made, the named toolkit stays as it was;
# deactivation gives the old values back; the doctor fails a CUDA_PATH that lost its toolkit.
. "$TESTS_DIR/cli/lib.sh" || exit 1
. "$TESTS_DIR/cli/lib_toolkit.sh" || exit 1

TK12=$SCRATCH/cuda-12.4
TK11=$SCRATCH/cuda-11.8
make_toolkit "$TK12" 12.4.1 json
make_toolkit "$TK11" 11.8.89 txt
toolkit_files() { (cd "$1" && find . -printf '%p %y %s %T@\n' | sort | sha256sum); }
tk12_before=$(toolkit_files "$TK12")
run_cdm install "$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)"
run_cdm install "$(fixture cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz)"
A=9.1.0.70-cuda12
P=$SCRATCH/p
mkdir -p "$P"
run_cdm link "$P" 9.1
expect_rc 0 "link without --toolkit"
L=$P/cuda_link

# Activate in P with the variables given (NAME=VALUE..., the others of CUDA_* unset), print
# the toolkit's variables, then deactivate and print them again.
activate_with() {
  (cd "$P" && env -u CUDA_PATH -u CUDA_HOME "$@" PATH=/usr/bin:/bin bash -c '
    eval "$("$CDM" activate --shell bash)" || exit 1
    printf "%s\n" "$CUDA_PATH" "$CUDA_HOME" "$CUDNN_PATH" "$(command -v nvcc)" "${LD_LIBRARY_PATH%%:*}"
    eval "$("$CDM" deactivate --shell bash)"
    printf "%s\n" "${CUDA_PATH-unset}" "${CUDA_HOME-unset}" "$PATH" \
      "$(env | grep -cE "^CDM_(ACTIVE|PROJECT|PATH_ENTRY|BIN_ENTRY|SAVED_)")"')
}
line() { printf '%s\n' "$1" | sed -n "$2p"; }

# ---- CUDA_PATH names a toolkit ------------------------------------------------------------------
act=$(activate_with CUDA_PATH="$TK12")
view=$(line "$act" 1)
check "CUDA_PATH becomes a view of the toolkit in the store, made for shells" \
  sh -c 'case "$1" in "$2"/views/9.1.0.70-cuda12+cuda12.4.1-*.shell) exit 0 ;; esac; exit 1' _ "$view" "$CDM_ROOT"
check "nvcc is reached through CUDA_PATH/bin, and is first on PATH" \
  test "$(readlink -f "$view/bin/nvcc")" = "$TK12/bin/nvcc" -a "$(line "$act" 4)" = "$view/bin/nvcc"
check "the project's cuDNN is reached through CUDA_PATH's lib64 and include" \
  test "$(readlink -f "$view/lib64/libcudnn.so.9")" = "$(readlink -f "$CDM_ROOT/$A/lib/libcudnn.so.9")" -a \
  "$(readlink -f "$view/include/cudnn.h")" = "$CDM_ROOT/$A/include/cudnn.h"
check "and the toolkit's runtime too" \
  test "$(readlink -f "$view/lib64/libcudart.so")" = "$TK12/targets/x86_64-linux/lib/libcudart.so.12"
check "CUDA_HOME names the view too; CUDNN_PATH the project's link" \
  test "$(line "$act" 2)" = "$view" -a "$(line "$act" 3)" = "$L"
check "the loader's list starts with the link's lib folder (a later cdm link switches it)" \
  test "$(line "$act" 5)" = "$L/lib"
check "deactivate gives CUDA_PATH back, CUDA_HOME unset, PATH as it was, no CDM_ variable" \
  test "$(line "$act" 6)|$(line "$act" 7)|$(line "$act" 8)|$(line "$act" 9)" = "$TK12|unset|/usr/bin:/bin|0"
check "the toolkit was not written to" test "$(toolkit_files "$TK12")" = "$tk12_before"

act=$(activate_with CUDA_HOME="$TK12")
check "CUDA_HOME alone names the toolkit: the same view" \
  test "$(line "$act" 1)" = "$view" -a "$(line "$act" 2)" = "$view"
check "and deactivation unsets CUDA_PATH again, CUDA_HOME back" \
  test "$(line "$act" 6)|$(line "$act" 7)" = "unset|$TK12"

# ---- the prompt hook, a switch, activating twice -------------------------------------------------
hook=$(cd "$P" && env -u CUDA_HOME CUDA_PATH="$TK12" bash -c '
  eval "$("$CDM" activate --shell bash)" || exit 1
  echo "unchanged:[$("$CDM" activate --auto --shell bash)]"
  eval "$("$CDM" activate --shell bash)"
  echo "saved: $CDM_SAVED_CUDA_PATH"
  "$CDM" link . 9.3 >/dev/null 2>&1
  eval "$("$CDM" activate --auto --shell bash)"
  echo "after the switch: $CUDA_PATH"
  eval "$("$CDM" deactivate --shell bash)"
  echo "at last: $CUDA_PATH"')
check "the prompt hook has nothing to do while the view is active" \
  sh -c 'printf "%s" "$1" | grep -q "^unchanged:\[\]$"' _ "$hook"
check "activating twice keeps the user's own CUDA_PATH saved, not the view" \
  sh -c 'printf "%s" "$1" | grep -qx "saved: set:$2"' _ "$hook" "$TK12"
check "after cdm link to 9.3 the hook gives the view of 9.3 over the same toolkit" \
  sh -c 'printf "%s" "$1" | grep -Eq "^after the switch: $2/views/9\.3\.0\.75-cuda12\+cuda12\.4\.1-[0-9a-f]{8}\.shell$"' _ "$hook" "$CDM_ROOT"
check "and deactivation still gives the toolkit back" \
  sh -c 'printf "%s" "$1" | grep -qx "at last: $2"' _ "$hook" "$TK12"

# ---- where no view can be made, the named toolkit stays ----------------------------------------
run_cdm link "$P" 9.1
act=$(activate_with CUDA_PATH="$TK11" 2>"$SCRATCH/err")
check "a toolkit the tables rule out (11.8 for a cuda12 build) stays in CUDA_PATH" \
  test "$(line "$act" 1)|$(line "$act" 2)|$(line "$act" 3)" = "$TK11|$TK11|$L"
check "with a warning that says where the project's cuDNN is found" \
  grep -q "CUDA_PATH keeps the CUDA 11.8.89 toolkit '$TK11'.*LD_LIBRARY_PATH and CUDNN_PATH" "$SCRATCH/err"
check "the project's cuDNN still comes first on the loader's list" test "$(line "$act" 5)" = "$L/lib"
check "deactivation gives CUDA_PATH back" test "$(line "$act" 6)" = "$TK11"

TK12B=$SCRATCH/other/cuda-12.4
make_toolkit "$TK12B" 12.4.131 json
views_before=$(ls "$CDM_ROOT/views" | sort)
printf '[store]\nshared = read-only\n' >"$CDM_CONFIG"
act=$(activate_with CUDA_PATH="$TK12B" 2>"$SCRATCH/err")
: >"$CDM_CONFIG"
check "a store this shell may not write (shared read-only): the toolkit stays in CUDA_PATH" \
  test "$(line "$act" 1)|$(line "$act" 3)" = "$TK12B|$L"
check "saying why" grep -q "no view of it with $A could be made (the store .* is shared read-only)" "$SCRATCH/err"
check "and nothing was written to the store's views" test "$(ls "$CDM_ROOT/views" | sort)" = "$views_before"

# ---- cdm gc ---------------------------------------------------------------------------------------
run_cdm gc
check "gc keeps the shells' views while their install and toolkit are there" \
  test -d "$view" -a "$(ls "$CDM_ROOT/views" | grep -c '\.shell$')" = 2
run_cdm remove 9.3
expect_rc 0 "remove 9.3, which no project links"
run_cdm gc --verbose
check "gc removes the shells' view of an install that was removed" \
  test "$(ls "$CDM_ROOT/views" | grep -c '^9\.3.*\.shell$')" = 0 -a -d "$view"

# ---- the doctor ------------------------------------------------------------------------------------
status() { json "[c['status'] for c in d['checks'] if c['name'] == '$1'][0]"; }
(cd "$P" && env -u CUDA_HOME CUDA_PATH="$L" CDM_SAVED_CUDA_PATH="set:$TK12" "$CDM" doctor --json \
  >"$SCRATCH/doc.json" 2>/dev/null)
OUT=$(cat "$SCRATCH/doc.json")
check "the doctor fails a CUDA_PATH that lost its toolkit (an older activation's)" \
  test "$(status toolkit.cuda_path)" = fail
check "naming the toolkit hidden" \
  sh -c 'printf "%s" "$1" | grep -q "holds no CUDA toolkit, but .$2. is one"' _ "$OUT" "$TK12"
OUT=$(cd "$P" && env -u CUDA_HOME CUDA_PATH="$TK12" bash -c '
  eval "$("$CDM" activate --shell bash)" && "$CDM" doctor --json 2>/dev/null')
check "after this cdm's activation CUDA_PATH holds the toolkit" test "$(status toolkit.cuda_path)" = ok
check "and the doctor's toolkit is the view's" \
  test "$(json "[c['detail'] for c in d['checks'] if c['name'] == 'toolkit'][0]")" != "" -a "$(status toolkit)" = ok

# ---- the default, persisted for new sessions -------------------------------------------------------
# cdm default --persist writes CUDA_PATH for every new session: there too a toolkit the
# user's environment names is kept, through the view; --unpersist takes it out again.
envd=$HOME/.config/environment.d/60-cdm-default.conf
run_cdm default 9.1
(env -u CUDA_HOME CUDA_PATH="$TK12" "$CDM" default --persist >/dev/null 2>"$SCRATCH/err")
check "cdm default --persist with CUDA_PATH naming a toolkit" test $? -eq 0
pview=$(sed -n 's/^CUDA_PATH=//p' "$envd" 2>/dev/null)
check "environment.d's CUDA_PATH is the view of that toolkit with the default on top" \
  sh -c 'case "$1" in "$2"/views/9.1.0.70-cuda12+cuda12.4.1-*.shell) exit 0 ;; esac; exit 1' _ "$pview" "$CDM_ROOT"
check "whose bin holds nvcc" test "$(readlink -f "$pview/bin/nvcc")" = "$TK12/bin/nvcc"
check "CUDNN_PATH there stays the install's folder" grep -qx "CUDNN_PATH=$CDM_ROOT/$A" "$envd"
got=$(env -i HOME="$HOME" sh -c '. "$HOME/.profile"; printf "%s|%s" "$CUDA_PATH" "$CUDNN_PATH"')
check "a login shell gets the same" test "$got" = "$pview|$CDM_ROOT/$A"
run_cdm default --unpersist
check "--unpersist takes it out" test ! -e "$envd"
run_cdm default --unset

# ---- no toolkit named: one cdm finds here, when the tables allow it ---------------------------------
# The machine's own toolkits (/usr/local/cuda-*: a CUDA 13 one on the machines CI runs on) are
# looked for unless CDM_FIND_TOOLKIT or [activate] find_toolkit says not; a cuda13 build is
# used with a CUDA 13 toolkit, a cuda12 build is not.
run_cdm install "$(fixture cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz)"
run_cdm link "$P" 9.19
found=$(env -u CUDA_PATH -u CUDA_HOME -u CDM_FIND_TOOLKIT "$CDM" toolkits --json 2>/dev/null |
  python3 -c 'import json,sys; print(sum(t["version"].startswith("13.") for t in json.load(sys.stdin)))')
act=$(activate_with -u CDM_FIND_TOOLKIT)
if [ "$found" = 0 ]; then
  check "with no toolkit named and no CUDA 13 one here, CUDA_PATH is the link, CUDA_HOME untouched" \
    test "$(line "$act" 1)|$(line "$act" 2)" = "$L|"
else
  check "with none named, the CUDA 13 toolkit cdm finds here gives the view" \
    sh -c 'case "$1" in "$2"/views/9.19.0.56-cuda13+cuda13.*.shell) exit 0 ;; esac; exit 1' _ "$(line "$act" 1)" "$CDM_ROOT"
  check "its nvcc reached through CUDA_PATH/bin" test -x "$(line "$act" 1)/bin/nvcc"
fi
act=$(activate_with)
check "CDM_FIND_TOOLKIT=false: none is looked for, CUDA_PATH is the link" \
  test "$(line "$act" 1)|$(line "$act" 2)" = "$L|"
printf '[activate]\nfind_toolkit = false\n' >"$CDM_CONFIG"
act=$(activate_with -u CDM_FIND_TOOLKIT)
: >"$CDM_CONFIG"
check "[activate] find_toolkit = false: the same" test "$(line "$act" 1)|$(line "$act" 2)" = "$L|"
act=$(activate_with CUDA_PATH="$TK12")
check "but a toolkit CUDA_PATH names is still kept (9.19 cuda13 with 12.4: ruled out, stays as it was)" \
  test "$(line "$act" 1)" = "$TK12"
done_testing
