#!/bin/bash
# make freshcheck: the README's two commands on a fresh Debian 12 root.
# Makes a minbase root with debootstrap, adds only make and gcc, puts the
# committed tree (git archive HEAD) at /work/tpmbox with ../shared beside
# it when there is one, then runs `make demo` and `make check` inside it
# under chroot.  Needs root and debootstrap (installed when missing).
# The last line is the inner make check's "N passed, N failed", then
# "freshcheck: ...".  FRESH_ROOT=DIR chooses where the root is made (it is
# removed at the end; FRESH_KEEP=1 keeps it).  FRESH_DEMO_ONLY=1 runs make
# demo and then only measures what make check would install.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 3
[ "$(id -u)" = 0 ] || { echo "freshcheck: needs root (debootstrap, chroot, mount)" >&2; exit 3; }
command -v debootstrap >/dev/null ||
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq debootstrap >/dev/null ||
	{ echo "freshcheck: cannot install debootstrap" >&2; exit 3; }

ROOT=${FRESH_ROOT:-$top/build/fresh}
SUITE=bookworm
# The host's mirror (deb822 or one-line sources), else Debian's.
MIRROR=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian

# the mounts in the root and the root's bind mount on itself, deepest
# first (reverse order puts a path after everything below it)
mounts() {
	findmnt -rn -o TARGET | awk -v r="$ROOT" '$0 == r || index($0, r "/") == 1' |
		sort -r
}
unmount_all() {
	local m
	# a lazy unmount for whatever a stray process holds
	for m in $(mounts); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}
cleanup() {
	unmount_all
	if [ -z "${FRESH_KEEP:-}" ] && [ -d "$ROOT" ] && [ -z "$(mounts)" ]; then
		rm -rf --one-file-system "$ROOT"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cleanup
mkdir -p "$ROOT"
t0=$(date +%s)
echo "freshcheck: debootstrap --variant=minbase $SUITE $ROOT $MIRROR"
debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 ||
	{ tail -20 "$ROOT.debootstrap.log"; echo "freshcheck: debootstrap failed" >&2; exit 3; }
rm -f "$ROOT.debootstrap.log"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
rm -rf "$ROOT/etc/apt"
cp -a /etc/apt "$ROOT/etc/apt"
# the root a mount point of its own, as on a machine: `unshare -m`
# (tests/initramfs.bats) makes / private, which fails with EINVAL in a
# chroot whose / is a plain directory
mount --bind "$ROOT" "$ROOT"
mount -t proc proc "$ROOT/proc"
mount -t sysfs sys "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
mount --bind /dev/pts "$ROOT/dev/pts"
mount -t tmpfs tmpfs "$ROOT/tmp"

mkdir -p "$ROOT/work/tpmbox"
git -C "$top" archive HEAD | tar -x -C "$ROOT/work/tpmbox"
[ -d "$top/../shared" ] && cp -a "$top/../shared" "$ROOT/work/shared"
echo "freshcheck: root made in $(( $(date +%s) - t0 )) s; installing make and gcc"

inside() { chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 /bin/bash -c "$1"; }
inside "apt-get update -qq && apt-get install -y -qq make gcc >/dev/null" ||
	{ echo "freshcheck: cannot install make and gcc in the root" >&2; exit 3; }

# installed: "N packages, M MiB" (dpkg's Installed-Size, KiB)
installed() { inside "dpkg-query -W -f='\${db:Status-Abbrev} \${Installed-Size}\n'" |
	awk '$1 == "ii" { n++; k += $2 } END { printf "%d %d\n", n, k / 1024 }'; }
read -r n0 m0 < <(installed)
echo "freshcheck: the root has $n0 packages ($m0 MiB) with make and gcc"

t1=$(date +%s)
echo "== freshcheck: make demo"
inside "cd /work/tpmbox && make demo"; demo=$?
t2=$(date +%s)
read -r n1 m1 < <(installed)
if [ -n "${FRESH_DEMO_ONLY:-}" ]; then
	inside "cd /work/tpmbox && sh tests/helpers/install-deps.sh check"
	read -r n2 m2 < <(installed)
	echo "freshcheck: make demo installed $((n1 - n0)) packages ($((m1 - m0)) MiB); make check would install $((n2 - n1)) more ($((m2 - m1)) MiB)"
	exit "$demo"
fi
echo "== freshcheck: make check"
inside "cd /work/tpmbox && make check"; check=$?
t3=$(date +%s)
read -r n2 m2 < <(installed)
# the README's promise: neither command leaves anything in /tmp
left=$(ls -A "$ROOT/tmp")
[ -z "$left" ] || echo "freshcheck: left in /tmp:" $left
echo "freshcheck: make demo exit $demo in $((t2 - t1)) s, installed $((n1 - n0)) packages ($((m1 - m0)) MiB)"
echo "freshcheck: make check exit $check in $((t3 - t2)) s, installed $((n2 - n1)) packages ($((m2 - m1)) MiB)"
[ "$demo" -eq 0 ] && [ "$check" -eq 0 ] && [ -z "$left" ]
