# cdm toolkits under Wine: CUDA_PATH, the CUDA_PATH_V*_* variables NVIDIA's installer sets,
# and the registry keys it writes (HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing
# Toolkit\CUDA\v*, value InstallDir), in Wine's registry.
. "$TESTS_DIR/win/lib.sh"

if ! has_command toolkits; then
  skip "cdm toolkits under Wine" "cdm toolkits is not in this build"
  done_testing
  exit
fi

make_toolkit() { # DIR VERSION HOW
  mkdir -p "$1/bin" "$1/include" "$1/lib/x64"
  case $3 in
    json) printf '{"cuda": {"name": "CUDA SDK", "version": "%s"}}\n' "$2" >"$1/version.json" ;;
    txt) printf 'CUDA Version %s\n' "$2" >"$1/version.txt" ;;
  esac
}
TK12=$SCRATCH/v12.4
TK11=$SCRATCH/v11.8
TK13=$SCRATCH/v13.0
make_toolkit "$TK12" 12.4.131 json
make_toolkit "$TK11" 11.8.89 txt
make_toolkit "$TK13" 13.0.48 json

CUDA_PATH=$(wpath "$TK12") CUDA_PATH_V12_4=$(wpath "$TK12") CUDA_PATH_V11_8=$(wpath "$TK11") \
  run_cdm toolkits --json
expect_rc 0 "cdm toolkits --json under Wine"
check "CUDA_PATH first, then a CUDA_PATH_V* variable, each folder once" \
  test "$(json '[(t["version"], t["found_by"], t["version_from"]) for t in d if t["found_by"].startswith("CUDA_PATH")]')" = "[('12.4.131', 'CUDA_PATH', 'version.json'), ('11.8.89', 'CUDA_PATH_V11_8', 'version.txt')]"

KEY='HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA\v13.0'
trap '"$WINE" reg delete "$KEY" /f >/dev/null 2>&1; rm -rf "$SCRATCH"' EXIT
if "$WINE" reg add "$KEY" /v InstallDir /t REG_SZ /d "$(wpath "$TK13")" /f /reg:64 >/dev/null 2>&1; then
  run_cdm toolkits --json
  check "a toolkit the registry records" \
    test "$(json '[(t["version"], t["found_by"]) for t in d if t["found_by"].startswith("registry")]')" = "[('13.0.48', 'registry v13.0')]"
  "$WINE" reg delete "$KEY" /f /reg:64 >/dev/null 2>&1
  run_cdm toolkits --json
  check "and not once the key is gone" test "$(json '[t for t in d if t["found_by"].startswith("registry")]')" = "[]"
else
  skip "a toolkit the registry records" "wine reg add failed"
  skip "and not once the key is gone" "wine reg add failed"
fi
done_testing
