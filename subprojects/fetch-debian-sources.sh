#!/usr/bin/env bash
# Fills subprojects/ so that the Windows cross build (meson setup
# --cross-file tests/cross/x86_64-w64-mingw32.ini) works offline, on a Debian 12
# machine that reaches only Debian's mirrors.
#
# The sources come from Debian source packages:
#   libarchive 3.6.2  bookworm's libarchive_3.6.2.orig.tar.xz == upstream tarball
#   (inih r59 is kept in the tree: subprojects/inih)
#   cJSON 1.7.15      bookworm's cjson_1.7.15.orig.tar.gz == GitHub's v1.7.15
#                     archive; Debian's security patches are in
#                     packagefiles/cjson-debian-patches (cjson.wrap applies them)
#   SQLite 3.40.1     bookworm's sqlite3 source tree with Debian's patches
#                     (debian/patches/series, security fixes included); the
#                     amalgamation that sqlite3.wrap names cannot be rebuilt
#                     byte for byte, so sqlite3.c/sqlite3.h are generated (tclsh) into the
#                     wrap's folder instead
# and are kept in $CDM_DEPS_CACHE (default /var/cache/cdm-win-deps, or the user's
# ~/.cache/cdm-win-deps when that one can neither be written nor is already filled),
# outside the clone, so a second run (or CI with that folder cached) downloads and
# generates nothing. No root is needed: apt reads Debian 12's source index through a
# configuration of its own in the cache, and the system's apt sources are not changed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CDM_DEPS_CACHE:-/var/cache/cdm-win-deps}
# apt reads bookworm's source index from a configuration of its own under the cache: the
# system's apt sources are neither read nor changed, so this runs on Debian 12 and 13
# alike and leaves nothing in /etc. (Set once the cache is chosen, below.)
apt_dir=
# Files that earlier versions of this script added to the system's sources (--undo).
legacy_sources=(/etc/apt/sources.list.d/cdm-trixie-src.sources /etc/apt/sources.list.d/cdm-bookworm-src.sources)

usage() {
	cat <<USAGE
usage: subprojects/fetch-debian-sources.sh [--undo]

Fills subprojects/ with Debian 12's sources of libarchive, cJSON and SQLite (downloaded
once into the cache '$cache', or \$CDM_DEPS_CACHE).
  --undo   remove what this script keeps outside the clone: its apt lists under the
           cache, and the deb-src files that earlier versions added to /etc/apt
USAGE
}
# file in the cache and packagecache | Debian source/suite | Debian orig file | sha256
# (the suite matters: with trixie's deb-src present, apt-get would pick trixie's
# newer libarchive and sqlite3)
tarballs=(
	"libarchive-3.6.2.tar.xz|libarchive/bookworm|libarchive_3.6.2.orig.tar.xz|9e2c1b80d5fbe59b61308fdfab6c79b5021d7ff4ff2489fb12daf0a96a83551d"
	"cJSON-1.7.15.tar.gz|cjson/bookworm|cjson_1.7.15.orig.tar.gz|5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2"
)
sqlite_dir=sqlite-amalgamation-3400100
sqlite_orig=sqlite3_3.40.1.orig.tar.xz
sqlite_sha=aaa776260ab4dc976db34aa7891819484c8676b5b2783123ebc6301e2ca5d655

say() { printf 'fetch-debian-sources: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

# The mirror of the system's own apt sources (deb822 or one-line format), else Debian's.
host_mirror() {
	local uri
	uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i !~ /security/) { print $i; exit } }' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n1)
	printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

apt_opts=()
prepare_apt() {
	[ ${#apt_opts[@]} -eq 0 ] || return 0
	local mirror security
	mirror=$(host_mirror)
	# The security archive lives beside the main one on Debian's own mirror; another
	# mirror gets Debian's (SQLite's and cJSON's security fixes are published there).
	case $mirror in
	*deb.debian.org/debian | *deb.debian.org/debian/) security=${mirror%/}-security ;;
	*) security=http://deb.debian.org/debian-security ;;
	esac
	mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	printf 'Types: deb-src\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\nTypes: deb-src\nURIs: %s\nSuites: bookworm-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$mirror" "$security" >"$apt_dir/sources/bookworm-src.sources"
	apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/sources"
		-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1)
	# apt drops to its _apt user to download; an ordinary user cannot, and need not.
	[ "$(id -u)" = 0 ] || apt_opts+=(-o "APT::Sandbox::User=$(id -un)")
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] ||
		die "Debian's archive keys are missing (/usr/share/keyrings/debian-archive-keyring.gpg): apt-get install debian-archive-keyring"
	say "reading bookworm's source index from $mirror and $security (apt lists in $apt_dir; the system's apt sources are not changed)"
	apt-get "${apt_opts[@]}" update -qq >"$apt_dir/update.log" 2>&1 ||
		die "apt-get update of bookworm's sources failed ($(grep -m1 '^[EW]:' "$apt_dir/update.log")): is a Debian mirror reachable?"
}

undo() {
	local f removed=0
	if [ -d "$apt_dir" ]; then
		rm -rf "$apt_dir" || die "cannot remove '$apt_dir': run --undo as the user who filled the cache"
		say "removed $apt_dir (this script's apt lists)"
		removed=1
	fi
	for f in "${legacy_sources[@]}"; do
		[ -f "$f" ] || continue
		rm "$f" 2>/dev/null || die "cannot remove '$f': run --undo as root (sudo)"
		say "removed $f (added by an earlier version of this script)"
		removed=1
	done
	if grep -qs '^Types: deb deb-src$' /etc/apt/sources.list.d/debian.sources; then
		say "note: /etc/apt/sources.list.d/debian.sources has 'Types: deb deb-src'; earlier versions of this script added deb-src there. If you did not, revert it with: sed -i 's/^Types: deb deb-src\$/Types: deb/' /etc/apt/sources.list.d/debian.sources"
	fi
	[ $removed = 1 ] || say "nothing to undo"
	say "the sources in '$cache' and in subprojects/ are kept (delete them by hand if you wish)"
}

# Downloads Debian source package $1 into $work and checks that it brought
# orig file $2 with sha256 $3.
fetch_source() {
	prepare_apt
	say "apt-get source --download-only $1"
	(cd "$work" && apt-get "${apt_opts[@]}" source -qq --download-only "$1" >/dev/null 2>apt.log) ||
		die "cannot download the source package '$1': $(grep '^E:' "$work/apt.log" | head -n1)"
	[ -f "$work/$2" ] || die "source package '$1' has no '$2' (a new upstream version on the mirror?): update the .wrap files"
	sha_ok "$work/$2" "$3" || die "'$2' does not have the expected sha256 $3"
}

cache_filled() {
	local t
	for t in "${tarballs[@]}"; do
		IFS='|' read -r file _ _ sha <<<"$t"
		sha_ok "$1/$file" "$sha" || return 1
	done
	[ -f "$1/$sqlite_dir/sqlite3.c" ] && [ -f "$1/$sqlite_dir/debian-patches" ]
}
# The shared cache when this account can write it or it is filled already (by root, or a
# CI image), else the user's own.
if [ -z "${CDM_DEPS_CACHE:-}" ] && ! { mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; } &&
	! cache_filled "$cache"; then
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/cdm-win-deps
	say "'/var/cache/cdm-win-deps' is not writable here: using '$cache'"
fi
apt_dir=$cache/apt
case ${1:-} in
'') ;;
--undo) undo; exit 0 ;;
-h | --help) usage; exit 0 ;;
*) usage >&2; exit 2 ;;
esac
if cache_filled "$cache"; then
	work=$(mktemp -d) # nothing is fetched into a filled cache, which may be read-only
elif mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; then
	work=$(mktemp -d "$cache/.work.XXXXXX")
else
	die "cannot write to the cache '$cache': set CDM_DEPS_CACHE to a folder you can write"
fi
trap 'rm -rf "$work"' EXIT

for t in "${tarballs[@]}"; do
	IFS='|' read -r file pkg orig sha <<<"$t"
	if sha_ok "$cache/$file" "$sha"; then
		say "cached: $file"
	else
		fetch_source "$pkg" "$orig" "$sha"
		mv "$work/$orig" "$cache/$file"
	fi
done

# debian-patches names the Debian revision whose patches the amalgamation has; a cache made
# before the patches were applied lacks it and is made again.
if [ -f "$cache/$sqlite_dir/sqlite3.c" ] && [ -f "$cache/$sqlite_dir/debian-patches" ]; then
	say "cached: $sqlite_dir (generated, Debian patches of $(head -n1 "$cache/$sqlite_dir/debian-patches"))"
else
	rm -rf "${cache:?}/$sqlite_dir"
	for tool in tclsh cc make patch; do
		command -v "$tool" >/dev/null ||
			die "'$tool' is needed to generate the SQLite amalgamation: apt-get install tcl gcc make patch"
	done
	fetch_source sqlite3/bookworm "$sqlite_orig" "$sqlite_sha"
	tar -xf "$work/$sqlite_orig" -C "$work"
	debian_tar=$(find "$work" -maxdepth 1 -name 'sqlite3_3.40.1-*.debian.tar.xz' | head -n1)
	[ -n "$debian_tar" ] || die "source package 'sqlite3/bookworm' has no debian.tar.xz: its patches cannot be applied"
	tar -xf "$debian_tar" -C "$work/sqlite3-3.40.1"
	revision=${debian_tar##*/sqlite3_}
	revision=${revision%.debian.tar.xz}
	say "applying Debian's patches of sqlite3 $revision"
	while read -r patch_name; do
		case $patch_name in '' | '#'*) continue ;; esac
		patch -d "$work/sqlite3-3.40.1" -p1 -s <"$work/sqlite3-3.40.1/debian/patches/$patch_name" ||
			die "Debian's patch '$patch_name' of sqlite3 $revision does not apply"
		printf '%s\n' "$patch_name" >>"$work/applied"
	done <"$work/sqlite3-3.40.1/debian/patches/series"
	say "generating sqlite3.c and sqlite3.h (configure; make sqlite3.c)"
	mkdir "$work/bld" "$work/$sqlite_dir"
	if ! (cd "$work/bld" && ../sqlite3-3.40.1/configure >build.log 2>&1 && make sqlite3.c >>build.log 2>&1); then
		tail -n 20 "$work/bld/build.log" >&2
		die "cannot generate the SQLite amalgamation (configure; make sqlite3.c): see above"
	fi
	cp "$work/bld/sqlite3.c" "$work/bld/sqlite3.h" "$work/sqlite3-3.40.1/src/sqlite3ext.h" \
		"$work/sqlite3-3.40.1/LICENSE.md" "$work/$sqlite_dir/"
	{ echo "$revision"; cat "$work/applied"; } >"$work/$sqlite_dir/debian-patches"
	mv "$work/$sqlite_dir" "$cache/$sqlite_dir"
fi

# Into the clone: tarballs where meson looks before downloading, and the
# SQLite folder that meson takes as it is (so the overlay goes in by hand).
mkdir -p "$here/packagecache" "$here/$sqlite_dir"
for t in "${tarballs[@]}"; do
	file=${t%%|*}
	cmp -s "$cache/$file" "$here/packagecache/$file" || cp "$cache/$file" "$here/packagecache/$file"
done
for f in "$cache/$sqlite_dir"/* "$here/packagefiles/sqlite3/meson.build"; do
	cmp -s "$f" "$here/$sqlite_dir/${f##*/}" || cp "$f" "$here/$sqlite_dir/"
done
# Run through sudo, the clone's new files go to the user who ran sudo, as the clone does.
if [ "$(id -u)" = 0 ] && [ -n "${SUDO_UID:-}" ]; then
	chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$here/packagecache" "$here/$sqlite_dir"
fi
say "ready: subprojects/packagecache/ and subprojects/$sqlite_dir/ (cache: $cache)"
