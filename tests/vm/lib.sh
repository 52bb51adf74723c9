# tests/vm/lib.sh: boot Debian's own kernel under QEMU with OVMF and a
# swtpm as the guest's TPM.  Sourced by tests/vm/run.sh; a second guest
# scenario (another initrd, a disk image) sources it too and calls
# vm_boot.  Every function prints why it fails on stderr and returns
# non-zero; nothing here exits.
#
#   VM_DIR      cache and work directory (default build/vm); the kernel
#               and its modules are unpacked once under $VM_DIR/kernel
#   VM_TIMEOUT  seconds before a guest is killed (default 150)
#
# vm_can_run            0 when qemu-system-x86_64, OVMF, swtpm, cpio and
#                       busybox-static are there; else prints what is missing
# vm_kernel             unpack Debian's kernel (apt-get download + dpkg -x,
#                       never installed); sets VM_KERNEL (vmlinuz path),
#                       VM_KVER (uname -r) and VM_MODDIR (its modules)
# vm_initrd_base DIR    fill DIR with a minimal root: busybox-static and
#                       its applet links, /dev /proc /sys /tmp; the caller
#                       adds /init and whatever else, then calls
# vm_modules DIR MOD... copy kernel modules (virtio_blk, dm-crypt, ...) and
#                       what they depend on into DIR/lib/modules/, and list
#                       them, dependencies first, in DIR/etc/vm-modules; the
#                       guest loads them with
#                         for m in $(cat /etc/vm-modules); do insmod /lib/modules/$m.ko; done
#                       (Debian's kernel has the TPM drivers and IMA built in
#                       but virtio_blk, dm-crypt, ext4 are modules.)
# vm_cpio DIR OUT       pack DIR as a newc cpio archive (the initrd)
# vm_boot NAME INITRD LOG [-t tis|crb] [-a APPEND] [-k] [-- QEMU-ARGS...]
#                       boot the kernel with INITRD, a fresh swtpm (state in
#                       $VM_DIR/NAME/tpm, not started: OVMF sends
#                       TPM2_Startup and measures the boot) and a fresh copy
#                       of OVMF_VARS; the guest's console (ttyS0) goes to
#                       LOG.  -k keeps the TPM state already in
#                       $VM_DIR/NAME/tpm (made on the host, e.g. with
#                       vm_swtpm_host).  QEMU-ARGS are passed on, e.g.
#                         -- -drive file=disk.img,format=raw,if=virtio
#                       Returns when the guest powers off (its /init should
#                       end with `poweroff -f`), 124 on VM_TIMEOUT.
#                       Prints "vm: NAME (tpm-DEV) ran N s, boot to poweroff
#                       (/init after N s)": /init's start is the first "@@"
#                       on the console (an /init should print one early).
# vm_swtpm_host DIR CMD...  run CMD with a swtpm on state DIR (created
#                       when missing) started as a host tool sees it
#                       (startup-clear) and TPMBOX_TCTI set for it; stopped
#                       cleanly after, its state kept for vm_boot -k
# vm_tap LOG            print the guest's TAP lines: the guest writes
#                       "@@TAP ok N - ..." (the prefix keeps them apart from
#                       kernel messages); vm_tap strips it.

VM_DIR=${VM_DIR:-build/vm}
VM_TIMEOUT=${VM_TIMEOUT:-150}
VM_OVMF_CODE=${VM_OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
VM_OVMF_VARS=${VM_OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
VM_BUSYBOX=${VM_BUSYBOX:-/bin/busybox}

vm_can_run() {
	local miss= t
	for t in qemu-system-x86_64 swtpm cpio dpkg apt-get; do
		command -v "$t" >/dev/null 2>&1 || miss="$miss $t"
	done
	[ -r "$VM_OVMF_CODE" ] || miss="$miss $VM_OVMF_CODE(ovmf)"
	[ -r "$VM_OVMF_VARS" ] || miss="$miss $VM_OVMF_VARS(ovmf)"
	[ -x "$VM_BUSYBOX" ] || miss="$miss $VM_BUSYBOX(busybox-static)"
	if [ -n "$miss" ]; then
		echo "vm: cannot run: missing$miss" >&2
		return 1
	fi
	if ! qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg; then
		echo "vm: cannot run: qemu-system-x86_64 has no TCG accelerator" >&2
		return 1
	fi
}

vm_kernel() {
	local kd=$VM_DIR/kernel pkg deb
	mkdir -p "$kd" || return 1
	if [ ! -f "$kd/.done" ]; then
		# The ABI name (6.1.0-NN) follows the mirror; ask the
		# metapackage which one it is today.
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		      sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' |
		      head -n1)
		if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
			apt-get update -qq >/dev/null 2>&1
			pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			      sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' |
			      head -n1)
		fi
		if [ -z "$pkg" ]; then
			echo "vm: apt-cache does not know linux-image-amd64 (run apt-get update)" >&2
			return 1
		fi
		rm -rf "$kd/root" && mkdir -p "$kd/root" || return 1
		(cd "$kd" && rm -f ./*.deb && apt-get download "$pkg" >/dev/null 2>&1) ||
			{ echo "vm: apt-get download $pkg failed" >&2; return 1; }
		deb=$(ls "$kd"/*.deb | head -n1)
		dpkg -x "$deb" "$kd/root" || { echo "vm: dpkg -x $deb failed" >&2; return 1; }
		rm -f "$deb"
		touch "$kd/.done"
	fi
	VM_KERNEL=$(ls "$kd"/root/boot/vmlinuz-* 2>/dev/null | head -n1)
	[ -n "$VM_KERNEL" ] || { echo "vm: no vmlinuz in $kd/root/boot" >&2; return 1; }
	VM_KVER=${VM_KERNEL##*/vmlinuz-}
	VM_MODDIR=$kd/root/lib/modules/$VM_KVER
}

vm_initrd_base() {
	local d=$1 a
	rm -rf "$d" && mkdir -p "$d"/bin "$d"/sbin "$d"/dev "$d"/proc \
		"$d"/sys "$d"/tmp "$d"/run "$d"/etc || return 1
	cp "$VM_BUSYBOX" "$d/bin/busybox" || return 1
	for a in $("$VM_BUSYBOX" --list); do
		[ "$a" = busybox ] || ln -s busybox "$d/bin/$a"
	done
}

vm_modules() {
	local d=$1 m
	shift
	[ -n "${VM_MODDIR:-}" ] || vm_kernel || return 1
	mkdir -p "$d/lib/modules" "$d/etc" || return 1
	: > "$d/etc/vm-modules"
	# No depmod needed: each module's .modinfo names what it depends on.
	_vm_mod() {
		local n=${1//-/_} f dep
		grep -qx "$n" "$d/etc/vm-modules" && return 0
		f=$(awk -v n="$n" '{ b = $0; sub(/.*\//, "", b); sub(/\.ko$/, "", b);
			gsub(/-/, "_", b); if (b == n) { print; exit } }' "$d/.vm-ko")
		if [ -z "$f" ]; then
			grep -q "/${1}.ko\$\|/${n}.ko\$" "$VM_MODDIR/modules.builtin" 2>/dev/null &&
				return 0
			echo "vm_modules: no module $1 in $VM_MODDIR" >&2
			return 1
		fi
		for dep in $(tr '\0' '\n' < "$f" | sed -n 's/^depends=//p' | tr ',' ' '); do
			_vm_mod "$dep" || return 1
		done
		cp "$f" "$d/lib/modules/$n.ko" && echo "$n" >> "$d/etc/vm-modules"
	}
	find "$VM_MODDIR/kernel" -name '*.ko' > "$d/.vm-ko"
	for m in "$@"; do
		_vm_mod "$m" || { rm -f "$d/.vm-ko"; return 1; }
	done
	rm -f "$d/.vm-ko"
}

vm_cpio() {
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
	 cpio --null -o -H newc --quiet) > "$2"
}

vm_boot() {
	local name=$1 initrd=$2 log=$3 dev=tis append= w rc t0 t1 spid qpid tinit
	local keep=
	shift 3
	while [ $# -gt 0 ]; do
		case $1 in
		-t) dev=$2; shift 2 ;;
		-a) append=$2; shift 2 ;;
		-k) keep=1; shift ;;
		--) shift; break ;;
		*) echo "vm_boot: unknown option $1" >&2; return 2 ;;
		esac
	done
	[ -n "${VM_KERNEL:-}" ] || vm_kernel || return 1
	w=$VM_DIR/$name
	if [ -n "$keep" ]; then
		[ -d "$w/tpm" ] || { echo "vm_boot -k: no TPM state in $w/tpm" >&2; return 1; }
		rm -f "$w"/vars.fd "$w"/swtpm.* "$w"/qemu.out
	else
		rm -rf "$w" && mkdir -p "$w/tpm" || return 1
	fi
	cp "$VM_OVMF_VARS" "$w/vars.fd" || return 1
	# No startup-clear: the firmware sends TPM2_Startup, as on a real
	# machine, and measures what it boots.
	swtpm socket --tpm2 --tpmstate dir="$w/tpm" \
		--ctrl type=unixio,path="$w/swtpm.sock" \
		--log file="$w/swtpm.log",level=1 --pid file="$w/swtpm.pid" \
		>"$w/swtpm.out" 2>&1 &
	spid=$!
	for _ in $(seq 1 100); do
		[ -S "$w/swtpm.sock" ] && break
		sleep 0.05
	done
	[ -S "$w/swtpm.sock" ] ||
		{ echo "vm: swtpm did not start:" >&2; cat "$w/swtpm.out" >&2;
		  kill "$spid" 2>/dev/null; return 1; }
	: > "$log"
	t0=$(date +%s.%N)
	qemu-system-x86_64 -machine q35 -accel tcg -cpu max -m 1024 -smp 1 \
		-drive if=pflash,format=raw,readonly=on,file="$VM_OVMF_CODE" \
		-drive if=pflash,format=raw,file="$w/vars.fd" \
		-chardev socket,id=chrtpm,path="$w/swtpm.sock" \
		-tpmdev emulator,id=tpm0,chardev=chrtpm \
		-device "tpm-$dev,tpmdev=tpm0" \
		-kernel "$VM_KERNEL" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet $append" \
		-serial file:"$log" -no-reboot -display none -monitor none \
		-nodefaults -net none "$@" >"$w/qemu.out" 2>&1 &
	qpid=$!
	rc=124 tinit=
	for _ in $(seq 1 $((VM_TIMEOUT * 5))); do
		# The first "@@" on the console: the guest's /init has started.
		[ -z "$tinit" ] && grep -q '@@' "$log" 2>/dev/null &&
			tinit=$(date +%s.%N)
		if ! kill -0 "$qpid" 2>/dev/null; then
			wait "$qpid"; rc=$?
			break
		fi
		sleep 0.2
	done
	if [ "$rc" = 124 ]; then
		echo "vm: $name: no poweroff after $VM_TIMEOUT s; killed" >&2
		kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null
	fi
	t1=$(date +%s.%N)
	kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
	[ "$rc" = 0 ] || [ "$rc" = 124 ] || cat "$w/qemu.out" >&2
	printf 'vm: %s (tpm-%s) ran %.1f s, boot to poweroff (/init after %s s)\n' \
		"$name" "$dev" "$(awk "BEGIN{print $t1 - $t0}")" \
		"$([ -n "$tinit" ] && awk "BEGIN{printf \"%.1f\", $tinit - $t0}" || echo ?)"
	return "$rc"
}

vm_swtpm_host() {
	local d=$1 pid rc
	shift
	mkdir -p "$d" || return 1
	swtpm socket --tpm2 --tpmstate dir="$d" --flags not-need-init,startup-clear \
		--server type=unixio,path="$d/host.sock" \
		--ctrl type=unixio,path="$d/host.ctrl" >"$d/host.out" 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		[ -S "$d/host.sock" ] && [ -S "$d/host.ctrl" ] && break
		sleep 0.05
	done
	TPMBOX_TCTI="swtpm:path=$d/host.sock" "$@"
	rc=$?
	# A clean shutdown writes the state the guest's swtpm starts from.
	swtpm_ioctl --unix "$d/host.ctrl" -s >/dev/null 2>&1 || kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$d/host.sock" "$d/host.ctrl" "$d/host.out"
	return "$rc"
}

vm_tap() {
	tr -d '\r' < "$1" | sed -n 's/^.*@@TAP //p'
}
