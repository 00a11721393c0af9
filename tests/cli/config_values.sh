# Every value of the configuration is checked where it is read: link names that no
# platform could hold, sizes that overflow or say nothing, lines as long as a Windows long
# path; and paths are written as a user would (~, ${VAR}, relative to the file, comments
# after values and on continuation lines, as the example of docs/configuration.md has
# them).
. "$TESTS_DIR/cli/lib.sh" || exit 1

a=$(fixture cudnn-linux-x86_64-9.1.0.70_cuda12-archive.tar.xz)
id=9.1.0.70-cuda12
mkdir -p "$SCRATCH/proj"
unset CDM_ROOT # the config's root is under test

# ---- [link] name: a plain file name on every platform ---------------------------------
for name in CON nul NUL.txt com1 LPT9.log 'Aux .txt' 'link.' 'link ' . .. .cudnn-version \
  'a/b' 'a\b' 'a:b' 'a*b' 'a|b'; do
  printf '[link]\nname = %s\n' "$name" >"$CDM_CONFIG"
  # a trailing space would be trimmed by the reader: keep it with a comment after it
  [ "$name" = 'link ' ] && printf '[link]\nname = link \037\n' >"$CDM_CONFIG"
  run_cdm which "$SCRATCH/proj"
  if [ "$RC" -eq 1 ] && printf '%s' "$ERR" | grep -q "line 2: \[link\] name = .*cuda_link"; then
    ok "[link] name '$name' is refused, naming the line and the key"
  else
    not_ok "[link] name '$name' is refused, naming the line and the key (status $RC)"
    diag "$ERR"
  fi
done
printf '[link]\nname = CON\n' >"$CDM_CONFIG"
run_cdm which "$SCRATCH/proj"
expect_err "it is a device name on Windows" "and saying why"
for name in cuda_link CONSOLE com10 my.link NULL; do
  printf '[link]\nname = %s\n' "$name" >"$CDM_CONFIG"
  run_cdm list
  expect_rc 0 "[link] name '$name' is a plain file name"
done
: >"$CDM_CONFIG"
run_cdm install "$a"
run_cdm link "$SCRATCH/proj" "$id" --name 'COM3.dll'
expect_rc 2 "cdm link --name refuses a device name too (a usage error)"
expect_err "'COM3.dll' cannot name a link: it is a device name on Windows" "saying why"

# ---- sizes ----------------------------------------------------------------------------
size_case() { # KEY VALUE WHY
  printf '[install]\n%s = %s\n' "$1" "$2" >"$CDM_CONFIG"
  run_cdm list
  expect_rc 1 "$1 = $2 is refused"
  expect_err "line 2: \\[install\\] $1 = '$2': $3" "naming the line and the key: $3"
}
size_case max_size -1 "a size cannot be negative"
size_case max_size 0 "zero would refuse every archive"
size_case max_entries 0G "zero would refuse every archive"
size_case max_size 18446744073709551616 "too large"
size_case max_size 17179869184G "too large"
size_case max_entries 16E "too large"
size_case max_size 16X "not a size"
size_case max_size 5.5G "not a size"
size_case thread_memory 0 "give a size such as 224M \\(threads = 1 decodes on one thread\\)"
size_case thread_memory 1Q "not a size"
printf '[install]\nthreads = lots\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "threads = lots is refused"
expect_err "line 2: \\[install\\] threads = 'lots': give a whole number of threads up to 1024 \\(0: one per core\\)" \
  "naming the line and the key"
printf '[install]\nmax_size = 18446744073709551615\nmax_entries = 15E\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 0 "the largest sizes are read"

# ---- long lines -----------------------------------------------------------------------
long=/$(head -c 32766 /dev/zero | tr '\0' x)
printf '[install]\nsources = %s\n' "$long" >"$CDM_CONFIG"
run_cdm list
expect_rc 0 "a value of 32,767 characters (a Windows long path) is read"
{ printf '[install]\n; '; head -c 2000000 /dev/zero | tr '\0' x; printf '\nmax_size = 1G\n'; } >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "a line of 2 MB is refused"
expect_err "at line 2" "naming its line"

# ---- paths as a user writes them --------------------------------------------------------
printf '[store]\nroot = ~/tilde-store\n' >"$CDM_CONFIG"
run_cdm install "$a"
check "root = ~/... is in the home folder" test -d "$HOME/tilde-store/$id"
printf '[store]\nroot = ${CDM_TEST_BASE}/var-store\n' >"$CDM_CONFIG"
CDM_TEST_BASE=$SCRATCH/base run_cdm install "$a"
check "root = \${VAR}/... takes the variable" test -d "$SCRATCH/base/var-store/$id"
env -u CDM_TEST_BASE "$CDM" list >/dev/null 2>"$SCRATCH/stderr"
RC=$? ERR=$(cat "$SCRATCH/stderr")
expect_rc 1 "an unset variable is an error"
expect_err "line 2: \\[store\\] root = '\\\$\\{CDM_TEST_BASE\\}/var-store': \\\$\\{CDM_TEST_BASE\\} is not set" "naming it"
mkdir -p "$SCRATCH/cfg" "$SCRATCH/elsewhere"
printf '[store]\nroot = rel-store\n' >"$SCRATCH/cfg/config.ini"
(cd "$SCRATCH/elsewhere" && "$CDM" --config ../cfg/config.ini install "$a" >/dev/null 2>&1)
check "a relative root starts at the config file's folder, not the current one" \
  test -d "$SCRATCH/cfg/rel-store/$id"

# The example of docs/configuration.md, with its comments, as written (paths moved into the
# scratch folder).
mkdir -p "$SCRATCH/data/downloads" "$SCRATCH/mnt/share/nvidia"
cp "$a" "$SCRATCH/mnt/share/nvidia/"
cat >"$CDM_CONFIG" <<EOF
[store]
root = $SCRATCH/data/cudnn            ; else CDM_ROOT, else \${XDG_DATA_HOME:-~/.local/share}/cdm

[install]
sources = $SCRATCH/data/downloads     ; one folder per line: indent continuation lines,
    $SCRATCH/mnt/share/nvidia         ; or repeat the key
max_size = 16G
max_entries = 100000                  # a comment after '#' too

[link]
name = cuda_link

[activate]
build_paths = false           ; true: CMAKE_PREFIX_PATH, CPATH, LIBRARY_PATH too
redirect = false              ; true (Linux): every cuDNN load from the install, LD_AUDIT

[windows]
retry_seconds = 60            ; how long a rename or delete waits for a program holding the
                              ;   file open (an antivirus scanner); 0: fail at once
EOF
run_cdm install 9.1
expect_rc 0 "the config of docs/configuration.md works as written: a version found in the continued sources line"
check "in the root it names, the comment cut off" test -d "$SCRATCH/data/cudnn/$id"


# [windows] retry_seconds: whole seconds, 0 to 3600, read on every platform (a config may be
# shared), used by Windows alone
for v in -1 3601 soon 1.5; do
  printf '[windows]\nretry_seconds = %s\n' "$v" >"$CDM_CONFIG"
  run_cdm list
  expect_rc 1 "[windows] retry_seconds = $v is refused"
  expect_err "line 2: \[windows\] retry_seconds = '$v': give a whole number of seconds up to 3600" \
    "naming the line and what to give"
done
printf '[windows]\nretry_seconds = 0\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 0 "[windows] retry_seconds = 0 is read"

# [activate]: a yes or no, anything else named with its file and line
printf '[activate]\nbuild_paths = yes\nredirect = maybe\n' >"$CDM_CONFIG"
run_cdm list
expect_rc 1 "[activate] redirect = maybe is refused"
expect_err "config '.*config.ini' line 3: \[activate\] redirect = 'maybe': give true or false" \
  "naming the file, the line, the key and what to give"
: >"$CDM_CONFIG"

done_testing
