#!/bin/bash
# dracut module tpmbox: unlock LUKS volumes with a blob sealed by tpmbox,
# without systemd.  For every /etc/crypttab line whose options name
# keyscript=tpmbox-unlock, the image gets the blob (none: the volume's
# header token is read at boot), and a settled-queue
# hook opens the volume with the keyscript's output (TPM first, then the
# passphrase), the way cryptsetup's keyscript= works on Debian.
# Opt-in: add_dracutmodules+=" tpmbox " in /etc/dracut.conf.d/tpmbox.conf.

check() {
	require_binaries tpmbox cryptsetup || return 1
	return 255	# only when asked for
}

depends() {
	echo crypt
	return 0
}

install() {
	local name source key options
	inst_binary "$(command -v tpmbox)" /usr/bin/tpmbox
	inst_script "$moddir/tpmbox-unlock" /lib/cryptsetup/scripts/tpmbox-unlock
	inst_script "$moddir/tpmbox-dracut.sh" /sbin/tpmbox-dracut
	local etc=${TPMBOX_ETC:-/etc/tpmbox}
	[ -r "$etc/initramfs.conf" ] &&
		inst_simple "$etc/initramfs.conf" /etc/tpmbox/initramfs.conf
	[ -r "$etc/srk.pem" ] && inst_simple "$etc/srk.pem" /etc/tpmbox/srk.pem
	# the TOTP blob the settings name (TPMBOX_TOTP), at the same path
	local totp
	totp=$( [ -r "$etc/initramfs.conf" ] && . "$etc/initramfs.conf"; echo "${TPMBOX_TOTP:-}")
	if [ -n "$totp" ]; then
		if [ -r "$totp" ]; then
			inst_simple "$totp"
		else
			dwarn "tpmbox: TPMBOX_TOTP names $totp, which is missing"
		fi
	fi
	# The volumes to open, one "NAME SOURCE BLOB" line each.
	: > "$initdir/etc/tpmbox-crypttab"
	while read -r name source key options; do
		case $name in ""|\#*) continue ;; esac
		case ",$options," in
		*,keyscript=tpmbox-unlock,*|*,keyscript=*/tpmbox-unlock,*) ;;
		*) continue ;;
		esac
		if [ "$key" = none ]; then
			# the volume's own header token (tpmbox luks unlock)
			echo "$name $source none" >> "$initdir/etc/tpmbox-crypttab"
		elif [ -r "$key" ]; then
			inst_simple "$key"
			echo "$name $source $key" >> "$initdir/etc/tpmbox-crypttab"
		else
			dwarn "tpmbox: $name: the blob $key is missing"
		fi
	done < "${TPMBOX_CRYPTTAB:-/etc/crypttab}"
	inst_hook initqueue/settled 20 "$moddir/tpmbox-settled.sh"
}
