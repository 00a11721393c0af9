#!/usr/bin/env bash
# CI for the Windows build, run after the native one: fill subprojects/ from Debian's
# source packages (cached in $CDM_DEPS_CACHE), cross-build cdm.exe with mingw-w64 and
# warnings as errors, run the whole test suite through Wine. Exits non-zero on any
# failure; the results are in build-win/meson-logs/testlog.json for counting.
#
# Needs (Debian 12): gcc-mingw-w64-x86-64 libz-mingw-w64-dev wine wine64 meson
# ninja-build pkg-config python3 libarchive-dev libarchive-tools tcl make dosfstools
# fusefat;
# ccache is used when present (its files go to $CDM_DEPS_CACHE/ccache).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# logs of the steps that print only on failure: in the clone, never in /tmp (.ci/run)
export CDM_CI_LOGS=${CDM_CI_LOGS:-$PWD/.ci-logs}
mkdir -p "$CDM_CI_LOGS"
export CDM_DEPS_CACHE=${CDM_DEPS_CACHE:-/var/cache/cdm-win-deps}
export WINEDEBUG=-all

bash subprojects/fetch-debian-sources.sh || { echo "windows: cannot fill subprojects/"; exit 1; }

cross=(--cross-file tests/cross/x86_64-w64-mingw32.ini)
if command -v ccache >/dev/null && mkdir -p "$CDM_DEPS_CACHE/ccache" 2>/dev/null; then
  export CCACHE_DIR=$CDM_DEPS_CACHE/ccache
  # paths relative to the checkout, so another clone or worktree hits the same cache
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  # meson puts ccache before native compilers only: a second cross file names it for
  # mingw, so libarchive and SQLite are compiled once, not once per build
  printf "[binaries]\nc = ['ccache', 'x86_64-w64-mingw32-gcc']\n" >"$CDM_DEPS_CACHE/ccache-cross.ini.$$" &&
    mv "$CDM_DEPS_CACHE/ccache-cross.ini.$$" "$CDM_DEPS_CACHE/ccache-cross.ini"
  cross+=(--cross-file "$CDM_DEPS_CACHE/ccache-cross.ini")
fi
# Wine that makes junctions (../shared/wine-junctions: Debian's 8.0 with wine-staging's
# junction patches, installed once in /opt/wine-junctions), so every junction path runs;
# stock Wine where that folder is absent, on which the junction tests check the refusal.
# CDM_WINE=stock keeps stock Wine (the refusal run of .ci/run).
wj=/opt/wine-junctions
if [ "${CDM_WINE:-}" != stock ] && [ ! -x "$wj/bin/wine" ] && [ -f ../shared/wine-junctions/install.sh ]; then
  sh ../shared/wine-junctions/install.sh >"$CDM_CI_LOGS"/wine-junctions.log 2>&1 ||
    { tail -5 "$CDM_CI_LOGS"/wine-junctions.log; echo "windows: cannot install wine-junctions, using stock Wine"; }
fi
if [ "${CDM_WINE:-}" != stock ] && [ -x "$wj/bin/wine" ]; then
  export PATH=$wj/bin:$PATH
  # its server protocol differs from stock Wine's: a prefix (and server) of its own
  prefix_name=wineprefix-junctions
  echo "windows: Wine with junctions ($wj)"
else
  prefix_name=wineprefix
  echo "windows: stock Wine, which cannot make junctions: the junction tests check the refusal"
fi
# A Wine prefix of its own, made once (wineboot takes a while the first time).
export WINEPREFIX=${WINEPREFIX:-$CDM_DEPS_CACHE/$prefix_name}
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  wineboot -i >"$CDM_CI_LOGS"/wineboot.log 2>&1 || { tail -20 "$CDM_CI_LOGS"/wineboot.log; echo "windows: wineboot failed"; exit 1; }
fi
# One wineserver for all the tests (each cdm.exe run would otherwise start one), and none of
# them left behind when this script ends, whichever way it ends.
wineserver -p 60 2>/dev/null
trap 'wineserver -k 2>/dev/null; [ ! -x /usr/bin/wineserver ] ||
  WINEPREFIX=$CDM_DEPS_CACHE/wineprefix /usr/bin/wineserver -k 2>/dev/null' EXIT

rm -rf build-win
meson setup build-win "${cross[@]}" --werror \
  >"$CDM_CI_LOGS"/win-setup.log 2>&1 || { cat "$CDM_CI_LOGS"/win-setup.log; exit 1; }
ninja -C build-win || exit 1
# Wine warm before the first test: the server may have stopped during the build, and the
# first Wine process of a session starts slowly (its output is of no interest). The
# multiplier leaves room for Wine's start-up on a loaded machine.
wineserver -p 60 2>/dev/null
wine cmd /c exit >/dev/null 2>&1
# the native build's cdm, which makes on Linux the bundle tests/win/bundle.sh installs
[ -x build/cdm ] && export CDM_NATIVE=$PWD/build/cdm
meson test -C build-win --print-errorlogs --timeout-multiplier 3 || exit 1

# Where junctions cannot be made (cdm goes on without a link): the junction tests again
# under stock Wine (a few seconds), with the stock prefix and server. Results in
# meson-logs/stocklog.json.
rm -f build-win/meson-logs/stocklog.json
if [ "${prefix_name}" != wineprefix ] && [ -x /usr/bin/wine ]; then
  stock_prefix=$CDM_DEPS_CACHE/wineprefix
  if [ ! -f "$stock_prefix/system.reg" ]; then
    WINEPREFIX=$stock_prefix /usr/bin/wineboot -i >"$CDM_CI_LOGS"/wineboot-stock.log 2>&1 ||
      { tail -20 "$CDM_CI_LOGS"/wineboot-stock.log; echo "windows: stock wineboot failed"; exit 1; }
  fi
  WINEPREFIX=$stock_prefix /usr/bin/wineserver -p 60 </dev/null >/dev/null 2>&1
  python3 tests/win/stock_wine.py build-win /usr/bin/wine "$stock_prefix" link_win32 fs win_link win_fallback ||
    exit 1
fi

# The release artifact: cdm.exe stripped, with its SHA-256, in build-win/dist/.
mkdir -p build-win/dist
x86_64-w64-mingw32-strip -o build-win/dist/cdm.exe build-win/cdm.exe || exit 1
(cd build-win/dist && sha256sum cdm.exe >cdm.exe.sha256)
echo "release artifact: build-win/dist/cdm.exe ($(stat -c %s build-win/dist/cdm.exe) bytes)"

