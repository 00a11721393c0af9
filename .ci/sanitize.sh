#!/usr/bin/env bash
# The sanitizer step of CI: a clang build with AddressSanitizer and UndefinedBehaviorSanitizer
# in build-san, where each libFuzzer target (tests/fuzz) runs FUZZ_SECONDS (default 30),
# then the unit suite. Both must find nothing: no crash, no sanitizer report, no leak.
# Meson's test logs are build-san/meson-logs/{fuzzlog,sanlog}.json.
set -uo pipefail
cd "$(dirname "$0")/.."
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
rm -rf build-san
if ! CC=clang meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
    -Dfuzz=true -Dfuzz_seconds="${FUZZ_SECONDS:-30}" >/tmp/cdm-ci-san.log 2>&1 ||
  ! ninja -C build-san >>/tmp/cdm-ci-san.log 2>&1; then
  tail -30 /tmp/cdm-ci-san.log
  exit 2
fi
status=0
meson test -C build-san --suite fuzz --logbase fuzzlog --print-errorlogs || status=1
meson test -C build-san --suite unit --logbase sanlog --timeout-multiplier 4 --print-errorlogs || status=1
exit $status
