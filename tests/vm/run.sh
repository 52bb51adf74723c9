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
# VM_SCENARIOS="tis crb" picks scenarios; VM_KEEP=1 keeps build/vm/*/.
cd "$(dirname "$0")/../.." || exit 3
. tests/vm/lib.sh
TPMBOX=${TPMBOX:-$PWD/tpmbox}

vm_can_run || exit 77
[ -x "$TPMBOX" ] || { echo "vm: $TPMBOX not built" >&2; exit 3; }
file -L "$TPMBOX" 2>/dev/null | grep -q 'statically linked' ||
	{ echo "vm: $TPMBOX is not static; the guest has no libc" >&2; exit 3; }
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
printf 'vm: whole run %.1f s\n' "$(awk "BEGIN{print $(date +%s.%N) - $t_start}")"
echo "vm: $pass passed, $fail failed"
[ "$fail" = 0 ] || exit $(( rc ? rc : 1 ))
