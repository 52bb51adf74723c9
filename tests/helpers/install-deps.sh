#!/bin/sh
# Install what the build and the tests need, when missing (Debian 12).
#   install-deps.sh demo    what `make demo` needs: the build and swtpm
#   install-deps.sh tiny    what `make tiny` needs: musl-gcc
#   install-deps.sh cross   what `make tiny ARCH=...` needs: the cross
#                           compilers, their musl, qemu-user-static
#   install-deps.sh         what `make check` needs: all of it
# As root, missing packages are installed with apt-get; otherwise the
# exact apt-get line is printed and the exit status is 1.
set -e
what=${1:-check}
# The build: the compiler, make, and mbedTLS's static library and headers.
build="gcc make libc6-dev libmbedtls-dev"
# make demo: the build and a software TPM.
demo="$build swtpm"
# make tiny: musl's compiler (mbedTLS comes from Debian's source package),
# and the default build, whose --help texts the small build keeps packed.
tiny="$build musl-tools"
# make tiny ARCH=arm64|armhf|s390x|riscv64 (issue 28): the cross compilers
# (glibc's, static included), Debian's musl for arm64, armhf and s390x
# (musl-dev:ARCH brings ARCH-linux-musl-gcc, a wrapper around the cross
# gcc; Debian 12 has no riscv64 musl: that build is glibc's), and
# qemu-user-static, which runs them in make check and make bench.  A
# package named NAME:ARCH needs its architecture added to dpkg first.
cross="$tiny qemu-user-static gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
	gcc-s390x-linux-gnu gcc-riscv64-linux-gnu
	musl-dev:arm64 musl-dev:armhf musl-dev:s390x"
# make check: every tool a test calls, on a fresh minbase root (trousers,
# tpm-tools and tpm-quote-tools: the TPM 1.2 oracle, tests/helpers/tcsd.bash;
# pesign, osslsigncode and the EFI binaries of systemd-boot-efi, shim-signed
# and grub-efi-amd64-signed: tests/pcrpredict.bats's Authenticode oracles;
# and systemd's systemd-measure and the swtpm TCTI it loads: issue 11's oracle;
# tpm2-openssl and ssh-keygen: issue 14's keys, tests/keys.bats; GNU
# parallel: bats runs two suites at a time).
check="$demo $cross swtpm-tools bats bats-assert bats-support parallel tpm2-tools socat
	openssl age xxd jq bc file procps passwd groff-base python3 time util-linux
	strace trousers tpm-tools tpm-quote-tools systemd libtss2-tcti-swtpm0
	clang clang-tools libclang-rt-14-dev valgrind cppcheck
	qemu-system-x86 ovmf busybox-static cpio cryptsetup-bin initramfs-tools-core
	pesign osslsigncode systemd-boot-efi shim-signed grub-efi-amd64-signed
	tpm2-openssl openssh-client clevis clevis-luks clevis-tpm2 jose
	oathtool zbar-tools qrencode"
# The VM's LUKS scenarios build real images: cryptsetup's initramfs hook
# and dracut's tools (both fit beside each other; without their
# recommends, which would bring a mail server, LVM and mdadm).
norec="cryptsetup-initramfs dracut-core"
case $what in
demo) want=$demo ;;
tiny) want=$tiny ;;
cross) want=$cross ;;
check) want="$check $norec" ;;
*) echo "usage: install-deps.sh [demo|tiny|cross|check]" >&2; exit 2 ;;
esac

pkg_have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
need=""
for p in $want; do
	pkg_have "$p" || need="$need $p"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "make $what needs these packages:$need" >&2
	archs=$(for p in $need; do case $p in *:*) echo "${p#*:}" ;; esac; done | sort -u | tr '\n' ' ' | sed 's/ $//')
	[ -z "$archs" ] ||
		echo "first, as root: dpkg --add-architecture for each of: $archs; apt-get update" >&2
	echo "install them as root: apt-get install$need" >&2
	[ "$what" != check ] ||
		echo "($norec: with --no-install-recommends)" >&2
	exit 1
fi
echo "make $what: installing:$need" >&2
export DEBIAN_FRONTEND=noninteractive
# The foreign architectures the wanted NAME:ARCH packages are built for.
for p in $need; do
	case $p in
	*:*) a=${p#*:}
	     dpkg --print-foreign-architectures | grep -qx "$a" ||
		dpkg --add-architecture "$a" ;;
	esac
done
apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
plain= bare=
for p in $need; do
	case " $norec " in
	*" $p "*) bare="$bare $p" ;;
	*) plain="$plain $p" ;;
	esac
done
[ -z "$plain" ] || apt-get -o DPkg::Lock::Timeout=600 install -y -qq $plain >/dev/null
[ -z "$bare" ] ||
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $bare >/dev/null
