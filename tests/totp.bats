#!/usr/bin/env bats
# totp (issue 29): a TOTP secret sealed to the boot PCRs.  Oracles:
# oathtool computes the codes from the URI's secret, zbarimg decodes the
# QR code drawn on the terminal (tests/helpers/qrimg.py makes the image),
# qrencode draws the same text module for module; swtpm's log shows what
# crossed the bus.  Both families on swtpm.

load helpers/common
bats_require_minimum_version 1.5.0

setup_file() {
	[ "${TPMBOX_SECOND_PASS:-}" != tiny ] || return 0
	export LOG20="$BATS_FILE_TMPDIR/swtpm20.log"
	swtpm_start unix --log "file=$LOG20,level=20"
	export T20=$TPMBOX_TCTI D20=$SWTPM_DIR
	# a 1.2 takes no SRK pin: the 2.0's remembered one is set after
	swtpm12_start
	export T12=$TPMBOX_TCTI D12=$SWTPM_DIR
	tb takeown --owner-auth str:opass >/dev/null
	export TPMBOX_TCTI=$T20 TPM2TOOLS_TCTI=$T20
	export TPMBOX_SRK_FILE="$BATS_FILE_TMPDIR/srk.pem"
	tb takeown >/dev/null
	export TPMBOX_TCTI=$T20 TPM2TOOLS_TCTI=$T20
	export F="$BATS_FILE_TMPDIR"
	cd "$F"
	# one blob each, as most tests read them
	tb totp enroll -p sha256:16 -o "$F/b20" --uri-out "$F/u20" \
		--qr none --label alice@example.org >/dev/null 2>&1
	TPMBOX_SRK_FILE= TPMBOX_TCTI=$T12 tb totp enroll -p sha1:16 -o "$F/b12" \
		--uri-out "$F/u12" --qr none --label bob >/dev/null 2>&1
}

teardown_file() {
	[ "${TPMBOX_SECOND_PASS:-}" != tiny ] || return 0
	SWTPM_DIR=$D12 swtpm_stop
	SWTPM_DIR=$D20 swtpm_stop
}

setup() {
	[ "${TPMBOX_SECOND_PASS:-}" != tiny ] ||
		skip "the small build has no totp (it runs here and in the sanitizer pass)"
	cd "$BATS_TEST_TMPDIR"
	export TPMBOX_TCTI=$T20
	unset TPMBOX_ADJTIME
}

secret_of() { sed 's/.*[?&]secret=\([A-Z2-7]*\).*/\1/' "$1"; }
# The secret's bytes in hex (from the URI's base32).
secret_hex() {
	python3 -c 'import base64,sys; s=sys.argv[1]
print(base64.b32decode(s + "=" * (-len(s) % 8)).hex())' "$(secret_of "$1")"
}
# oathtool's TOTP code of URI file $1 at unix time $2 (extra args after).
oath() {
	local u=$1 t=$2; shift 2
	oathtool --totp -b "$(secret_of "$u")" --now "@$t" "$@"
}
code_at() { tb totp show --time "$2" "$1" | head -1; }

@test "totp: enroll writes a 0600 blob and a 0600 URI of the documented form" {
	[ "$(stat -c %a "$F/b20")" = 600 ]
	[ "$(stat -c %a "$F/u20")" = 600 ]
	grep -Eq '^otpauth://totp/tpmbox:alice%40example\.org\?secret=[A-Z2-7]{32}&issuer=tpmbox&digits=6&period=30$' "$F/u20"
	grep -q 'BEGIN TPMBOX OTP' "$F/b20"
	grep -q 'BEGIN TSS2 PRIVATE KEY' "$F/b20"
	# the secret is in no file but the URI's
	! grep -rq "$(secret_of "$F/u20")" "$F/b20"
}

@test "totp: show equals oathtool at several times, period boundaries included (TPM 2.0)" {
	for t in 0 29 30 59 60 1111111109 1111111111 1234567890 2000000000 20000000000; do
		[ "$(code_at "$F/b20" $t)" = "$(oath "$F/u20" $t)" ] ||
			{ echo "differs at $t"; return 1; }
	done
	run tb totp show --time 1111111111 "$F/b20"
	assert_success
	assert_line -n 1 "2005-03-18 01:58:31 UTC"
	assert_line -n 2 "29 s left"
}

@test "totp: 8 digits and a 60 s period equal oathtool -d 8 -s 60" {
	tb totp enroll -p sha256:16 -o b --uri-out u --qr none --digits 8 \
		--period 60 2>/dev/null >/dev/null
	grep -q '&digits=8&period=60$' u
	for t in 59 60 119 120 1234567890; do
		c=$(code_at b $t)
		[ ${#c} = 8 ]
		[ "$c" = "$(oath u $t -d 8 -s 60)" ] || return 1
	done
}

@test "totp: show on TPM 2.0 sends 5 commands and the secret never crosses the bus" {
	: > "$LOG20"
	tb totp show --time 1234567890 "$F/b20" >/dev/null
	bus=$(tr -d ' \n' < "$LOG20" | tr A-F a-f)
	n=$(grep -c SWTPM_IO_Read "$LOG20")
	[ "$n" = 5 ]
	# the HMAC's input, the time step 41152263 = 0x0273ef07, is there
	# (the search finds what crossed)
	[[ $bus == *000000000273ef07* ]]
	[[ $bus != *"$(secret_hex "$F/u20")"* ]]
}

@test "totp: after extend of a sealed PCR show exits 4, prints no code and names the PCR" {
	tb totp enroll -p sha256:23 -o b --uri-out u --qr none >/dev/null 2>&1
	tb totp show b >/dev/null
	tb extend 23 -s moved >/dev/null
	run --separate-stderr tb totp show b
	[ "$status" -eq 4 ]
	[ -z "$output" ]
	[[ $stderr == *"sha256:23 differ"* ]]
	run tb totp status b
	assert_success
	assert_output --partial "do not match (closest: state 1, where sha256:23 differ)"
	run tb totp status --json b
	assert_success
	[ "$(jq -r .match <<<"$output")" = false ]
	[ "$(jq -r .differ <<<"$output")" = sha256:23 ]
}

@test "totp: status says where the secret is and that the PCRs match" {
	run tb totp status "$F/b20"
	assert_success
	assert_line "secret: TPM 2.0, an HMAC-SHA1 key under the SRK"
	assert_line "kind: TOTP, 6 digits, period 30 s"
	assert_line "PCR state 1: sha256:16"
	assert_line "PCRs: match state 1 now"
	run tb totp status --json "$F/b20"
	assert_success
	[ "$(jq -r '.tpm, .match, .label, .states[0]' <<<"$output" | tr '\n' ' ')" = "2.0 true alice@example.org sha256:16 " ]
}

@test "totp: several -p states (PolicyOR): the code in either" {
	tb totp enroll -p sha256:22 -p sha256:22=$(printf '%064d' 0 | tr 0 a) \
		-o b --uri-out u --qr none >/dev/null 2>&1
	[ "$(code_at b 99)" = "$(oath u 99)" ]
	run tb totp status b
	assert_line "PCR state 2: sha256:22"
}

# The QR code drawn in MODE for URI text of about LEN bytes decodes to the
# URI, and qrencode draws the same modules.
qr_check() {
	local mode=$1 label=$2
	tb totp enroll -p sha256:16 -o b -f --uri-out u -f --qr "$mode" \
		--label "$label" >out 2>/dev/null
	[ "$(tail -1 out)" = "$(cat u)" ]
	python3 "$BATS_TEST_DIRNAME/helpers/qrimg.py" "$mode" img.pgm <out
	[ "$(zbarimg --raw -q img.pgm 2>/dev/null)" = "$(cat u)" ] ||
		{ echo "zbarimg: $mode ${#label}"; return 1; }
	qrencode -8 -l M -m 4 -t ASCII -o ref.txt "$(cat u)"
	sed 's/ *$//' ref.txt | diff - img.pgm.txt >/dev/null ||
		{ echo "qrencode differs: $mode ${#label}"; return 1; }
	rm -f b u
}

@test "totp: the QR code decodes (zbarimg) to the URI in utf8, ansi and ascii, short and long (version 7+)" {
	long=$(printf 'x%.0s' $(seq 1 60))
	for mode in utf8 ansi ascii; do
		qr_check $mode a
		qr_check $mode "someone@example.org"
		qr_check $mode "$long"
	done
	# the long one needs version 7 or more: 4 * V + 17 + 8 columns
	tb totp enroll -p sha256:16 -o b --uri-out u --qr ascii \
		--label "$long" >out 2>/dev/null
	w=$(head -1 out | awk '{ print length($0) / 2 }')
	[ "$w" -ge $((4 * 7 + 17 + 8)) ]
}

@test "totp: --qr none prints the URI only; the default is utf8 half blocks" {
	tb totp enroll -p sha256:16 -o b --uri-out u --qr none >out 2>/dev/null
	[ "$(cat out)" = "$(cat u)" ]
	tb totp enroll -p sha256:16 -o b2 --uri-out u2 >out2 2>/dev/null
	grep -q '█' out2
	[ "$(tail -1 out2)" = "$(cat u2)" ]
}

@test "totp: the issuer and label are percent-encoded in the URI" {
	tb totp enroll -p sha256:16 -o b --uri-out u --qr none \
		--issuer "ACME Co" --label "a b/c" >/dev/null 2>&1
	grep -q '^otpauth://totp/ACME%20Co:a%20b%2Fc?secret=.*&issuer=ACME%20Co&' u
}

@test "totp: a note on stderr when /etc/adjtime says LOCAL, none for UTC" {
	printf '0.0 0 0.0\n0\nLOCAL\n' > adj
	TPMBOX_ADJTIME=adj run --separate-stderr tb totp show "$F/b20"
	assert_success
	[[ $stderr == *"keeps local time; the code is computed from UTC"* ]]
	printf '0.0 0 0.0\n0\nUTC\n' > adj
	TPMBOX_ADJTIME=adj run --separate-stderr tb totp show "$F/b20"
	assert_success
	[ -z "$stderr" ]
}

@test "totp: TPM 1.2: show equals oathtool, status, and exit 4 after extend" {
	export TPMBOX_TCTI=$T12 TPMBOX_SRK_FILE=""
	for t in 0 30 59 1111111111 2000000000; do
		[ "$(code_at "$F/b12" $t)" = "$(oath "$F/u12" $t)" ] ||
			{ echo "differs at $t"; return 1; }
	done
	run tb totp status "$F/b12"
	assert_success
	assert_line "secret: TPM 1.2, sealed with TPM_Sealx under the SRK"
	assert_line "PCRs: match state 1 now"
	tb totp enroll -p sha1:23 -o b --uri-out u --qr none --digits 8 \
		--period 60 >/dev/null 2>&1
	[ "$(code_at b 120)" = "$(oath u 120 -d 8 -s 60)" ]
	tb extend 23 -s moved >/dev/null
	run --separate-stderr tb totp show b
	[ "$status" -eq 4 ]
	[ -z "$output" ]
	[[ $stderr == *"23"* ]]
}

@test "totp: a blob of one family on the other is refused (exit 1)" {
	run tb totp show "$F/b12"
	[ "$status" -eq 1 ]
	assert_output --partial "TPM 1.2"
	TPMBOX_SRK_FILE= TPMBOX_TCTI=$T12 run tb totp show "$F/b20"
	[ "$status" -ne 0 ] && [ "$status" -ne 4 ]
}

@test "totp: refusals: digits, period, issuer, label, existing files, subcommands (exit 2)" {
	for args in "--digits 7" "--digits 0" "--digits x" "--period 0" \
	    "--period 86401" "--qr sixel"; do
		run tb totp enroll -o b $args
		[ "$status" -eq 2 ] || { echo "$args: $status"; return 1; }
	done
	run tb totp enroll -o b --issuer a:b
	[ "$status" -eq 2 ]
	run tb totp enroll -o b --label "$(printf 'x%.0s' $(seq 1 65))"
	[ "$status" -eq 2 ]
	run tb totp enroll -o b --label ""
	[ "$status" -eq 2 ]
	run tb totp enroll
	[ "$status" -eq 2 ]
	run tb totp enroll -o -
	[ "$status" -eq 2 ]
	touch exists
	run tb totp enroll -o exists --qr none
	[ "$status" -eq 2 ]
	run tb totp enroll -o b --uri-out exists --qr none
	[ "$status" -eq 2 ]
	[ ! -e b ]
	run tb totp
	[ "$status" -eq 2 ]
	run tb totp frobnicate x
	[ "$status" -eq 2 ]
	run tb totp show --json "$F/b20"
	[ "$status" -eq 2 ]
	run tb totp status --time 5 "$F/b20"
	[ "$status" -eq 2 ]
	run tb totp show -o x "$F/b20"
	[ "$status" -eq 2 ]
	run tb totp show --time yesterday "$F/b20"
	[ "$status" -eq 2 ]
	run tb totp show "$F/b20" "$F/b20"
	[ "$status" -eq 2 ]
	run tb totp show --watch "$F/b20" </dev/null
	[ "$status" -eq 2 ]
	assert_output --partial "--watch needs a terminal"
	# a URI too long for a version-10 QR code: the blob is written, the
	# URI printed, exit 2
	run tb totp enroll -p sha256:16 -o long --label "$(printf '%%%.0s' $(seq 1 64))" \
		--issuer "$(printf '%%%.0s' $(seq 1 40))"
	[ "$status" -eq 2 ]
	assert_output --partial "do not fit in a QR code"
	assert_output --partial "otpauth://"
}

@test "totp: bad blobs: missing, garbage, truncated, sealed data, a totp blob to unseal" {
	run tb totp show nothere
	[ "$status" -eq 6 ]
	echo garbage > g
	run tb totp show g
	[ "$status" -eq 1 ]
	assert_output --partial "no TPMBOX OTP block"
	head -c 400 "$F/b20" > t
	run tb totp show t
	[ "$status" -eq 1 ]
	# sealed data with an OTP block pasted on: not an HMAC key
	head -c 20 /dev/urandom > s
	tb seal -p sha256:16 -o sealed s
	sed -n '/BEGIN TPMBOX OTP/,/END TPMBOX OTP/p' "$F/b20" >> sealed
	run tb totp show sealed
	[ "$status" -eq 1 ]
	run tb unseal "$F/b20"
	[ "$status" -eq 2 ]
	assert_output --partial "holds a TOTP key, not sealed data"
	# the OTP block altered: digits 7
	python3 - "$F/b20" > bad <<'PY'
import base64, re, sys
t = open(sys.argv[1]).read()
m = re.search(r"-----BEGIN TPMBOX OTP-----\n(.*?)-----END TPMBOX OTP-----", t, re.S)
d = bytearray(base64.b64decode(m.group(1)))
d[7] = 7
t = t.replace(m.group(1), base64.encodebytes(bytes(d)).decode())
print(t, end="")
PY
	run tb totp show bad
	[ "$status" -eq 1 ]
	assert_output --partial "digits"
}

@test "totp: HOTP: consecutive shows equal oathtool --hotp -c N; the counter is an NV counter bound by name" {
	tb totp enroll --hotp --counter 0x01500a10 -p sha256:16 -o h \
		--uri-out hu --qr none >/dev/null 2>&1
	grep -Eq '^otpauth://hotp/tpmbox:[^?]*\?secret=[A-Z2-7]{32}&issuer=tpmbox&digits=6&counter=[0-9]+$' hu
	c=$(sed 's/.*counter=//' hu)
	s=$(secret_of hu)
	for i in 0 1 2; do
		run tb totp show h
		assert_success
		assert_line -n 0 "$(oathtool --hotp -b "$s" -c $((c + i)))"
		assert_line -n 1 "counter $((c + i))"
	done
	run tb totp status --json h
	[ "$(jq -r '.kind, .counter_index' <<<"$output" | tr '\n' ' ')" = "hotp $((0x01500a10)) " ]
	# HOTP takes neither --time nor --watch; the index must be new
	run tb totp show --time 5 h
	[ "$status" -eq 2 ]
	run tb totp enroll --hotp --counter 0x01500a10 -o h2 --qr none
	[ "$status" -eq 2 ]
	assert_output --partial "exists"
	[ ! -e h2 ]
	# another index in its place (other attributes): refused by name
	tb nvrelease 0x01500a10
	tb nvdefine 0x01500a10 -t counter -a 'authread|authwrite|ownerread'
	tb nvincrement 0x01500a10
	run tb totp show h
	[ "$status" -eq 1 ]
	assert_output --partial "not the HOTP counter"
	# gone
	tb nvrelease 0x01500a10
	run tb totp show h
	[ "$status" -eq 6 ]
}

@test "totp: HOTP refusals: --counter without --hotp, --period with it, on a TPM 1.2" {
	run tb totp enroll -o h --counter 0x01500a11
	[ "$status" -eq 2 ]
	run tb totp enroll -o h --hotp --period 30
	[ "$status" -eq 2 ]
	run tb totp enroll -o h --hotp --counter 0x02000000
	[ "$status" -eq 2 ]
	TPMBOX_SRK_FILE= TPMBOX_TCTI=$T12 run tb totp enroll --hotp -p sha1:16 -o h --qr none
	[ "$status" -eq 2 ]
	assert_output --partial "needs a TPM 2.0"
	[ ! -e h ]
}

@test "totp: show --watch on a terminal (script's pty) refreshes in place and stops at a key" {
	command -v script >/dev/null || skip "no script (util-linux)"
	(sleep 1; printf x) | timeout 20 script -qec \
		"$TPMBOX totp show --watch $F/b20" /dev/null > wout
	grep -Eq $'\r\033\\[K[0-9]{6}  [0-9-]{10} [0-9:]{8} UTC  [0-9]+ s left  \\(a key stops\\)' wout
}

@test "totp: --nv keeps the blob in an NV index: show and status read it there; refusals" {
	tb totp enroll -p sha256:16 --nv 0x01500b01 --uri-out nu --qr none \
		>/dev/null 2>&1
	[ "$(tb totp show --time 1234567890 --nv 0x01500b01 | head -1)" = \
		"$(oath nu 1234567890)" ]
	run tb totp status --json --nv 0x01500b01
	assert_success
	[ "$(jq -r '.blob, .match' <<<"$output" | tr '\n' ' ')" = "NV index 0x01500b01 true " ]
	# what the index holds is the blob's text, as a file would
	tpm2_nvread 0x01500b01 2>/dev/null | grep -q 'BEGIN TPMBOX OTP'
	run tb totp enroll -p sha256:16 --nv 0x01500b01 --qr none
	[ "$status" -eq 2 ]
	assert_output --partial "exists"
	run tb totp show --nv 0x01500b0f
	[ "$status" -eq 6 ]
	run tb totp show --nv 0x01500b01 x
	[ "$status" -eq 2 ]
	run tb totp enroll --nv 0x01500b02 -o x
	[ "$status" -eq 2 ]
	run tb totp enroll --nv 0x01500b02 -f
	[ "$status" -eq 2 ]
	run tb totp enroll --nv 0x7
	[ "$status" -eq 2 ]
	TPMBOX_SRK_FILE= TPMBOX_TCTI=$T12 run tb totp enroll -p sha1:16 --nv 0x01500b03 --qr none
	[ "$status" -eq 2 ]
	assert_output --partial "needs a TPM 2.0"
}
