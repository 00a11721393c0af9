# cmd activation whatever the console's code page, under Wine with junctions: cmd reads a
# program's output and its batch files in the console's code page (Wine 8's cmd in the
# system's OEM code page, which follows the locale: 437, 850, 866, 932), not in UTF-8. For
# a user name, store and project path in Latin, Cyrillic and CJK letters, each under a
# locale whose code page holds them, cdm.exe's own `activate --shell cmd` text is run by
# Wine's cmd, and a program started from that shell (tests/win/show_env.c) prints
# CUDA_PATH, CUDNN_PATH and PATH's first entry as UTF-16 code units and opens
# cudnn64_9.dll found through PATH. A letter the code page cannot carry is refused, with
# nothing written for cmd to run.
. "$TESTS_DIR/win/lib.sh"

if ! junctions_work; then
  skip "cmd activation under any code page" \
    "junctions cannot be made here (stock Wine 8), so no project can be activated"
  done_testing
  exit
fi
# Wine takes its code pages from the locale's name, but reads Unix names in the locale's
# character set, which glibc knows only for a locale it has: each is compiled into the
# scratch folder (localedef, no root), found through LOCPATH.
# (localedef itself refuses to run with LOCPATH set, and makes no parent folder)
mkdir -p "$SCRATCH/locales"
for locale in en_US de_DE ru_RU ja_JP; do
  env -u LOCPATH localedef -i "$locale" -f UTF-8 "$SCRATCH/locales/$locale.UTF-8" >/dev/null 2>&1 ||
    { skip_tool "cmd activation under code pages" "localedef could not compile $locale.UTF-8 (the locales package)"; done_testing; exit; }
done
export LOCPATH=$SCRATCH/locales
units() { python3 -c 'import sys; print(" ".join("%04X" % ord(c) for c in sys.argv[1]))' "$1"; }

# case LOCALE CODE_PAGE NAME: a store and a project under a folder named NAME, activated in
# cmd under LOCALE (Wine's OEM code page CODE_PAGE); what the program saw is checked.
case_of() {
  local locale=$1 cp=$2 name=$3 home store proj seen link
  home=$SCRATCH/$cp/$name
  store=$home/store
  proj="$home/p $name"
  mkdir -p "$proj"
  export LC_ALL=$locale
  CDM_ROOT=$(wpath "$store") run_cdm install "$(wpath "$(fixture cudnn-windows-x86_64-9.1.0.70_cuda12-archive.zip)")"
  expect_rc 0 "[$cp] 9.1 installs into a store under '$name'"
  CDM_ROOT=$(wpath "$store") run_cdm link "$(wpath "$proj")" 9.1.0.70
  expect_rc 0 "[$cp] a project under '$name' links"
  CDM_ROOT=$(wpath "$store") WINEDEBUG=-all "$WINE" "$CDM_EXE" activate --shell cmd -- "$(wpath "$proj")" \
    >"$SCRATCH/act-$cp.cmd" 2>"$SCRATCH/act-$cp.err"
  check "[$cp] cdm.exe activate --shell cmd writes the text (status 0)" test $? -eq 0 -a -s "$SCRATCH/act-$cp.cmd"
  check "[$cp] in code page $cp, not UTF-8: it is not valid UTF-8 there" \
    sh -c '! iconv -f UTF-8 -t UTF-16LE "$1" >/dev/null 2>&1 || [ "$2" = 65001 ]' _ "$SCRATCH/act-$cp.cmd" "$cp"
  printf '@call "%s"\r\n@"%s"\r\n' "$(wpath "$SCRATCH/act-$cp.cmd")" "$(wpath "$SHOW_ENV")" >"$SCRATCH/run-$cp.cmd"
  seen=$("$WINE" cmd /c "$(wpath "$SCRATCH/run-$cp.cmd")" 2>/dev/null | tr -d '\r')
  link="$(wpath "$proj")\\cuda_link"
  check "[$cp] the program sees CUDA_PATH as the project's link, every letter intact" \
    sh -c 'printf "%s\n" "$1" | grep -qx "CUDA_PATH: $2"' _ "$seen" "$(units "$link")"
  check "[$cp] and CUDNN_PATH, and PATH's first entry the link's bin" \
    sh -c 'printf "%s\n" "$1" | grep -qx "CUDNN_PATH: $2" && printf "%s\n" "$1" | grep -qx "PATH\[0\]: $3"' \
    _ "$seen" "$(units "$link")" "$(units "$link\\bin")"
  check "[$cp] cudnn64_9.dll is found through PATH in the project's link, and opens" \
    sh -c 'printf "%s\n" "$1" | grep -qx "found: $2" && printf "%s\n" "$1" | grep -qx "opened: yes"' \
    _ "$seen" "$(units "$link\\bin\\cudnn64_9.dll")"
  printf '%s\n' "$seen" | grep -q '^CUDA_PATH' || diag "the program saw: $seen"
  unset LC_ALL
}
case_of en_US.UTF-8 437 $'Jos\xc3\xa9'
case_of de_DE.UTF-8 850 $'M\xc3\xbcller Fran\xc3\xa7ois'
case_of ru_RU.UTF-8 866 $'\xd0\x96\xd1\x83\xd0\xba'
case_of ja_JP.UTF-8 932 $'\xe6\x97\xa5\xe6\x9c\xac'

# A letter code page 437 has no place for: refused, naming the variable, the code page and
# what to do; nothing on stdout for cmd to run.
P=$SCRATCH/866/$'\xd0\x96\xd1\x83\xd0\xba'
export LC_ALL=en_US.UTF-8
CDM_ROOT=$(wpath "$P/store") run_cdm activate --shell cmd -- "$(wpath "$P/p "$'\xd0\x96\xd1\x83\xd0\xba')"
unset LC_ALL
check "a Cyrillic path under code page 437 is refused (status 1), nothing written" test "$RC" -eq 1 -a -z "$OUT"
check "saying which variable, which code page, and what to do" \
  sh -c 'printf "%s" "$1" | grep -q "cannot write [A-Z_]* for cmd: .*code page 437 .*chcp 65001.*--shell pwsh"' _ "$ERR"
done_testing
