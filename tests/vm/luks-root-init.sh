#!/bin/busybox sh
# /sbin/init of the encrypted root file system in the LUKS scenarios
# (tests/vm/scenario-luks.sh): the initramfs has unlocked /dev/vda and
# switched to it.  Checks what the keyscript left behind and powers off.
# The kernel command line says what the boot should have done:
#   luks=tpm   the key came from the TPM: PCR 15 holds the cap and the
#              blob no longer unseals in this boot
#   luks=token the key came from the volume's header token (tpmbox luks
#              unlock): PCR 15 holds the cap and the token no longer
#              opens in this boot
#   luks=typed the recovery code or passphrase was typed: PCR 15 is
#              untouched (zeros)
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
/bin/busybox mount -t tmpfs tmpfs /tmp
PATH=/bin
export PATH
echo "@@ root init"
n=0
tap() { n=$((n + 1)); echo "@@TAP $1 $n - $2"; }
mode=$(sed -n 's/.*luks=\([a-z]*\).*/\1/p' /proc/cmdline)

# The root is the volume the initramfs opened.
if grep -q '^/dev/mapper/croot / ext4' /proc/mounts && [ "$(cat /marker)" = tpmbox-luks-root ]; then
	tap ok "the root file system is the LUKS volume (/dev/mapper/croot, ext4), its marker read"
else
	tap "not ok" "the root file system is the LUKS volume"
	sed 's/^/@@TAP #   /' /proc/mounts
fi
pcr15=$(tpmbox pcrread sha256:15 2>&1)
zero="sha256:15 $(printf '%064d' 0)"
case $mode in
tpm)
	if [ "$pcr15" = "sha256:15 $(cat /expected-cap)" ]; then
		tap ok "PCR 15 holds the keyscript's cap H(0 || H(\"tpmbox-unlock croot\"))"
	else
		tap "not ok" "PCR 15 holds the cap: $pcr15"
	fi
	tpmbox unseal /root.blob >/tmp/out 2>&1
	rc=$?
	if [ $rc = 4 ]; then
		tap ok "after the cap the blob no longer unseals in this boot (exit 4)"
	else
		tap "not ok" "after the cap the blob no longer unseals (exit $rc)"
	fi
	;;
token)
	if [ "$pcr15" = "sha256:15 $(cat /expected-cap)" ]; then
		tap ok "PCR 15 holds the keyscript's cap H(0 || H(\"tpmbox-unlock croot\"))"
	else
		tap "not ok" "PCR 15 holds the cap: $pcr15"
	fi
	tpmbox luks unlock /dev/vda >/tmp/out 2>/tmp/err
	rc=$?
	if [ $rc = 4 ] && [ ! -s /tmp/out ]; then
		tap ok "after the cap the header's token no longer opens in this boot (exit 4, nothing printed)"
	else
		tap "not ok" "after the cap the header's token no longer opens (exit $rc)"
		sed 's/^/@@TAP #   /' /tmp/err
	fi
	;;
typed)
	if [ "$pcr15" = "$zero" ]; then
		tap ok "no cap after a typed key (PCR 15 still zeros)"
	else
		tap "not ok" "no cap after a typed key: $pcr15"
	fi
	;;
*)	tap "not ok" "luks= missing on the kernel command line" ;;
esac
echo "@@TAP 1..$n"
echo "@@VMTEST done"
sync
poweroff -f
