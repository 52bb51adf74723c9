#!/bin/bash
# make vmtest: tpmbox against a real kernel's TPM driver.  Boots Debian's
# own kernel (unpacked, not installed) under QEMU/TCG with OVMF and a swtpm
# as the TPM, twice: tpm-tis with the ima-ng template and tpm-crb with
# ima-sig.  The guest's /init (tests/vm/guest-init.sh) prints TAP lines on
# the serial console; this script prints them (prefixed with the
# scenario) and ends with "vm: N passed, N failed".
#
# Exit 0 all passed, 1 a check failed, 3 the guest did not run, 77 QEMU or
# a part of the set-up is missing (the reason is printed).
# VM_SCENARIOS="tis crb" picks the built-in scenarios.
#
# More scenarios: every tests/vm/scenario-*.sh is run after them (with
# bash; VM_SCENARIOS=none runs only those).  Such a script sources
# tests/vm/lib.sh, builds its own initrd (vm_initrd_base + its /init +
# vm_cpio, or an image made by initramfs-tools/dracut), attaches what it
# needs (vm_boot NAME INITRD LOG -- -drive file=disk.img,format=raw,if=virtio),
# and prints its checks as TAP lines ("ok N - what" / "not ok N - what",
# e.g. from vm_tap LOG); it exits 0 when all passed, 77 to skip (saying
# why).  It gets TPMBOX and VM_DIR in the environment.  See docs/vmtest.md.
cd "$(dirname "$0")/../.." || exit 3
. tests/vm/lib.sh
TPMBOX=${TPMBOX:-$PWD/tpmbox}

vm_can_run || exit 77
[ -x "$TPMBOX" ] || { echo "vm: $TPMBOX not built" >&2; exit 3; }
# The guest has no libc: the binary must be static (no ELF interpreter).
if command -v file >/dev/null && ! file -L "$TPMBOX" | grep -q 'statically linked'; then
	echo "vm: $TPMBOX is not static; the guest has no libc" >&2
	exit 3
fi
t_start=$(date +%s.%N)
vm_kernel || exit 3
echo "vm: kernel $VM_KVER ($VM_KERNEL)"

root=$VM_DIR/initrd
vm_initrd_base "$root" || exit 3
cp "$TPMBOX" "$root/bin/tpmbox" &&
cp tests/vm/guest-init.sh "$root/init" && chmod 0755 "$root/init" || exit 3
vm_cpio "$root" "$VM_DIR/initrd.cpio" || exit 3

pass=0 fail=0 rc=0
for s in ${VM_SCENARIOS:-tis crb}; do
	[ "$s" = none ] && continue
	case $s in
	tis) app="ima_policy=tcb|critical_data ima_template=ima-ng" ;;
	crb) app="ima_policy=tcb|critical_data" ;;   # Debian default template: ima-sig
	*) echo "vm: unknown scenario $s" >&2; exit 2 ;;
	esac
	log=$VM_DIR/$s.log
	vm_boot "$s" "$VM_DIR/initrd.cpio" "$log" -t "$s" \
		-a "rootfstype=ramfs vmtest=$s $app"
	brc=$?
	vm_tap "$log" > "$VM_DIR/$s.tap"
	sed "s/^\(\(not \)\?ok [0-9]*\) - /\1 - $s: /" "$VM_DIR/$s.tap"
	p=$(grep -c '^ok ' "$VM_DIR/$s.tap")
	f=$(grep -c '^not ok ' "$VM_DIR/$s.tap")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$VM_DIR/$s.tap")
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$brc" != 0 ] || ! grep -q '@@VMTEST done' "$log" ||
	   [ "${plan:-x}" != $((p + f)) ]; then
		echo "not ok - $s: the guest did not finish (qemu exit $brc, plan ${plan:-none}); last lines of $log:"
		tail -n 25 "$log" | sed 's/^/#   /'
		fail=$((fail + 1)); rc=3
	fi
done
for f in tests/vm/scenario-*.sh; do
	[ -f "$f" ] || continue
	s=$(basename "$f" .sh); s=${s#scenario-}
	out=$VM_DIR/$s.tap
	TPMBOX=$TPMBOX VM_DIR=$VM_DIR bash "$f" > "$out"
	src=$?
	if [ "$src" = 77 ]; then
		echo "# $s: skipped"; cat "$out"; continue
	fi
	sed "s/^\(\(not \)\?ok [0-9]*\) - /\1 - $s: /" "$out"
	p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out")
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$src" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $s: exit $src without a failed check"
		fail=$((fail + 1)); rc=3
	fi
done
printf 'vm: whole run %.1f s\n' "$(awk "BEGIN{print $(date +%s.%N) - $t_start}")"
echo "vm: $pass passed, $fail failed"
[ "$fail" = 0 ] || exit $(( rc ? rc : 1 ))
