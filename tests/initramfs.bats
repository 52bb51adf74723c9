#!/usr/bin/env bats
# The initramfs integration (issue 13): the tpmbox-unlock keyscript against
# this suite's swtpm (unseal, cap, every fallback), its key opening a real
# LUKS2 container (cryptsetup), the initramfs-tools hook in a real
# mkinitramfs image (lsinitramfs, unmkinitramfs), and the dracut module's
# install() against recording stubs of dracut's helpers.

load helpers/common

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
KS=$ROOT/initramfs/tpmbox-unlock

setup_file() {
	swtpm_start
	tb takeown >/dev/null
	export KD=$BATS_FILE_TMPDIR/ks
	mkdir -p "$KD"
	# the passphrase a person would type, as an askpass program
	printf '#!/bin/sh\necho "asked: $1" >&2\nprintf fallback-pass\n' > "$KD/askpass"
	chmod 755 "$KD/askpass"
	# settings as /etc/tpmbox/initramfs.conf would give them: PCR 16
	# (resettable, so each test starts from zeros) as the cap
	printf 'TPMBOX_CAP_PCR=16\nTPMBOX_ASKPASS=%s\n' "$KD/askpass" > "$KD/conf"
	head -c 64 /dev/urandom > "$KD/key"
	# sealed to PCR 16 as it is before the cap (zeros) and PCR 7
	tpm2_pcrreset 16
	tb pcrread sha256:7,16 > "$KD/pcrs"
	tb seal -P "$KD/pcrs" -o "$KD/blob" "$KD/key"
}

teardown_file() { swtpm_stop; }

setup() { tpm2_pcrreset 16; }

# unlock [ENV=VALUE...]: run the keyscript as cryptsetup would, stdout to
# $KD/out, stderr to $KD/err; sets status.
unlock() {
	run env TPMBOX="$TPMBOX" TPMBOX_UNLOCK_CONF="$KD/conf" CRYPTTAB_NAME=root \
		CRYPTTAB_SOURCE=/dev/sda2 CRYPTTAB_KEY="$KD/blob" "$@" \
		sh -c '"$0" "$CRYPTTAB_KEY" > "'"$KD/out"'" 2> "'"$KD/err"'"' "$KS"
}

cap_value() {
	local sep
	sep=$(printf 'tpmbox-unlock root' | openssl dgst -sha256 -binary | xxd -p -c64)
	printf '%064d%s' 0 "$sep" | xxd -r -p | openssl dgst -sha256 -binary | xxd -p -c64
}

@test "initramfs: tpmbox-unlock prints the unsealed key, then caps the PCR so it cannot unseal again" {
	unlock
	assert_success
	cmp "$KD/out" "$KD/key"
	[ ! -s "$KD/err" ]
	# the cap, read back by tpm2-tools: H(zeros || H("tpmbox-unlock root"))
	run tpm2_pcrread sha256:16
	assert_output --partial "0x$(cap_value | tr a-f A-F)"
	# the same boot, later: the TPM path is closed, the passphrase is asked
	unlock
	assert_success
	[ "$(cat "$KD/out")" = fallback-pass ]
	grep -q "tpmbox-unlock: root: unseal refused (exit 4): the boot state is not the one the key was sealed to" "$KD/err"
	grep -q "asked: Passphrase or recovery code for root (/dev/sda2): " "$KD/err"
}

@test "initramfs: the keyscript's key opens a LUKS2 volume (cryptsetup), the fallback passphrase its other keyslot" {
	command -v cryptsetup >/dev/null || skip "cryptsetup is not installed (install-deps.sh installs it)"
	img=$BATS_TEST_TMPDIR/luks.img
	truncate -s 20M "$img"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file "$KD/key" "$img"
	printf fallback-pass > "$BATS_TEST_TMPDIR/pass"
	cryptsetup luksAddKey -q --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file "$KD/key" "$img" "$BATS_TEST_TMPDIR/pass"
	unlock
	assert_success
	cryptsetup open --test-passphrase --key-file="$KD/out" "$img"
	# after the cap the passphrase opens it, and a wrong key does not
	unlock
	cryptsetup open --test-passphrase --key-file="$KD/out" "$img"
	printf wrong > "$BATS_TEST_TMPDIR/wrong"
	! cryptsetup open --test-passphrase --key-file="$BATS_TEST_TMPDIR/wrong" "$img" || false
}

@test "initramfs: tpmbox-unlock falls back, saying why: no blob, no TPM, key already tried; PCR left alone" {
	before=$(tb pcrread sha256:16)
	unlock CRYPTTAB_KEY="$BATS_TEST_TMPDIR/missing.blob"
	assert_success
	[ "$(cat "$KD/out")" = fallback-pass ]
	grep -q "no sealed blob '$BATS_TEST_TMPDIR/missing.blob' in this image" "$KD/err"
	unlock TPMBOX_TCTI="swtpm:path=$BATS_TEST_TMPDIR/none.sock"
	assert_success
	[ "$(cat "$KD/out")" = fallback-pass ]
	grep -q "unseal failed (exit 3)" "$KD/err"
	unlock CRYPTTAB_TRIED=1
	assert_success
	[ "$(cat "$KD/out")" = fallback-pass ]
	grep -q "the unsealed key was tried already" "$KD/err"
	[ "$(tb pcrread sha256:16)" = "$before" ]
}

# A LUKS2 image in $BATS_TEST_TMPDIR with passphrase fallback-pass in
# keyslot 0 and a systemd-tpm2 token (systemd-cryptenroll 252, the
# oracle) sealed to PCR 16 at zeros: crypttab's key field is none.
sd_token_img() {
	img=$BATS_TEST_TMPDIR/sd.img
	truncate -s 32M "$img"
	printf fallback-pass > "$BATS_TEST_TMPDIR/pass"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		"$img" "$BATS_TEST_TMPDIR/pass"
	PASSWORD=fallback-pass systemd-cryptenroll --tpm2-device="swtpm:path=$SWTPM_DIR/sock" \
		--tpm2-pcrs=16 "$img" >/dev/null 2>&1
	t2_flush
}

@test "initramfs: with crypttab's key none the keyscript opens the volume's systemd-tpm2 header token, caps, and falls back to the passphrase after" {
	"$TPMBOX" --list | grep -q '^luks ' || skip "luks is not in this build (make tiny leaves it out)"
	for t in cryptsetup systemd-cryptenroll; do
		command -v $t >/dev/null || { echo "$t is not installed (make check installs it)"; false; }
	done
	sd_token_img
	unlock CRYPTTAB_KEY=none CRYPTTAB_SOURCE="$img"
	assert_success
	[ ! -s "$KD/err" ]
	cryptsetup open --test-passphrase --key-file="$KD/out" "$img"
	[ "$(cat "$KD/out")" != fallback-pass ]
	run tpm2_pcrread sha256:16
	assert_output --partial "0x$(cap_value | tr a-f A-F)"
	# after the cap: the token is refused (exit 4), the passphrase asked
	unlock CRYPTTAB_KEY=none CRYPTTAB_SOURCE="$img"
	assert_success
	[ "$(cat "$KD/out")" = fallback-pass ]
	grep -q "tpmbox-unlock: root: the header's TPM token refused (exit 4): the boot state is not the one the key was sealed to" "$KD/err"
	grep -q "asked: Passphrase or recovery code for root ($img): " "$KD/err"
}

@test "initramfs: with key none a tpmbox header token opens and is capped; after the cap its recovery code typed at the prompt gives the passphrase (luks recover)" {
	"$TPMBOX" --list | grep -q '^luks ' || skip "luks is not in this build (make tiny leaves it out)"
	command -v cryptsetup >/dev/null || { echo "cryptsetup is not installed (make check installs it)"; false; }
	img=$BATS_TEST_TMPDIR/tb.img
	truncate -s 32M "$img"
	printf fallback-pass > "$BATS_TEST_TMPDIR/pass"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		"$img" "$BATS_TEST_TMPDIR/pass"
	tb luks enroll "$img" --as tpmbox -p sha256:7,16 --recovery-code-out "$BATS_TEST_TMPDIR/code" \
		--unlock-key-file "$BATS_TEST_TMPDIR/pass" >/dev/null
	unlock CRYPTTAB_KEY=none CRYPTTAB_SOURCE="$img"
	assert_success
	[ ! -s "$KD/err" ]
	cryptsetup open --test-passphrase --key-file="$KD/out" "$img"
	cp "$KD/out" "$BATS_TEST_TMPDIR/tokpass"
	run tpm2_pcrread sha256:16
	assert_output --partial "0x$(cap_value | tr a-f A-F)"
	# capped: the token is refused, the code typed opens its escrow copy
	code=$(grep -E '^[0-9]{6}(-[0-9]{6}){7}$' "$BATS_TEST_TMPDIR/code")
	printf '#!/bin/sh\necho "asked: $1" >&2\nprintf "%%s" "$(cat %s)"\n' "$BATS_TEST_TMPDIR/typed" > "$BATS_TEST_TMPDIR/ask"
	chmod 755 "$BATS_TEST_TMPDIR/ask"
	printf 'TPMBOX_CAP_PCR=16\nTPMBOX_ASKPASS=%s\n' "$BATS_TEST_TMPDIR/ask" > "$BATS_TEST_TMPDIR/conf"
	echo "$code" | tr - ' ' > "$BATS_TEST_TMPDIR/typed"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY=none CRYPTTAB_SOURCE="$img"
	assert_success
	cmp "$KD/out" "$BATS_TEST_TMPDIR/tokpass"
	grep -q "the header's TPM token refused (exit 4)" "$KD/err"
	# a wrong code: nothing on stdout, exit 1, said why
	printf '%s' "$code" | sed 's/^\(.\)\(.\)/\1\1/' > "$BATS_TEST_TMPDIR/typed.x"
	[ "$(cat "$BATS_TEST_TMPDIR/typed.x")" != "$code" ] || printf '%s' "$code" | sed 's/^./9/; s/^99/98/' > "$BATS_TEST_TMPDIR/typed.x"
	mv "$BATS_TEST_TMPDIR/typed.x" "$BATS_TEST_TMPDIR/typed"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY=none CRYPTTAB_SOURCE="$img"
	assert_failure 1
	[ ! -s "$KD/out" ]
	grep -q "the recovery code does not open the header's tpmbox token (luks recover exit" "$KD/err"
}

@test "initramfs: with key none and no TPM token, or a tpmbox without luks, the keyscript says why and asks; nothing extended" {
	command -v cryptsetup >/dev/null || { echo "cryptsetup is not installed (make check installs it)"; false; }
	img=$BATS_TEST_TMPDIR/plain.img
	truncate -s 32M "$img"
	printf fallback-pass > "$BATS_TEST_TMPDIR/pass"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		"$img" "$BATS_TEST_TMPDIR/pass"
	before=$(tb pcrread sha256:16)
	# a tpmbox without the luks applet (the initramfs profile's kind)
	printf '#!/bin/sh
[ "$1" = luks ] && { echo "tpmbox: unknown applet luks" >&2; exit 2; }
exec "%s" "$@"
' \
		"$TPMBOX" > "$BATS_TEST_TMPDIR/noluks"
	chmod 755 "$BATS_TEST_TMPDIR/noluks"
	unlock TPMBOX="$BATS_TEST_TMPDIR/noluks" CRYPTTAB_KEY=none CRYPTTAB_SOURCE="$img"
	assert_success
	[ "$(cat "$KD/out")" = fallback-pass ]
	grep -q "this image's tpmbox has no luks applet: it cannot read the header's token" "$KD/err"
	if "$TPMBOX" --list | grep -q '^luks '; then
		unlock CRYPTTAB_KEY=none CRYPTTAB_SOURCE="$img"
		assert_success
		[ "$(cat "$KD/out")" = fallback-pass ]
		grep -q "tpmbox-unlock: root: the header's TPM token failed (exit 1)" "$KD/err"
	fi
	unlock CRYPTTAB_KEY=none CRYPTTAB_SOURCE=
	assert_success
	grep -q "no sealed blob and no device to read a token from" "$KD/err"
	[ "$(tb pcrread sha256:16)" = "$before" ]
}

@test "initramfs: after a PCR change the blob's recovery code typed at the prompt gives the key (tpmbox recover); a mistyped or wrong code does not" {
	tb seal -P "$KD/pcrs" --recovery-code-out "$BATS_TEST_TMPDIR/code" -o "$BATS_TEST_TMPDIR/rblob" "$KD/key"
	tb seal -P "$KD/pcrs" --recovery-code-out "$BATS_TEST_TMPDIR/code2" -o "$BATS_TEST_TMPDIR/other" "$KD/key"
	tb extend 16 -s moved >/dev/null
	code=$(grep -E '^[0-9]{6}(-[0-9]{6}){7}$' "$BATS_TEST_TMPDIR/code")
	[ -n "$code" ]
	printf '#!/bin/sh\necho "asked: $1" >&2\nprintf "%%s" "$(cat %s)"\n' "$BATS_TEST_TMPDIR/typed" > "$BATS_TEST_TMPDIR/ask"
	chmod 755 "$BATS_TEST_TMPDIR/ask"
	printf 'TPMBOX_CAP_PCR=16\nTPMBOX_ASKPASS=%s\n' "$BATS_TEST_TMPDIR/ask" > "$BATS_TEST_TMPDIR/conf"
	# the code as a person types it: spaces between groups
	echo "$code" | tr - ' ' > "$BATS_TEST_TMPDIR/typed"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY="$BATS_TEST_TMPDIR/rblob"
	assert_success
	cmp "$KD/out" "$KD/key"
	grep -q "unseal refused (exit 4)" "$KD/err"
	grep -q "asked: Passphrase or recovery code for root" "$KD/err"
	# one digit wrong: its group is named, nothing on stdout, exit 1
	bad=$(echo "$code" | sed 's/^\(.\)/\1X/; s/X[0-9]/X/; s/X/'"$(( (${code:1:1} + 1) % 10 ))"'/')
	[ "$bad" != "$code" ]
	echo "$bad" > "$BATS_TEST_TMPDIR/typed"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY="$BATS_TEST_TMPDIR/rblob"
	assert_failure 1
	[ ! -s "$KD/out" ]
	grep -q "group 1" "$KD/err"
	grep -q "the recovery code does not open this blob (recover exit 2)" "$KD/err"
	# another blob's code: exit 4 from recover, nothing on stdout
	grep -E '^[0-9]{6}(-[0-9]{6}){7}$' "$BATS_TEST_TMPDIR/code2" > "$BATS_TEST_TMPDIR/typed"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY="$BATS_TEST_TMPDIR/rblob"
	assert_failure 1
	[ ! -s "$KD/out" ]
	grep -q "recover exit 4" "$KD/err"
	# a passphrase is passed on as typed
	printf 'not-a-code 123' > "$BATS_TEST_TMPDIR/typed"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY="$BATS_TEST_TMPDIR/rblob"
	assert_success
	[ "$(cat "$KD/out")" = "not-a-code 123" ]
}

@test "initramfs: TPMBOX_TOTP shows the boot's TOTP code before the prompt (oathtool's for that time); when the PCRs moved, a warning and no code" {
	"$TPMBOX" --list | grep -q '^totp ' || skip "totp is not in this build (make tiny leaves it out)"
	command -v oathtool >/dev/null || { echo "oathtool is not installed (make check installs it)"; false; }
	# the code sealed to PCR 16 at zeros (this suite's boot value)
	tb totp enroll -p sha256:16 -o "$BATS_TEST_TMPDIR/totp.blob" --qr none \
		--uri-out "$BATS_TEST_TMPDIR/uri" >/dev/null
	secret=$(sed 's/.*[?&]secret=\([A-Z2-7]*\).*/\1/' "$BATS_TEST_TMPDIR/uri")
	printf 'TPMBOX_CAP_PCR=16\nTPMBOX_ASKPASS=%s\nTPMBOX_TOTP=%s\nTPMBOX_CONSOLE=%s\n' \
		"$KD/askpass" "$BATS_TEST_TMPDIR/totp.blob" "$BATS_TEST_TMPDIR/console" > "$BATS_TEST_TMPDIR/conf"
	# the blob's PCRs moved (PCR 7 is not the blob's): unseal refused,
	# the code shown, then the passphrase asked
	t0=$(date +%s)
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY="$BATS_TEST_TMPDIR/missing.blob"
	t1=$(date +%s)
	assert_success
	[ "$(cat "$KD/out")" = fallback-pass ]
	code=$(grep -oE '^[0-9]{6}' "$BATS_TEST_TMPDIR/console" | head -1)
	[ -n "$code" ]
	want0=$(oathtool --totp -b "$secret" --now "@$t0")
	want1=$(oathtool --totp -b "$secret" --now "@$t1")
	[ "$code" = "$want0" ] || [ "$code" = "$want1" ]
	grep -q "asked: Passphrase or recovery code" "$KD/err"
	# PCR 16 moved: the TPM refuses the code, the keyscript warns
	: > "$BATS_TEST_TMPDIR/console"
	tb extend 16 -s evil-maid >/dev/null
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_KEY="$BATS_TEST_TMPDIR/missing.blob"
	assert_success
	! grep -qE '^[0-9]{6}' "$BATS_TEST_TMPDIR/console" || false
	grep -q "WARNING: the TPM refuses the TOTP code (exit 4): this boot is not the one it was sealed to" "$KD/err"
	# not configured: nothing about TOTP
	unlock CRYPTTAB_KEY="$BATS_TEST_TMPDIR/missing.blob"
	! grep -q TOTP "$KD/err" || false
}

@test "initramfs: a failed passphrase prompt is a failure with nothing on stdout; the console prompt reads without echo" {
	printf 'TPMBOX_CAP_PCR=16\nTPMBOX_ASKPASS=false\n' > "$BATS_TEST_TMPDIR/conf"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_TRIED=1
	assert_failure
	[ ! -s "$KD/out" ]
	# TPMBOX_ASKPASS=console (or no askpass program in the image): the
	# console itself (here a file standing for it).  Without it this
	# machine's /lib/cryptsetup/askpass (cryptsetup-initramfs) would ask.
	printf 'TPMBOX_CAP_PCR=16\nTPMBOX_ASKPASS=console\n' > "$BATS_TEST_TMPDIR/conf"
	printf 'typed pass\n' > "$BATS_TEST_TMPDIR/console"
	unlock TPMBOX_UNLOCK_CONF="$BATS_TEST_TMPDIR/conf" CRYPTTAB_TRIED=1 \
		TPMBOX_CONSOLE="$BATS_TEST_TMPDIR/console"
	assert_success
	[ "$(cat "$KD/out")" = "typed pass" ]
	[ "$(wc -c < "$KD/out")" -eq 10 ]
}

@test "initramfs: the keyscript and hooks are POSIX sh (dash and busybox sh parse them)" {
	for f in "$KS" "$ROOT/initramfs/initramfs-tools/tpmbox" \
		 "$ROOT/initramfs/dracut/90tpmbox/tpmbox-dracut.sh" \
		 "$ROOT/initramfs/dracut/90tpmbox/tpmbox-settled.sh"; do
		dash -n "$f"
		if command -v busybox >/dev/null; then busybox sh -n "$f"; fi
	done
	bash -n "$ROOT/initramfs/dracut/90tpmbox/module-setup.sh"
}

@test "initramfs: mkinitramfs with the hook puts tpmbox, the keyscript, the settings, the SRK public and the blob in the image" {
	command -v mkinitramfs >/dev/null || skip "initramfs-tools-core is not installed (install-deps.sh installs it)"
	[ "$(id -u)" = 0 ] || skip "needs root (a private mount namespace over /boot)"
	# mkinitramfs wants /boot/config-VERSION (the compressor check); a
	# private mount namespace gives it one, the host's /boot is untouched.
	# No kernel modules: MODULES=list with an empty list.
	ver=0.0.0-tpmboxtest
	mkdir -p "$BATS_TEST_TMPDIR/boot"
	echo CONFIG_RD_GZIP=y > "$BATS_TEST_TMPDIR/boot/config-$ver"
	C=$BATS_TEST_TMPDIR/conf
	mkdir -p "$C/hooks" "$C/conf.d" "$C/scripts" "$BATS_TEST_TMPDIR/etc"
	printf 'MODULES=list\nBUSYBOX=auto\nCOMPRESS=gzip\nRESUME=none\n' > "$C/initramfs.conf"
	: > "$C/modules"
	cp "$ROOT/initramfs/initramfs-tools/tpmbox" "$C/hooks/tpmbox"
	# two volumes for the keyscript (one by full path), one that is not
	cp "$KD/blob" "$BATS_TEST_TMPDIR/root.blob"
	cp "$KD/blob" "$BATS_TEST_TMPDIR/home.blob"
	{
		echo "# a comment naming keyscript=tpmbox-unlock"
		echo "root /dev/sda2 $BATS_TEST_TMPDIR/root.blob luks,keyscript=tpmbox-unlock"
		echo "home UUID=1234 $BATS_TEST_TMPDIR/home.blob luks,discard,keyscript=/lib/cryptsetup/scripts/tpmbox-unlock"
		echo "swap /dev/sdb3 /dev/urandom swap,cipher=aes-xts-plain64"
		# key none: the header's token; nothing to copy, no warning
		echo "data /dev/sdc1 none luks,keyscript=tpmbox-unlock"
	} > "$BATS_TEST_TMPDIR/crypttab"
	# /etc/tpmbox as the admin leaves it: settings and the pinned SRK
	E=$BATS_TEST_TMPDIR/etc/tpmbox
	mkdir -p "$E"
	cp "$ROOT/initramfs/initramfs.conf" "$E/initramfs.conf"
	tb takeown --srk-pub "$E/srk.pem" >/dev/null
	run env TPMBOX_CRYPTTAB="$BATS_TEST_TMPDIR/crypttab" TPMBOX_BIN="$TPMBOX" \
		TPMBOX_ETC="$E" TPMBOX_KEYSCRIPT="$KS" unshare -m sh -c \
		'mount --bind "$1/boot" /boot && mkinitramfs -d "$1/conf" -o "$1/initrd.img" "$2"' \
		sh "$BATS_TEST_TMPDIR" "$ver"
	assert_success
	refute_output --partial "tpmbox hook"
	run lsinitramfs "$BATS_TEST_TMPDIR/initrd.img"
	assert_success
	assert_line usr/bin/tpmbox
	assert_line --regexp '^(usr/)?lib/cryptsetup/scripts/tpmbox-unlock$'
	assert_line "${BATS_TEST_TMPDIR#/}/root.blob"
	assert_line "${BATS_TEST_TMPDIR#/}/home.blob"
	assert_line etc/tpmbox/initramfs.conf
	assert_line etc/tpmbox/srk.pem
	refute_output --partial urandom
	# the binary in the image is the one given, byte for byte
	mkdir "$BATS_TEST_TMPDIR/x"
	(cd "$BATS_TEST_TMPDIR/x" && unmkinitramfs "$BATS_TEST_TMPDIR/initrd.img" .)
	cmp "$BATS_TEST_TMPDIR/x/usr/bin/tpmbox" "$TPMBOX"
	cmp "$BATS_TEST_TMPDIR/x/${BATS_TEST_TMPDIR#/}/root.blob" "$KD/blob"
	cmp "$BATS_TEST_TMPDIR/x/etc/tpmbox/srk.pem" "$E/srk.pem"
}

@test "initramfs: dracut's module-setup.sh installs tpmbox, the keyscript, the settings and the blobs crypttab names" {
	M=$ROOT/initramfs/dracut/90tpmbox
	initdir=$BATS_TEST_TMPDIR/img
	mkdir -p "$initdir/etc"
	cp "$KD/blob" "$BATS_TEST_TMPDIR/root.blob"
	printf 'root /dev/sda2 %s luks,keyscript=tpmbox-unlock\nx /dev/sdc none luks\nhome /dev/sdb none luks,keyscript=tpmbox-unlock\n' \
		"$BATS_TEST_TMPDIR/root.blob" > "$BATS_TEST_TMPDIR/crypttab"
	# dracut's install helpers, as stubs that record what they are given
	E=$BATS_TEST_TMPDIR/etc/tpmbox
	mkdir -p "$E"
	cp "$ROOT/initramfs/initramfs.conf" "$E/initramfs.conf"
	# the TOTP blob the settings name goes in at its path
	: > "$BATS_TEST_TMPDIR/totp.blob"
	echo "TPMBOX_TOTP=$BATS_TEST_TMPDIR/totp.blob" >> "$E/initramfs.conf"
	# the binary under test is the tpmbox on PATH
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	ln -s "$TPMBOX" "$BATS_TEST_TMPDIR/bin/tpmbox"
	run env initdir="$initdir" moddir="$M" TPMBOX_CRYPTTAB="$BATS_TEST_TMPDIR/crypttab" \
		TPMBOX_ETC="$E" \
		PATH="$BATS_TEST_TMPDIR/bin:$PATH" bash -c '
		inst_binary() { echo "binary $*"; }
		inst_script() { echo "script $*"; }
		inst_simple() { echo "simple $*"; }
		inst_hook() { echo "hook $*"; }
		dwarn() { echo "warn $*"; }
		require_binaries() { command -v "$@" >/dev/null; }
		. "$moddir/module-setup.sh"
		depends; install'
	assert_success
	assert_line crypt
	assert_line "binary $BATS_TEST_TMPDIR/bin/tpmbox /usr/bin/tpmbox"
	assert_line "script $M/tpmbox-unlock /lib/cryptsetup/scripts/tpmbox-unlock"
	assert_line "simple $BATS_TEST_TMPDIR/root.blob"
	assert_line "simple $E/initramfs.conf /etc/tpmbox/initramfs.conf"
	assert_line "simple $BATS_TEST_TMPDIR/totp.blob"
	assert_line "hook initqueue/settled 20 $M/tpmbox-settled.sh"
	# key none: the volume's header token, read at boot; nothing copied
	[ "$(cat "$initdir/etc/tpmbox-crypttab")" = "root /dev/sda2 $BATS_TEST_TMPDIR/root.blob
home /dev/sdb none" ]
	refute_line --partial "simple none"
	refute_line --partial warn
}
