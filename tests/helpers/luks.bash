# The LUKS2 suites' shared start (luks.bats, luksunlock.bats): images
# in the suite's temp dir, enrolled by the tools no one here wrote
# (systemd-cryptenroll 252, clevis 19) on the suite's swtpm.

mkimg() {	# PATH: a fresh LUKS2 image with passphrase "pw" in keyslot 0
	truncate -s 32M "$1"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 "$1" "$D/pw"
}

# sd_enroll IMG ARGS...: systemd-cryptenroll on a copy of the base image
# (the old passphrase in PASSWORD, as it reads it); NEWPIN passes through
sd_enroll() {
	local img=$1
	shift
	cp "$D/base.img" "$D/$img"
	PASSWORD=pw systemd-cryptenroll \
		--tpm2-device="swtpm:path=$SWTPM_DIR/sock" "$@" "$D/$img" \
		>/dev/null 2>&1 || return 1
	t2_flush
}

# luks_setup DIR: swtpm, $D (the suite's temp dir DIR), the base image
# and the tokens both suites open: systemd PCR 7 (sd7.img), PCR 0+7 with
# PIN 1234 (sdpin.img), no PCRs (sdnone.img), clevis tpm2 PCR 7
# (cl.img).  The small builds leave luks out (the Makefile's TINY_OMIT):
# then LUKS_ABSENT is set, nothing is made and every test skips (bats 1.8
# cannot skip in setup_file).  The oracles are installed by make check
# (install-deps.sh): a missing one fails instead of skipping.
luks_setup() {
	local tool
	if ! "$TPMBOX" --list | grep -q '^luks '; then
		export LUKS_ABSENT=1
		return 0
	fi
	for tool in cryptsetup systemd-cryptenroll clevis; do
		command -v "$tool" >/dev/null ||
			{ echo "$tool is not installed (make check installs it)"; return 1; }
	done
	swtpm_start
	D=$BATS_FILE_TMPDIR/$1
	export D
	mkdir -p "$D"
	printf pw > "$D/pw"
	mkimg "$D/base.img"
	sd_enroll sd7.img --tpm2-pcrs=7 || return 1
	NEWPIN=1234 sd_enroll sdpin.img --tpm2-pcrs=0+7 --tpm2-with-pin=yes ||
		return 1
	sd_enroll sdnone.img --tpm2-pcrs= || return 1
	cp "$D/base.img" "$D/cl.img"
	clevis luks bind -y -d "$D/cl.img" -k "$D/pw" tpm2 \
		'{"pcr_ids":"7"}' >/dev/null 2>&1 || return 1
	t2_flush
}

teardown_file() { [ -z "${SWTPM_DIR:-}" ] || swtpm_stop; }

setup() {
	[ -z "${LUKS_ABSENT:-}" ] ||
		skip "luks is not in this build (make tiny leaves it out)"
}

need() { [ -s "$D/$1" ] || { echo "$1 was not made in setup_file"; false; }; }
