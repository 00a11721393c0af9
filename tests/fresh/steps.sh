# The steps of tests/fresh/run.sh after the README's first command, sourced by it: they use
# its $dir (the system), $home, $log, $release, $who, $second, $install_tests, as_account,
# ok and not_ok.
# shellcheck disable=SC2154 # those variables are run.sh's

# packages_and_readme: the second command's packages install (so a wrong name in it fails
# too) and the readme test passes there; the whole suite would repeat CI's own run.
packages_and_readme() {
  local start
  step "the second command's packages install" as_account "$install_tests"
  start=$SECONDS
  if as_account "meson test -C build --print-errorlogs readme" >"$log" 2>&1; then
    ok "and the readme test passes there ($((SECONDS - start)) s)"
  else
    not_ok "and the readme test passes there"
    grep -hE '^not ok' "$dir$home/cdm/build/meson-logs/testlog.txt" 2>/dev/null | head -10 | sed 's/^/# /'
    tail -10 "$log" | sed 's/^/# /'
  fi
}

# whole_suite: the README's second command as it is. Its testlog.json is copied to
# $CDM_FRESH_TESTLOG when that is set, for .ci/count.py to count every TAP result in it.
whole_suite() {
  local start=$SECONDS testlog=$dir$home/cdm/build/meson-logs/testlog.json
  if as_account "$second" >"$log" 2>&1; then
    ok "the README's second command (the whole suite) on a fresh $release, as $who ($((SECONDS - start)) s)"
  else
    not_ok "the README's second command (the whole suite) on a fresh $release, as $who ($((SECONDS - start)) s)"
    grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|ERROR|TIMEOUT)' "$log" | head -20 | sed 's/^/# /'
  fi
  grep -E '^(Ok|Fail|Skipped|Timeout): ' "$log" | sed 's/^/# /'
  grep -h '# SKIP' "$dir$home/cdm/build/meson-logs/testlog.txt" 2>/dev/null | sed 's/^ok [0-9]* - /# skipped: /' | sort -u
  if [ -n "${CDM_FRESH_TESTLOG:-}" ] && [ -f "$testlog" ]; then
    # each test's name says where it ran, so that count.py's lines tell the two runs apart
    python3 -c 'import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    t["name"] = sys.argv[2] + ":" + t["name"]
    print(json.dumps(t))' "$testlog" "fresh-$suite-$([ -n "$as_user" ] && echo user || echo root)" >"$CDM_FRESH_TESTLOG"
  fi
}

# debian_sources: subprojects/fetch-debian-sources.sh on this release, as this account: it
# fills subprojects/ (files owned by the account), adds nothing to the system's apt
# sources, and --undo removes what it keeps outside the clone.
debian_sources() {
  local before after sudo=
  [ -z "$as_user" ] || sudo=sudo
  before=$(ls "$dir/etc/apt/sources.list.d" 2>/dev/null; cat "$dir/etc/apt/sources.list.d/"* "$dir/etc/apt/sources.list" 2>/dev/null | md5sum)
  step "subprojects/fetch-debian-sources.sh fills subprojects/ on $release, as $who" \
    as_account "$sudo apt-get install -y -q --no-install-recommends tcl make patch >/dev/null && bash subprojects/fetch-debian-sources.sh" ||
    return
  after=$(ls "$dir/etc/apt/sources.list.d" 2>/dev/null; cat "$dir/etc/apt/sources.list.d/"* "$dir/etc/apt/sources.list" 2>/dev/null | md5sum)
  if [ "$before" = "$after" ]; then
    ok "and leaves the system's apt sources as they were"
  else
    not_ok "and leaves the system's apt sources as they were"
  fi
  local owner want=root
  [ -z "$as_user" ] || want=cdmuser
  owner=$(chroot "$dir" stat -c %U "$home/cdm/subprojects/packagecache" "$home/cdm/subprojects/sqlite-amalgamation-3400100/sqlite3.c" | sort -u | tr '\n' ' ')
  if [ "$owner" = "$want " ]; then
    ok "its files in the clone belong to $who ($owner)"
  else
    not_ok "its files in the clone belong to $who (they belong to: $owner)"
  fi
  if as_account "bash subprojects/fetch-debian-sources.sh --undo" >"$log" 2>&1 && grep -q "removed .*apt lists" "$log" &&
    [ -z "$(find "$dir$home/.cache/cdm-win-deps/apt" "$dir/var/cache/cdm-win-deps/apt" -maxdepth 0 2>/dev/null)" ]; then
    ok "and --undo removes its apt lists, saying so"
  else
    not_ok "and --undo removes its apt lists, saying so"
    tail -3 "$log" | sed 's/^/# /'
  fi
}

# no_leftovers: the system's /tmp holds nothing after the commands (a fresh one starts empty).
no_leftovers() {
  local left
  left=$(ls -A "$dir/tmp" 2>/dev/null | head -n 10 | tr '\n' ' ')
  if [ -z "$left" ]; then
    ok "/tmp holds nothing afterwards"
  else
    not_ok "/tmp holds nothing afterwards (it holds: $left)"
  fi
}
