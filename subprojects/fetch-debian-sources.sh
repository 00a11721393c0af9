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
# and are kept in $CDM_DEPS_CACHE (default /var/cache/cdm-win-deps), outside
# the clone, so a second run (or CI with that folder cached) downloads and
# generates nothing. Running as root is needed only to fill that cache.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CDM_DEPS_CACHE:-/var/cache/cdm-win-deps}
sources=/etc/apt/sources.list.d/debian.sources
trixie_src=/etc/apt/sources.list.d/cdm-trixie-src.sources
bookworm_src=/etc/apt/sources.list.d/cdm-bookworm-src.sources

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

apt_ready=
prepare_apt() {
	[ -n "$apt_ready" ] && return
	[ "$(id -u)" = 0 ] || die "the cache '$cache' is incomplete and filling it needs root (apt-get): run once as root, or point CDM_DEPS_CACHE at a filled cache"
	local uri
	if [ -f "$sources" ]; then
		if ! grep -q '^Types:.*deb-src' "$sources"; then
			say "adding deb-src to the Types: lines of $sources"
			sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
		fi
		uri=$(sed -n 's/^URIs: *//p' "$sources" | head -n1)
	else
		# The one-line format (/etc/apt/sources.list, as debootstrap and older installs
		# write it): the mirror of its first bookworm line, with a deb-src file of our own.
		uri=$(awk '$1 == "deb" && / bookworm / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n1)
		[ -n "$uri" ] || die "no bookworm mirror in '$sources' or /etc/apt/sources.list: add deb-src entries for bookworm and trixie by hand"
		if [ ! -f "$bookworm_src" ]; then
			say "adding bookworm deb-src ($uri) as $bookworm_src"
			printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
				"$uri" >"$bookworm_src"
		fi
	fi
	if [ ! -f "$trixie_src" ]; then
		# Source entries only: no trixie binary package can be installed.
		say "adding trixie deb-src ($uri) as $trixie_src"
		printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"$uri" >"$trixie_src"
	fi
	say "apt-get update"
	apt-get update -qq || die "apt-get update failed: is a Debian mirror reachable?"
	apt_ready=1
}

# Downloads Debian source package $1 into $work and checks that it brought
# orig file $2 with sha256 $3.
fetch_source() {
	prepare_apt
	say "apt-get source --download-only $1"
	(cd "$work" && apt-get source -qq --download-only "$1" >/dev/null 2>apt.log) ||
		die "cannot download the source package '$1': $(grep '^E:' "$work/apt.log" | head -n1)"
	[ -f "$work/$2" ] || die "source package '$1' has no '$2' (a new upstream version on the mirror?): update the .wrap files"
	sha_ok "$work/$2" "$3" || die "'$2' does not have the expected sha256 $3"
}

if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	die "cannot write to the cache '$cache': run as root or set CDM_DEPS_CACHE"
fi
work=$(mktemp -d "$cache/.work.XXXXXX")
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
