#!/bin/bash
# systemd's own token plugin (libcryptsetup-token-systemd-tpm2.so, the
# plugin systemd-cryptsetup and `cryptsetup open` load) against tokens in
# LUKS2 headers, in the real-kernel guest: the plugin talks only to
# /dev/tpmrmN (ORACLES.md), so it can be an oracle only here.  Debian's
# dynamic cryptsetup, the plugin and the libraries they load (tpm2-tss's
# included, which systemd dlopens) are copied into the guest with their
# paths; the guest runs `cryptsetup open --token-only --test-passphrase`
# on each disk:
#   vda  a token systemd-cryptenroll enrolled, sealed to PCR 15 at zeros
#        (this boot's value): the plugin's control, it must open;
#   vdb  the same sealed to another PCR 15 value: it must not open (the
#        check can fail);
#   vdc  the token `tpmbox luks enroll --as systemd` writes, PCR 15: the
#        plugin must open it (issue 27).
# Prints TAP lines; exit 0 all passed, 1 a check failed, 77 skipped.
cd "$(dirname "$0")/../.." || exit 3
. tests/vm/lib.sh
TPMBOX=${TPMBOX:-$PWD/tpmbox}
skip() { echo "# skip: $*"; exit 77; }
vm_can_run 2>/dev/null || skip "$(vm_can_run 2>&1)"
for t in cryptsetup systemd-cryptenroll ldd swtpm_ioctl; do
	command -v "$t" >/dev/null || skip "$t is missing (make check installs it)"
done
PLUGIN=$(ls /usr/lib/*/cryptsetup/libcryptsetup-token-systemd-tpm2.so 2>/dev/null | head -n1)
[ -n "$PLUGIN" ] || skip "systemd's token plugin is not installed (the systemd package)"
vm_kernel >/dev/null || exit 3

W=$VM_DIR/plugin
rm -rf "$W" && mkdir -p "$W" || exit 3
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# ---- three volumes, their tokens enrolled on the host with the TPM ----
umask 077
printf 'plugin test passphrase' > "$W/pass"
for d in sd sdmoved tb; do
	truncate -s 32M "$W/$d.img" &&
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 "$W/$d.img" "$W/pass" || exit 3
done
TPM=$W/tpm
tb_enroll=
"$TPMBOX" luks --help 2>/dev/null | grep -q -- '--as' && tb_enroll=1
vm_swtpm_host "$TPM" sh -c '
	ln -sf host.ctrl "$2/host.sock.ctrl"
	enroll() { PASSWORD=$(cat "$1/pass") systemd-cryptenroll \
		--tpm2-device="swtpm:path=$2/host.sock" --tpm2-pcrs=15 "$3" &&
		tpm2_flushcontext -t -T "swtpm:path=$2/host.sock" 2>/dev/null; true; }
	enroll "$1" "$2" "$1/sd.img" || exit 1
	if [ -n "$3" ]; then
		"$0" luks enroll "$1/tb.img" --as systemd -p sha256:15 \
			--unlock-key-file "$1/pass" || exit 1
	fi
	"$0" extend 15 -s elsewhere >/dev/null &&
	enroll "$1" "$2" "$1/sdmoved.img"
	rc=$?; rm -f "$2/host.sock.ctrl"; exit $rc' "$TPMBOX" "$W" "$TPM" "$tb_enroll" \
	> "$W/enroll.log" 2>&1 ||
	{ echo "not ok - enrolling on the host failed:"; sed 's/^/#   /' "$W/enroll.log"; exit 1; }

# ---- the guest: busybox, cryptsetup and the plugin with their libraries ----
R=$W/initrd
vm_initrd_base "$R" || exit 3
vm_modules "$R" virtio_pci virtio_blk dm_mod dm_crypt algif_skcipher xts || exit 3
# libcopy FILE...: each file and what ldd says it loads, at their paths
libcopy() {
	local f l
	for f in "$@"; do
		mkdir -p "$R$(dirname "$f")" && cp -L "$f" "$R$f" || return 1
		for l in $(ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
			[ -e "$R$l" ] && continue
			mkdir -p "$R$(dirname "$l")" && cp -L "$l" "$R$l" || return 1
		done
	done
}
libcopy "$(command -v cryptsetup)" "$PLUGIN" \
	/usr/lib/x86_64-linux-gnu/libtss2-*.so.0 || exit 3
# cryptsetup looks for its plugins under /lib (merged /usr on the host)
mkdir -p "$R/lib/x86_64-linux-gnu/cryptsetup" &&
	cp "$PLUGIN" "$R/lib/x86_64-linux-gnu/cryptsetup/" || exit 3
mkdir -p "$R/usr/sbin" && mv "$R$(command -v cryptsetup)" "$R/usr/sbin/cryptsetup" 2>/dev/null
cat > "$R/init" <<'EOF'
#!/bin/sh
PATH=/bin:/sbin:/usr/sbin:/usr/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
for m in $(cat /etc/vm-modules); do insmod /lib/modules/$m.ko 2>/dev/null; done
echo "@@ guest up"
i=0
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vdc ] && break; sleep 1; done
# ckd DEV WANT WHAT: cryptsetup's exit status on DEV is 0 (WANT ok) or not
ckd() {
	i=$((i + 1))
	cryptsetup open --token-only --test-passphrase "$1" >/tmp/out 2>&1
	rc=$?
	if { [ "$2" = ok ] && [ $rc = 0 ]; } || { [ "$2" = fail ] && [ $rc != 0 ]; }; then
		echo "@@TAP ok $i - $3 (exit $rc)"
	else
		echo "@@TAP not ok $i - $3 (exit $rc)"
		cryptsetup --debug open --token-only --test-passphrase "$1" 2>&1 |
			tail -n 25 | sed 's/^/@@TAP #   /'
	fi
}
[ -c /dev/tpmrm0 ] && echo "@@TAP # /dev/tpmrm0 is there"
ckd /dev/vda ok "systemd's plugin opens systemd-cryptenroll's token (the control)"
ckd /dev/vdb fail "systemd's plugin refuses the token sealed to another PCR 15 value"
if [ -s /etc/tb-enrolled ]; then
	ckd /dev/vdc ok "systemd's plugin opens the token tpmbox luks enroll --as systemd wrote"
fi
echo "@@TAP 1..$i"
echo "@@VMTEST done"
poweroff -f
EOF
chmod 755 "$R/init"
[ -n "$tb_enroll" ] && echo 1 > "$R/etc/tb-enrolled"
vm_cpio "$R" "$W/initrd.cpio" || exit 3
echo "# the guest's initrd: $(stat -c %s "$W/initrd.cpio") bytes${tb_enroll:+; tpmbox enrolled vdc}"
[ -n "$tb_enroll" ] || echo "# tpmbox has no luks enroll: vdc is not checked"

mkdir -p "$VM_DIR/plugin-boot" && rm -rf "$VM_DIR/plugin-boot/tpm" &&
	cp -r "$TPM" "$VM_DIR/plugin-boot/tpm" || exit 3
vm_boot plugin-boot "$W/initrd.cpio" "$W/boot.log" -k -a "rdinit=/init" -- \
	-drive "file=$W/sd.img,format=raw,if=virtio" \
	-drive "file=$W/sdmoved.img,format=raw,if=virtio" \
	-drive "file=$W/tb.img,format=raw,if=virtio" > "$W/boot.out" 2>&1
sed 's/^/# /' "$W/boot.out"
while IFS= read -r l; do
	case $l in
	"ok "*) ok "${l#ok * - }" ;;
	"not ok "*) nok "${l#not ok * - }" ;;
	"#"*) echo "$l" ;;
	esac
done < <(vm_tap "$W/boot.log")
if ! grep -q '@@VMTEST done' "$W/boot.log"; then
	nok "the guest finished"
	tr -d '\r' < "$W/boot.log" | tail -n 30 | sed 's/^/#   /'
fi
echo "1..$n"
[ "$fails" = 0 ]
