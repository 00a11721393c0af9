# cdm.exe needs nothing but Windows' own DLLs: no libgcc, libwinpthread, zlib1, sqlite3
# or libarchive DLL to ship beside it.
. "$TESTS_DIR/cli/lib.sh"

system_dll() {
  # shellcheck disable=SC2018,SC2019 # DLL names are ASCII
  case $(printf '%s' "$1" | tr 'A-Z' 'a-z') in
    kernel32.dll | msvcrt.dll | ucrtbase.dll | api-ms-win-*.dll | advapi32.dll | bcrypt.dll | \
      user32.dll | shell32.dll | ole32.dll | ntdll.dll | ws2_32.dll | winhttp.dll | \
      crypt32.dll | rstrtmgr.dll) return 0 ;;
    *) return 1 ;;
  esac
}

dlls=$("$OBJDUMP" -p "$CDM_EXE" | sed -n 's/^[[:space:]]*DLL Name: //p')
check "objdump reads cdm.exe's import table" test -n "$dlls"
# shellcheck disable=SC2086,SC2116 # echo joins the names, one a line, on one line
diag "cdm.exe imports: $(echo $dlls)"
foreign=
for d in $dlls; do system_dll "$d" || foreign="$foreign $d"; done
check "every imported DLL is a system DLL${foreign:+ (not:$foreign)}" test -z "$foreign"
check "SHA-256 comes from bcrypt.dll" sh -c 'printf "%s\n" "$1" | grep -qix bcrypt.dll' _ "$dlls"
check "downloads go through winhttp.dll (no TLS library is shipped)" \
  sh -c 'printf "%s\n" "$1" | grep -qix winhttp.dll' _ "$dlls"

done_testing
