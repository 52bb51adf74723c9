#!/bin/sh
# Install what the build and the tests need, when missing (Debian, root).
set -e
need=""
have() { command -v "$1" >/dev/null 2>&1; }
pkg_have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
for p in swtpm swtpm-tools libmbedtls-dev bats bats-assert bats-support \
	 tpm2-tools socat openssl xxd groff-base python3 \
	 clang clang-tools libclang-rt-14-dev valgrind cppcheck time procps passwd util-linux; do
	pkg_have "$p" || need="$need $p"
done
have cc || need="$need gcc make"
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "missing packages:$need (run as root or install them)" >&2
	exit 1
fi
echo "installing:$need" >&2
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
