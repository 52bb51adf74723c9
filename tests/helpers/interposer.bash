# The interposer (tests/helpers/interposer.c) in front of the suite's
# swtpm, for interposer.bats and remembered.bats: setup_file builds it at
# $IP and keeps the direct TPM in $REAL.

# interposer_start: the suite's swtpm, the interposer built, the words
# it guesses from and a 48-byte secret ($SECRET_HEX).
interposer_start() {
	swtpm_start
	export IP="$BATS_FILE_TMPDIR/interposer"
	interposer_build "$IP"
	export REAL=$TPMBOX_TCTI
	printf 'ownerpw\nhunter2\n' > "$BATS_FILE_TMPDIR/words"
	head -c 48 /dev/urandom > "$BATS_FILE_TMPDIR/secret"
	SECRET_HEX=$(od -An -tx1 -v "$BATS_FILE_TMPDIR/secret" | tr -d ' \n')
	export SECRET_HEX
}

# ip MODES: the interposer in front of swtpm; TPMBOX_TCTI goes through it.
ip() {
	ip_stop
	D=$BATS_TEST_TMPDIR
	: > "$D/ilog"
	"$IP" -l "$D/isock" -t "$SWTPM_DIR/sock" -m "$1" -o "$D/ilog" \
		-w "$BATS_FILE_TMPDIR/words" -A "$D/evilak.pem" -d "$D" -F &
	echo $! > "$D/ipid"
	for _ in $(seq 1 100); do
		[ -S "$D/isock" ] && break
		sleep 0.02
	done
	export TPMBOX_TCTI="swtpm:path=$D/isock"
}

ip_stop() {
	[ -f "$BATS_TEST_TMPDIR/ipid" ] || return 0
	kill "$(cat "$BATS_TEST_TMPDIR/ipid")" 2>/dev/null
	rm -f "$BATS_TEST_TMPDIR/ipid" "$BATS_TEST_TMPDIR/isock"
}

teardown() {
	ip_stop
	export TPMBOX_TCTI=$REAL
}

# Straight to swtpm, past the interposer.
real() { TPMBOX_TCTI=$REAL "$TPMBOX" "$@"; }

ilog() { cat "$BATS_TEST_TMPDIR/ilog"; }
hexof() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
