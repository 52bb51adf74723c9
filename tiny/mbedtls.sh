#!/bin/sh
# Build mbedTLS for the small static build (make tiny): Debian's own
# mbedtls source package (the version Debian 12 ships), fetched with apt
# from the host's mirror (signed indexes, checked hashes) into a private
# apt state under OUT, compiled with CC (musl-gcc, or make tiny ARCH=...'s
# cross compiler) and tiny/mbedtls-config.h.
#   [MBEDTLS_SRC=DIR] [TINY_AR=AR] tiny/mbedtls.sh OUT CC CFLAGS...
# Leaves OUT/libmbedcrypto.a, the headers in the source's include/.
# MBEDTLS_SRC: where the source is unpacked (default OUT/src; the cross
# builds of make tiny ARCH=... share the x86-64 build's); TINY_AR: the
# archiver, with the LTO plugin of CC's gcc (default gcc-ar).  Idempotent:
# a source already unpacked is reused; the library is rebuilt when the
# config or this script is newer, or the compiler flags differ.
set -eu
out=$1 cc=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
conf=$top/tiny/mbedtls-config.h
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=${MBEDTLS_SRC:-$out/src}
ar=${TINY_AR:-gcc-ar}

if [ ! -f "$src/include/mbedtls/version.h" ]; then
	apt=$out/apt
	mkdir -p "$apt/lists/partial" "$out/dl"
	# The host's mirror, as a deb-src line (deb822 or one-line sources).
	mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
	[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
	echo "deb-src $mirror bookworm main" > "$apt/sources.list"
	aptq() { apt-get -q -o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$apt/lists" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"; }
	echo "tiny: fetching Debian's mbedtls source from $mirror" >&2
	aptq update >/dev/null
	(cd "$out/dl" && aptq source --download-only mbedtls >/dev/null)
	rm -rf "$src" "$out/unpack"
	mkdir -p "$out/unpack" "$(dirname "$src")"
	tar -xzf "$out"/dl/mbedtls_*.orig.tar.gz -C "$out/unpack"
	mv "$out"/unpack/* "$src"
	rmdir "$out/unpack"
fi

lib=$out/libmbedcrypto.a
flags="$cc $ar $*"
# tpmbox's own parts of the library (in tiny/): the SHA-1 block
# function, the allocator
own="sha1_small.c alloc.c"
fresh=1
for f in "$conf" "$0"; do [ "$lib" -nt "$f" ] || fresh=; done
for f in $own; do [ "$lib" -nt "$top/tiny/$f" ] || fresh=; done
if [ -n "$fresh" ] && [ "$(cat "$out/flags" 2>/dev/null)" = "$flags" ]; then
	exit 0
fi
echo "tiny: building mbedTLS $(sed -n 's/.*MBEDTLS_VERSION_STRING *"\(.*\)".*/\1/p' "$src/include/mbedtls/version.h") with $cc" >&2
rm -rf "$out/obj"
mkdir -p "$out/obj"
# compile FILE CFLAGS...
compile() {
	f=$1 o=$out/obj/$(basename "$1" .c).o
	shift
	# The bignums and the curves' modular reduction are where a P-256
	# multiplication spends its time: -O2 there, without alignment
	# padding or the inlining of small functions (which only cost
	# bytes), takes 13% off a checkquote for about 2 KiB (docs/tiny.md).
	opt=
	case $(basename "$f") in
	bignum.c|ecp_curves.c) opt="-O2 -fno-inline-small-functions -fno-align-functions
		-fno-align-jumps -fno-align-loops -fno-align-labels" ;;
	esac
	"$cc" "$@" $opt -I"$src/include" -I"$top/tiny" \
		-DMBEDTLS_CONFIG_FILE='"mbedtls-config.h"' -c "$f" -o "$o"
}
for f in "$src"/library/*.c; do compile "$f" "$@"; done
for f in $own; do compile "$top/tiny/$f" "$@"; done
rm -f "$lib.tmp"
"$ar" rcs "$lib.tmp" "$out"/obj/*.o
mv "$lib.tmp" "$lib"
echo "$flags" > "$out/flags"
