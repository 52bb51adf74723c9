#!/bin/bash
# A LUKS2 root file system unlocked at boot by an initramfs-tools image
# built with tpmbox's hook and Debian's cryptsetup-initramfs (a real
# mkinitramfs run, the keyscript as crypttab names it), under QEMU with
# OVMF and swtpm as the machine's TPM:
#   1. tpm:  the blob (sealed on the host to PCR 15 at its boot value,
#            with the SRK pinned) unseals; the root finds the cap in
#            PCR 15 and the blob refused after it; no prompt was shown;
#   2. code: the same image with the blob swapped for one sealed to a PCR
#            value this boot does not have (an appended cpio, as the
#            kernel overlays it): unseal refused (exit 4), the prompt
#            comes; a mistyped recovery code is refused and asked again;
#            the right one opens the volume through tpmbox recover;
#   3. pass: the same with the volume's passphrase typed;
#   4. the volume's own header token (crypttab's key none): a
#      systemd-tpm2 token systemd-cryptenroll enrolled and a tpmbox token
#      luks enroll wrote, each opened by tpmbox luks unlock with the cap;
#      on copies sealed to another PCR 15 value the token refused and the
#      passphrase (systemd's) or the token's recovery code (tpmbox's,
#      through luks recover) typed;
#   5. the same volume with an image dracut builds with tpmbox's module
#      (no systemd): TPM unlock with the cap, then the recovery code, then
#      the header token.
# Prints TAP lines; exit 0 all passed, 1 a check failed, 77 skipped (why
# on stdout as a comment).  Run by tests/vm/run.sh (make vmtest).
cd "$(dirname "$0")/../.." || exit 3
. tests/vm/lib.sh
TPMBOX=${TPMBOX:-$PWD/tpmbox}
# The images get the initramfs profile (make tiny-initramfs: only the
# keyscript's applets) when it is built; the root file system the full one.
IMG_TPMBOX=$TPMBOX
[ -z "${TPMBOX_INITRAMFS:-}" ] || IMG_TPMBOX=$TPMBOX_INITRAMFS
echo "# the images' tpmbox: $IMG_TPMBOX ($(stat -c %s "$IMG_TPMBOX") bytes)"
skip() { echo "# skip: $*"; exit 77; }

vm_can_run 2>/dev/null || skip "$(vm_can_run 2>&1)"
[ "$(id -u)" = 0 ] || skip "mkinitramfs over the unpacked kernel's modules needs root (unshare -m)"
for t in mkinitramfs cryptsetup mkfs.ext4 depmod unshare socat swtpm_ioctl; do
	command -v "$t" >/dev/null || skip "$t is missing (make check installs it)"
done
[ -r /usr/share/initramfs-tools/hooks/cryptroot ] ||
	skip "cryptsetup-initramfs is not installed (make check installs it)"
vm_kernel >/dev/null || exit 3

W=$VM_DIR/luks
rm -rf "$W" && mkdir -p "$W" || exit 3
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }

# ---- the TPM: SRK persisted and pinned, two blobs, made on the host ----
TPM=$W/tpm
mkdir -p "$TPM"
umask 077
head -c 64 /dev/urandom > "$W/key"
printf 'luks fallback passphrase' > "$W/pass"
mkdir -p "$W/etc"
cp initramfs/initramfs.conf "$W/etc/initramfs.conf"
zero=$(printf '%064d' 0)
vm_swtpm_host "$TPM" sh -c '
	"$0" takeown --srk-pub "$1/etc/srk.pem" >/dev/null &&
	echo "sha256:15 '"$zero"'" > "$1/zero.pcrs" &&
	"$0" seal -P "$1/zero.pcrs" -o "$1/root.blob" "$1/key" &&
	echo "sha256:15 $(printf %064d 1)" > "$1/moved.pcrs" &&
	"$0" seal -P "$1/moved.pcrs" --recovery-code-out "$1/code" \
		-o "$1/moved.blob" "$1/key"' "$TPMBOX" "$W" ||
	{ echo "not ok - sealing on the host failed"; exit 1; }
code=$(grep -E '^[0-9]{6}(-[0-9]{6}){7}$' "$W/code")
# the cap the keyscript extends: H(zeros || H("tpmbox-unlock croot"))
cap=$(printf '%s%s' "$zero" "$(printf 'tpmbox-unlock croot' | sha256sum | cut -c1-64)" |
      xxd -r -p | sha256sum | cut -c1-64)

# ---- the encrypted root: ext4 made from a directory, encrypted in place ----
R=$W/rootfs
mkdir -p "$R/bin" "$R/sbin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/run"
cp "$VM_BUSYBOX" "$R/bin/busybox"
for a in $("$VM_BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -s busybox "$R/bin/$a"
done
cp "$TPMBOX" "$R/bin/tpmbox"
cp tests/vm/luks-root-init.sh "$R/sbin/init" && chmod 755 "$R/sbin/init"
cp "$W/root.blob" "$R/root.blob"
echo tpmbox-luks-root > "$R/marker"
echo "$cap" > "$R/expected-cap"
truncate -s 64M "$W/disk.img"
mkfs.ext4 -q -F -d "$R" "$W/disk.img" 32M || exit 3
cryptsetup reencrypt -q --encrypt --type luks2 --reduce-device-size 32M \
	--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$W/key" "$W/disk.img" ||
	{ echo "not ok - cryptsetup reencrypt --encrypt failed"; exit 1; }
cryptsetup luksAddKey -q --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--key-file "$W/key" "$W/disk.img" "$W/pass" || exit 3

# ---- the image: mkinitramfs with cryptsetup's hook and tpmbox's ----
C=$W/conf
cp -r /etc/initramfs-tools "$C"
rm -rf "$C/conf.d"/* "$C/hooks"/* "$C/scripts"/*
sed -i 's/^MODULES=.*/MODULES=list/; s/^COMPRESS=.*/COMPRESS=gzip/' "$C/initramfs.conf"
printf 'virtio_pci\nvirtio_blk\next4\ncrc32c_generic\ndm_crypt\n' > "$C/modules"
echo RESUME=none > "$C/conf.d/resume"
cp initramfs/initramfs-tools/tpmbox "$C/hooks/tpmbox"
echo "croot UUID=$(cryptsetup luksUUID "$W/disk.img") /etc/tpmbox/root.blob luks,initramfs,keyscript=tpmbox-unlock" > "$W/crypttab"
mkdir -p "$W/scripts"
cp -a /lib/cryptsetup/scripts/. "$W/scripts/"
cp initramfs/tpmbox-unlock "$W/scripts/tpmbox-unlock"
# mkinitramfs_img CRYPTTAB OUT BIN: an initramfs-tools image for the
# crypttab file given, with BIN as its tpmbox (root.blob at the path the
# first crypttab names; the hook copies it from there).
mkinitramfs_img() {
	local made= m mrc t0
	# Mount points this host may lack (a container has no /lib/modules):
	# made for the private mounts below and removed after.
	for m in /lib/modules /etc/tpmbox /boot; do
		[ -d "$m" ] || { mkdir "$m" && made="$made $m"; }
	done
	t0=$(date +%s)
	TPMBOX_BIN=$3 TPMBOX_ETC=$W/etc TPMBOX_CRYPTTAB=$1 \
	TPMBOX_KEYSCRIPT=$W/scripts/tpmbox-unlock \
	unshare -m sh -ec '
		mount --bind "$1/kernel/root/lib/modules" /lib/modules
		mount --bind "$1/kernel/root/boot" /boot	# the kernel config
		mount --bind "$4" /etc/crypttab
		mount --bind "$2/scripts" /lib/cryptsetup/scripts
		# the blob where crypttab names it; the hook copies it from there
		mount -t tmpfs tmpfs /etc/tpmbox
		cp "$2/root.blob" /etc/tpmbox/root.blob
		mkinitramfs -d "$2/conf" -o "$5" "$3"' sh "$VM_DIR" "$W" "$VM_KVER" "$1" "$2" \
		> "$W/mkinitramfs.log" 2>&1
	mrc=$?
	for m in $made; do rmdir "$m"; done
	if [ $mrc != 0 ]; then
		echo "not ok - mkinitramfs failed (exit $mrc):"; sed 's/^/#   /' "$W/mkinitramfs.log"
		exit 1
	fi
	echo "# mkinitramfs: $(stat -c %s "$2") bytes in $(( $(date +%s) - t0 )) s"
}
depmod -b "$VM_DIR/kernel/root" "$VM_KVER" || exit 3
mkinitramfs_img "$W/crypttab" "$W/initrd.img" "$IMG_TPMBOX"
check "the image holds tpmbox, the keyscript, the pinned SRK, the blob and cryptsetup" \
	sh -c 'l=$(lsinitramfs "$0"); for f in usr/bin/tpmbox lib/cryptsetup/scripts/tpmbox-unlock \
		etc/tpmbox/srk.pem etc/tpmbox/root.blob cryptroot/crypttab sbin/cryptsetup; do
		echo "$l" | grep -qx "$f\|usr/$f" || { echo "# missing: $f"; exit 1; }; done' "$W/initrd.img"

# The second image: the same, with the blob replaced by one sealed to a
# PCR 15 value this boot never has (the kernel unpacks an appended cpio
# over the first).
mkdir -p "$W/over/etc/tpmbox"
cp "$W/moved.blob" "$W/over/etc/tpmbox/root.blob"
# What the person types comes from a second disk standing for the
# keyboard, one answer per line, through the keyscript's TPMBOX_ASKPASS:
# this QEMU set-up's serial input reaches a plain /init (measured) but not
# a prompt under initramfs-tools (neither askpass nor the keyscript's own
# console read got a byte), so the console is not the keyboard here.
cat > "$W/over/etc/tpmbox/keyboard" <<'EOF'
#!/bin/sh
# "types" the next line of /dev/vdb at the prompt $1
n=$(( $(cat /run/keyboard.n 2>/dev/null || echo 0) + 1 ))
echo "$n" > /run/keyboard.n
printf '%s' "$1" > /dev/console
line=$(sed -n "${n}p" /dev/vdb)
echo "[typed answer $n]" > /dev/console
printf '%s' "$line"
EOF
chmod 755 "$W/over/etc/tpmbox/keyboard"
{ cat initramfs/initramfs.conf; echo TPMBOX_ASKPASS=/etc/tpmbox/keyboard; } > "$W/over/etc/tpmbox/initramfs.conf"
# (the kernel looks for the next archive at a 4-byte boundary after the
# compressed one: pad with zeros, which it skips)
cp "$W/initrd.img" "$W/initrd-moved.img" &&
	truncate -s $(( ($(stat -c %s "$W/initrd.img") + 511) / 512 * 512 )) "$W/initrd-moved.img" &&
	vm_cpio "$W/over" "$W/over.cpio" && cat "$W/over.cpio" >> "$W/initrd-moved.img" || exit 3

DISK=$W/disk.img	# the volume the next boot opens
app="root=/dev/mapper/croot rootfstype=ext4 rootwait"

# boot: NAME INITRD MODE [TEXT...]: boot with a copy of the TPM state;
# each TEXT is typed at one prompt of the keyscript, in turn (the
# keyboard disk).
boot() {
	local name=$1 initrd=$2 mode=$3 log=$VM_DIR/$1.log kb=$VM_DIR/$1.keyboard
	shift 3
	rm -rf "${VM_DIR:?}/$name" && mkdir -p "$VM_DIR/$name" &&
		cp -r "$TPM" "$VM_DIR/$name/tpm" || return 3
	printf '%s\n' "$@" > "$kb" && truncate -s 4096 "$kb"
	vm_boot "$name" "$initrd" "$log" -k -a "$app luks=$mode" -- \
		-drive "file=$DISK,format=raw,if=virtio" \
		-drive "file=$kb,format=raw,if=virtio,readonly=on" > "$VM_DIR/$name.boot" 2>&1
}
# tap_of NAME WHAT: the guest's own checks, and that it got to the end.
tap_of() {
	local log=$VM_DIR/$1.log
	while IFS= read -r l; do
		case $l in
		"ok "*) ok "$2: ${l#ok * - }" ;;
		"not ok "*) nok "$2: ${l#not ok * - }" ;;
		esac
	done < <(vm_tap "$log")
	if ! grep -q '@@VMTEST done' "$log"; then
		nok "$2: the guest reached its root's /init and finished"
		tr -d '\r' < "$log" | tail -n 30 | sed 's/^/#   /'
		cat "$VM_DIR/$1.boot" | sed 's/^/#   /'
	fi
}
prompts() { grep -a -c 'Passphrase or recovery code for croot' "$VM_DIR/$1.log"; }

boot luks-tpm "$W/initrd.img" tpm
sed 's/^/# /' "$VM_DIR/luks-tpm.boot"
tap_of luks-tpm "tpm"
check "tpm: no prompt: the key came from the TPM" [ "$(prompts luks-tpm)" = 0 ]

bad=$(echo "$code" | sed 's/^\(.\)\(.\)/\1X/')
d2=${code:1:1}
bad=${bad/X/$(( (d2 + 1) % 10 ))}
boot luks-code "$W/initrd-moved.img" typed "$bad" "$(echo "$code" | tr - ' ')"
sed 's/^/# /' "$VM_DIR/luks-code.boot"
tap_of luks-code "code"
check "code: the keyscript said why it asked (unseal refused, exit 4)" \
	grep -a -q 'tpmbox-unlock: croot: unseal refused (exit 4)' "$VM_DIR/luks-code.log"
check "code: the mistyped group was named and the prompt came again" \
	sh -c 'grep -a -q "group 1" "$0" && grep -a -q "the recovery code does not open this blob (recover exit 2)" "$0" &&
	       [ "$(grep -a -c "Passphrase or recovery code for croot" "$0")" = 2 ]' "$VM_DIR/luks-code.log"

boot luks-pass "$W/initrd-moved.img" typed "$(cat "$W/pass")"
sed 's/^/# /' "$VM_DIR/luks-pass.boot"
tap_of luks-pass "passphrase"
check "passphrase: one prompt, the passphrase's keyslot opened the root" [ "$(prompts luks-pass)" = 1 ]

# ---- the volume's own header token (crypttab's key none) ----
# systemd-cryptenroll (the oracle) enrolls a systemd-tpm2 token on copies
# of the volume, on the host with the machine's TPM: sealed to PCR 15 at
# zeros (this boot's value before the cap), and on the second copy to a
# PCR 15 value this boot never has.  The images get the full tpmbox: the
# initramfs profile has no luks applet (docs/initramfs.md).
SD=
if ! command -v systemd-cryptenroll >/dev/null; then
	echo "# header token: skipped, systemd-cryptenroll is not installed (make check installs it)"
else
	# and tpmbox luks enroll --as tpmbox the same way (PCR 15 at zeros
	# under the pinned SRK; the moved copy with a recovery code)
	for d in sd sdmoved tb tbmoved; do
		cp "$W/disk.img" "$W/disk-$d.img" || exit 3
	done
	vm_swtpm_host "$TPM" sh -c '
		ln -sf host.ctrl "$2/host.sock.ctrl"
		enroll() { PASSWORD=$(cat "$1/pass") systemd-cryptenroll \
			--tpm2-device="swtpm:path=$2/host.sock" --tpm2-pcrs=15 "$3"; }
		tbenroll() { d=$1 f=$2; shift 2; "$0" luks enroll "$d/$f" --as tpmbox \
			-p sha256:15 --unlock-key-file "$d/pass" "$@"; }
		enroll "$1" "$2" "$1/disk-sd.img" &&
		tbenroll "$1" disk-tb.img &&
		"$0" totp enroll -p sha256:15 -o "$1/totp.blob" --qr none \
			--uri-out "$1/totp.uri" >/dev/null &&
		"$0" extend 15 -s elsewhere >/dev/null &&
		enroll "$1" "$2" "$1/disk-sdmoved.img" &&
		tbenroll "$1" disk-tbmoved.img --recovery-code-out "$1/tb.code"
		rc=$?; rm -f "$2/host.sock.ctrl"; exit $rc' "$TPMBOX" "$W" "$TPM" \
		> "$W/cryptenroll.log" 2>&1
	erc=$?
fi
if ! command -v systemd-cryptenroll >/dev/null; then :
elif [ "$erc" != 0 ]; then
	# (no boot without the tokens: each would wait for a prompt's timeout)
	nok "systemd-cryptenroll, tpmbox luks enroll and totp enroll on the host"
	sed 's/^/#   /' "$W/cryptenroll.log"
else
	tbcode=$(grep -E '^[0-9]{6}(-[0-9]{6}){7}$' "$W/tb.code" 2>/dev/null)
	echo "croot UUID=$(cryptsetup luksUUID "$W/disk-sd.img") none luks,initramfs,keyscript=tpmbox-unlock" > "$W/crypttab-sd"
	mkinitramfs_img "$W/crypttab-sd" "$W/initrd-sd.img" "$TPMBOX"
	SD=1
	DISK=$W/disk-sd.img
	boot luks-sd-tpm "$W/initrd-sd.img" token
	sed 's/^/# /' "$VM_DIR/luks-sd-tpm.boot"
	tap_of luks-sd-tpm "systemd token"
	check "systemd token: no prompt: luks unlock opened the header's token" [ "$(prompts luks-sd-tpm)" = 0 ]
	# the keyboard for the prompt: the same appended cpio as above
	cp "$W/initrd-sd.img" "$W/initrd-sd-kb.img" &&
		truncate -s $(( ($(stat -c %s "$W/initrd-sd.img") + 511) / 512 * 512 )) "$W/initrd-sd-kb.img" &&
		cat "$W/over.cpio" >> "$W/initrd-sd-kb.img" || exit 3
	# and with the TOTP code shown before the prompt (TPMBOX_TOTP: a
	# blob totp enroll sealed to PCR 15 at zeros on the host)
	rm -rf "$W/over-totp" && cp -a "$W/over" "$W/over-totp" &&
		cp "$W/totp.blob" "$W/over-totp/etc/tpmbox/totp.blob" &&
		echo TPMBOX_TOTP=/etc/tpmbox/totp.blob >> "$W/over-totp/etc/tpmbox/initramfs.conf" &&
		vm_cpio "$W/over-totp" "$W/over-totp.cpio" &&
		cp "$W/initrd-sd.img" "$W/initrd-sd-totp.img" &&
		truncate -s $(( ($(stat -c %s "$W/initrd-sd.img") + 511) / 512 * 512 )) "$W/initrd-sd-totp.img" &&
		cat "$W/over-totp.cpio" >> "$W/initrd-sd-totp.img" || exit 3
	DISK=$W/disk-sdmoved.img
	t0=$(date +%s)
	boot luks-sd-moved "$W/initrd-sd-totp.img" typed "$(cat "$W/pass")"
	t1=$(date +%s)
	sed 's/^/# /' "$VM_DIR/luks-sd-moved.boot"
	tap_of luks-sd-moved "systemd token moved"
	check "systemd token moved: the token refused (exit 4), one prompt, the passphrase opened the root" \
		sh -c 'grep -a -q "tpmbox-unlock: croot: the header.s TPM token refused (exit 4)" "$0" &&
		       [ "$(grep -a -c "Passphrase or recovery code for croot" "$0")" = 1 ]' "$VM_DIR/luks-sd-moved.log"
	# the code on the console before the prompt is the phone's (oathtool
	# with the URI's secret) for a time during the boot
	shown=$(tr -d '\r' < "$VM_DIR/luks-sd-moved.log" |
		sed -n '/Passphrase or recovery code for croot/q; s/^\([0-9]\{6\}\)\( .*\)\{0,1\}$/\1/p' | head -n1)
	secret=$(sed 's/.*[?&]secret=\([A-Z2-7]*\).*/\1/' "$W/totp.uri")
	echo "# TOTP on the console: ${shown:-none}"
	check "TOTP: before the prompt the console shows the code the phone shows (oathtool, a time during the boot)" \
		sh -c 'for t in $(seq $(($2 - 30)) 30 $(($3 + 30))); do
			[ "$(oathtool --totp -b "$1" --now "@$t")" = "$0" ] && exit 0; done; exit 1' \
		"${shown:-none}" "$secret" "$t0" "$t1"
	DISK=$W/disk-tb.img
	boot luks-tb-tpm "$W/initrd-sd.img" token
	sed 's/^/# /' "$VM_DIR/luks-tb-tpm.boot"
	tap_of luks-tb-tpm "tpmbox token"
	check "tpmbox token: no prompt: luks unlock opened the header's token" [ "$(prompts luks-tb-tpm)" = 0 ]
	DISK=$W/disk-tbmoved.img
	boot luks-tb-code "$W/initrd-sd-kb.img" typed "$(echo "$tbcode" | tr - ' ')"
	sed 's/^/# /' "$VM_DIR/luks-tb-code.boot"
	tap_of luks-tb-code "tpmbox token moved"
	check "tpmbox token moved: the token refused (exit 4), one prompt, its recovery code opened the root (luks recover)" \
		sh -c 'grep -a -q "tpmbox-unlock: croot: the header.s TPM token refused (exit 4)" "$0" &&
		       [ "$(grep -a -c "Passphrase or recovery code for croot" "$0")" = 1 ]' "$VM_DIR/luks-tb-code.log"
	DISK=$W/disk.img
fi

# ---- the same volume opened by a dracut image (no systemd) ----
# dracut-core's own tools, with tpmbox's module added to a copy of its
# modules.d; dracut's crypt module stays out of the way (rd.luks=0): the
# module's settled hook opens the volume with the keyscript's output.
if ! command -v dracut >/dev/null; then
	echo "# dracut: skipped, dracut-core is not installed (make check installs it)"
else
	D=$W/dracut
	mkdir -p "$D/bin" "$D/conf.d"
	cp -a /usr/lib/dracut/modules.d "$D/modules.d"
	mkdir -p "$D/modules.d/90tpmbox"
	cp initramfs/dracut/90tpmbox/* initramfs/tpmbox-unlock "$D/modules.d/90tpmbox/"
	# dracut_img CRYPTTAB OUT BIN: the dracut image for that crypttab
	# file, with BIN as its tpmbox; exit status that of dracut.
	dracut_img() {
		local made= m mrc t0
		mkdir -p "$D/bin" && cp "$3" "$D/bin/tpmbox" || return 1
		for m in /lib/modules /etc/tpmbox /boot; do
			[ -d "$m" ] || { mkdir "$m" && made="$made $m"; }
		done
		t0=$(date +%s)
		DRACUT_PATH="$D/bin /sbin /bin /usr/sbin /usr/bin" TPMBOX_ETC=$W/etc TPMBOX_CRYPTTAB=$1 \
		unshare -m sh -ec '
			mount --bind "$1/kernel/root/lib/modules" /lib/modules
			mount --bind "$1/kernel/root/boot" /boot
			mount --bind "$2/dracut/modules.d" /usr/lib/dracut/modules.d
			mount -t tmpfs tmpfs /etc/tpmbox
			cp "$2/root.blob" /etc/tpmbox/root.blob
			dracut --force --no-hostonly --no-early-microcode --gzip \
				--conf /dev/null --confdir "$2/dracut/conf.d" \
				--kver "$3" --kmoddir "/lib/modules/$3" \
				--modules "base rootfs-block udev-rules crypt tpmbox" \
				--omit "systemd systemd-initrd dracut-systemd plymouth" \
				--drivers "virtio_pci virtio_blk ext4 crc32c_generic dm_crypt" \
				"$4" "$3"' sh "$VM_DIR" "$W" "$VM_KVER" "$2" \
			> "$D/dracut.log" 2>&1
		mrc=$?
		for m in $made; do rmdir "$m"; done
		[ $mrc = 0 ] && echo "# dracut: $(stat -c %s "$2") bytes in $(( $(date +%s) - t0 )) s"
		return $mrc
	}
	dracut_img "$W/crypttab" "$W/initrd-dracut.img" "$IMG_TPMBOX"
	mrc=$?
	if [ $mrc != 0 ]; then
		nok "dracut: building the image (exit $mrc)"
		tail -n 30 "$D/dracut.log" | sed 's/^/#   /'
	else
		check "dracut: the image holds tpmbox, the keyscript, its hook, the pinned SRK and the blob" \
			sh -c 'l=$(lsinitrd "$0" 2>/dev/null | awk "{print \$NF}"); for f in usr/bin/tpmbox lib/cryptsetup/scripts/tpmbox-unlock \
				sbin/tpmbox-dracut etc/tpmbox/srk.pem etc/tpmbox/root.blob etc/tpmbox-crypttab; do
				echo "$l" | grep -qx "$f\|usr/$f" || { echo "# missing: $f"; exit 1; }; done' "$W/initrd-dracut.img"
		cp "$W/initrd-dracut.img" "$W/initrd-dracut-moved.img" &&
			truncate -s $(( ($(stat -c %s "$W/initrd-dracut.img") + 511) / 512 * 512 )) "$W/initrd-dracut-moved.img" &&
			cat "$W/over.cpio" >> "$W/initrd-dracut-moved.img" || exit 3
		app="$app rd.luks=0 rd.shell=0"
		boot luks-dracut-tpm "$W/initrd-dracut.img" tpm
		sed 's/^/# /' "$VM_DIR/luks-dracut-tpm.boot"
		tap_of luks-dracut-tpm "dracut tpm"
		check "dracut tpm: no prompt: the key came from the TPM" [ "$(prompts luks-dracut-tpm)" = 0 ]
		boot luks-dracut-code "$W/initrd-dracut-moved.img" typed "$(echo "$code" | tr - ' ')"
		sed 's/^/# /' "$VM_DIR/luks-dracut-code.boot"
		tap_of luks-dracut-code "dracut code"
		check "dracut code: unseal refused (exit 4), one prompt, the recovery code opened the root" \
			sh -c 'grep -a -q "tpmbox-unlock: croot: unseal refused (exit 4)" "$0" &&
			       [ "$(grep -a -c "Passphrase or recovery code for croot" "$0")" = 1 ]' "$VM_DIR/luks-dracut-code.log"
		if [ -n "$SD" ]; then
			if dracut_img "$W/crypttab-sd" "$W/initrd-dracut-sd.img" "$TPMBOX"; then
				DISK=$W/disk-sd.img
				boot luks-dracut-sd "$W/initrd-dracut-sd.img" token
				sed 's/^/# /' "$VM_DIR/luks-dracut-sd.boot"
				tap_of luks-dracut-sd "dracut systemd token"
				check "dracut systemd token: no prompt: luks unlock opened the header's token" \
					[ "$(prompts luks-dracut-sd)" = 0 ]
				DISK=$W/disk-tb.img
				boot luks-dracut-tb "$W/initrd-dracut-sd.img" token
				sed 's/^/# /' "$VM_DIR/luks-dracut-tb.boot"
				tap_of luks-dracut-tb "dracut tpmbox token"
				check "dracut tpmbox token: no prompt: luks unlock opened the header's token" \
					[ "$(prompts luks-dracut-tb)" = 0 ]
				DISK=$W/disk.img
			else
				nok "dracut: building the image for the header token"
				tail -n 30 "$D/dracut.log" | sed 's/^/#   /'
			fi
		fi
	fi
fi

echo "1..$n"
[ "$fails" = 0 ]
