#!/usr/bin/env bats
# seal / unseal on swtpm.  Oracles: tpm2-tools (pcrread, getcap, load +
# unseal of our blob, evictcontrol to swap the SRK), openssl (asn1parse of
# the blob, sha256 for predicted PCR values), swtpm's own command log.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() {
	local p
	for p in "$BATS_FILE_TMPDIR"/other.*/pid; do
		[ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	swtpm_stop
}

setup() {
	W=$BATS_TEST_TMPDIR
	cd "$W"
}

# A second swtpm (another TPM: its own state, so its own SRK).
# other_start NAME [swtpm flags...]: sets OTHER_TCTI.
other_start() {
	local d="$BATS_FILE_TMPDIR/other.$1"; shift
	mkdir -p "$d"
	swtpm socket --tpm2 --server type=unixio,path="$d/sock" \
		--ctrl type=unixio,path="$d/sock.ctrl" --tpmstate dir="$d" \
		--flags not-need-init,startup-clear --pid file="$d/pid" "$@" \
		>"$d/out" 2>&1 &
	OTHER_TCTI="swtpm:path=$d/sock"
	OTHER_DIR=$d
	for _ in $(seq 1 100); do
		[ -s "$d/pid" ] && "$TPMBOX" -T "$OTHER_TCTI" getrandom 1 \
			>/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

other_stop() { kill "$(cat "$OTHER_DIR/pid")" 2>/dev/null; true; }

lockout_counter() {
	tpm2_getcap properties-variable | awk '/TPM2_PT_LOCKOUT_COUNTER/ {print $2}'
}

# Nothing left loaded in the TPM (transient objects, sessions).
assert_nothing_loaded() {
	run tpm2_getcap handles-transient
	assert_success
	assert_output ""
	run tpm2_getcap handles-loaded-session
	assert_success
	assert_output ""
}

pcr_hex() { # BANK:INDEX -> current value (tpm2-tools as the oracle)
	tpm2_pcrread "$1" -o "$W/pcr.bin" >/dev/null && xxd -p -c 256 "$W/pcr.bin"
}

# The value PCR would have after extending with sha256(STRING).
predict_sha256() { # OLDHEX STRING
	local d
	d=$(printf '%s' "$2" | openssl dgst -sha256 -r | cut -d' ' -f1)
	printf '%s%s' "$1" "$d" | xxd -r -p | openssl dgst -sha256 -r | cut -d' ' -f1
}

# The bytes of the key file's pubkey and privkey OCTET STRINGs (the last
# two at depth 1, per openssl asn1parse) into pub.bin and priv.bin.
extract_parts() {
	local o h l
	sed -n '/BEGIN TSS2/,/END TSS2/p' "$1" | sed '1d;$d' | base64 -d > "$W/key.der"
	openssl asn1parse -inform DER -in "$W/key.der" |
		awk '/OCTET STRING/ && /:d=1 /' | tail -2 |
		sed 's/^ *\([0-9]*\):d=1 *hl= *\([0-9]*\) *l= *\([0-9]*\).*/\1 \2 \3/' > "$W/parts"
	read -r o h l < <(sed -n 1p "$W/parts")
	dd if="$W/key.der" of="$W/pub.bin" bs=1 skip=$((o + h)) count="$l" status=none
	read -r o h l < <(sed -n 2p "$W/parts")
	dd if="$W/key.der" of="$W/priv.bin" bs=1 skip=$((o + h)) count="$l" status=none
}

# Fails when the hex string $2 occurs in swtpm log $1.
absent_in_log() {
	if tr -d ' \n' < "$1" | grep -qi "$2"; then
		echo "found $2 in $1" >&2
		return 1
	fi
}

# Rewrite a byte of a PEM block's DER: patch_block FILE LABEL OFFSET HEXBYTE,
# or flip its bits with HEXBYTE = xor (a fixed value would leave a byte that
# already holds it unchanged: 1 run in 256 on random data).
patch_block() {
	local f=$1 label=$2 off=$3 byte=$4 old
	sed -n "/BEGIN $label/,/END $label/p" "$f" | sed '1d;$d' | base64 -d > "$W/blk.der"
	if [ "$byte" = xor ]; then
		old=$(od -An -tx1 -j "$off" -N1 "$W/blk.der" | tr -d ' ')
		byte=$(printf '%02x' $(( 0x$old ^ 0xff )))
	fi
	printf "\\x$byte" | dd of="$W/blk.der" bs=1 seek="$off" conv=notrunc status=none
	{
		awk -v l="BEGIN $label" '{ print } index($0, l) { exit }' "$f"
		base64 -w 64 "$W/blk.der"
		awk -v l="END $label" 'index($0, l) { p = 1 } p' "$f"
	} > "$f.new" && mv "$f.new" "$f"
}

@test "seal/unseal: round trips of 1 B, 128 B, 64 KiB and 1 MiB" {
	for n in 1 128 65536 1048576; do
		head -c "$n" /dev/urandom > "in.$n"
		run tb seal -o "blob.$n" "in.$n"
		assert_success
		[ "$(stat -c %a "blob.$n")" = 600 ]
		run tb unseal -o "out.$n" "blob.$n"
		assert_success
		[ "$(stat -c %a "out.$n")" = 600 ]
		cmp "in.$n" "out.$n"
	done
	# Up to 128 bytes the data itself is sealed; above, only a key and
	# the data is in the extra block.
	[ "$(wc -c < blob.128)" -lt 1200 ]
	[ "$(wc -c < blob.65536)" -gt 65536 ]
	assert_nothing_loaded
}

@test "seal/unseal: stdin to stdout, binary-safe" {
	printf 'a\0b\nc\377' > in
	tb seal -o blob < in
	tb unseal blob > out
	cmp in out
}

@test "seal: the blob is a TPM 2.0 key file (openssl asn1parse)" {
	printf 'secret' | tb seal -p sha256:0,7 -o blob
	sed -n '/BEGIN TSS2 PRIVATE KEY/,/END TSS2 PRIVATE KEY/p' blob > key.pem
	run openssl asn1parse -in key.pem
	assert_success
	assert_line --index 0 --partial "cons: SEQUENCE"
	assert_line --index 1 --partial ":2.23.133.10.1.5"
	assert_output --partial "cont [ 0 ]"		# emptyAuth
	assert_output --partial "INTEGER           :017F"	# PolicyPCR
	assert_output --regexp "INTEGER +:(40000001|81000001)"
	[ "$(grep -c 'OCTET STRING' <<<"$output")" -ge 3 ]
	grep -q -- "-----BEGIN TPMBOX SEALED EXTRA-----" blob
}

@test "seal/unseal: tpm2-tools loads and unseals our blob with its own policy session" {
	run tb takeown
	assert_success
	printf 'oracle-secret' > in
	tb seal -p sha256:0,7 -o blob in
	extract_parts blob
	t2_flush
	run tpm2_load -C 0x81000001 -u pub.bin -r priv.bin -c obj.ctx
	assert_success
	tpm2_startauthsession --policy-session -S s.ctx
	tpm2_policypcr -S s.ctx -l sha256:0,7 >/dev/null
	run tpm2_unseal -c obj.ctx -p session:s.ctx -o out
	t2_flush
	assert_success
	cmp in out
	assert_nothing_loaded
}

@test "unseal: a blob sealed before takeown unseals after it (same SRK)" {
	# The SRK comes from the standard template: the same key whether
	# persisted or made afresh.  (takeown ran in the previous test; make
	# a blob under a fresh TPM state in this one.)
	other_start pre
	printf 'x' | tb -T "$OTHER_TCTI" seal -o blob
	run tb -T "$OTHER_TCTI" takeown
	assert_success
	run tb -T "$OTHER_TCTI" unseal blob
	assert_success
	assert_output "x"
	other_stop
}

@test "unseal: seal to current PCRs, extend one, unseal refused with exit 4" {
	printf 'pcr-bound' > in
	tb seal -p sha256:0,7+sha1:7 -o blob in
	run tb unseal blob
	assert_success
	assert_output "pcr-bound"
	tb extend 7 -s changed-by-test
	run tb unseal -o out blob
	assert_failure 4
	assert_output --partial "PCRs do not have the values this blob was sealed to"
	assert_output --partial "sha256:7"
	assert_output --partial "sha1:7"
	refute_output --partial "sha256:0"
	[ ! -e out ]
	assert_nothing_loaded
}

@test "unseal: seal to predicted values from a PCRFILE, extend to reach them" {
	old=$(pcr_hex sha256:9)
	new=$(predict_sha256 "$old" "next-boot-kernel")
	printf '# predicted\nsha256:9 %s\n' "$new" > pcrs.txt
	printf 'future' > in
	tb seal -P pcrs.txt -o blob in
	run tb unseal blob
	assert_failure 4
	assert_output --partial "sha256:9"
	tb extend 9 -s next-boot-kernel
	[ "$(pcr_hex sha256:9)" = "$new" ]
	run tb unseal blob
	assert_success
	assert_output "future"
}

@test "unseal: seal to -p sha256:10=HEX, extend to reach it" {
	old=$(pcr_hex sha256:10)
	new=$(predict_sha256 "$old" "x")
	printf 'given' | tb seal -p "sha256:10=$new" -o blob
	run tb unseal blob
	assert_failure 4
	tb extend 10 -s x
	run tb unseal blob
	assert_success
	assert_output "given"
	# -p and -P together: -p picks the PCRs, the file gives the values.
	printf 'sha256:11 %s\nsha256:12 %s\n' "$(pcr_hex sha256:11)" 0000 > f.txt
	run tb seal -p sha256:11,12 -P f.txt -o blob2 < /dev/null
	assert_failure 2
	printf 'sha256:11 %s\n' "$(pcr_hex sha256:11)" > f.txt
	printf 'both' | tb seal -p sha256:11 -P f.txt -o blob2
	run tb unseal blob2
	assert_success
	assert_output "both"
}

@test "unseal: wrong password -> 4, right -> 0; the DA counter counts wrong tries only" {
	printf 'pw-secret' | tb seal -p sha256:0 --auth str:right -o blob
	c0=$(lockout_counter)
	run tb unseal --auth str:wrong -o out blob
	assert_failure 4
	assert_output --partial "the password is wrong"
	[ ! -e out ]
	[ $(( $(lockout_counter) )) -eq $(( c0 + 1 )) ]
	# Without --auth tpmbox refuses before asking the TPM: no count.
	run tb unseal blob
	assert_failure 4
	assert_output --partial "sealed with a password: give --auth"
	[ $(( $(lockout_counter) )) -eq $(( c0 + 1 )) ]
	# The right one works; success does not reset the counter.
	run tb unseal --auth str:right blob
	assert_success
	assert_output "pw-secret"
	[ $(( $(lockout_counter) )) -eq $(( c0 + 1 )) ]
	# A PCR mismatch is not an authorization failure: no count.
	printf 'y' | tb seal -p sha256:13 --auth str:right -o blob2
	tb extend 13 -s moved
	run tb unseal --auth str:right blob2
	assert_failure 4
	assert_output --partial "PCRs do not have the values"
	[ $(( $(lockout_counter) )) -eq $(( c0 + 1 )) ]
	# The object is DA-protected with a password, noDA without one
	# (tpm2_print decodes the public area).
	extract_parts blob
	run tpm2_print -t TPM2B_PUBLIC pub.bin
	assert_success
	refute_output --partial noda
	assert_output --partial fixedtpm
	printf 'z' | tb seal -o blob3
	extract_parts blob3
	run tpm2_print -t TPM2B_PUBLIC pub.bin
	assert_output --partial noda
	# A blob without a password refuses --auth.
	run tb unseal --auth str:x blob3
	assert_failure 2
	assert_output --partial "sealed without a password"
	assert_nothing_loaded
}

@test "unseal: dictionary-attack lockout -> exit 5, even with the right password" {
	printf 'locked' | tb seal --auth str:right -o blob
	max=$(tpm2_getcap properties-variable | awk '/TPM2_PT_MAX_AUTH_FAIL/ {print $2}')
	for _ in $(seq 1 $((max + 1))); do
		tb unseal --auth str:wrong blob 2>/dev/null && false
		[ "$(tpm2_getcap properties-variable | awk '/inLockout/ {print $2}')" = 1 ] && break
	done
	run tb unseal --auth str:right -o out blob
	assert_failure 5
	assert_output --partial "LOCKOUT"
	[ ! -e out ]
	assert_nothing_loaded
	tpm2_dictionarylockout -c
	run tb unseal --auth str:right blob
	assert_success
	assert_output "locked"
}

@test "unseal: tampered, truncated, wrong-version blobs -> clear errors, no output" {
	printf 'tamper' > in
	tb seal -p sha256:0 -o blob in
	# Truncated.
	head -n 3 blob > trunc
	run tb unseal -o out trunc
	assert_failure 1
	assert_output --partial "no END line"
	[ ! -e out ]
	# No extra block.
	sed -n '/BEGIN TSS2/,/END TSS2/p' blob > onlykey
	run tb unseal -o out onlykey
	assert_failure 1
	assert_output --partial "no TPMBOX SEALED EXTRA PEM block"
	[ ! -e out ]
	# Format version 3 (bytes 4-5 of the extra block).
	cp blob v3; patch_block v3 "TPMBOX SEALED EXTRA" 5 03
	run tb unseal -o out v3
	assert_failure 1
	assert_output --partial "format version 3 is not supported"
	[ ! -e out ]
	# A flipped byte in the TPM's private area: the TPM refuses it.
	cp blob bad
	off=$(sed -n '/BEGIN TSS2/,/END TSS2/p' blob | sed '1d;$d' | base64 -d | wc -c)
	patch_block bad "TSS2 PRIVATE KEY" $((off - 5)) xor
	run tb unseal -o out bad
	assert_failure 1
	assert_output --partial "loading the sealed object"
	[ ! -e out ]
	# A changed recorded PCR value: the blocks no longer agree.
	cp blob bad2
	xoff=$(sed -n '/BEGIN TPMBOX/,/END TPMBOX/p' blob | sed '1d;$d' | base64 -d | wc -c)
	patch_block bad2 "TPMBOX SEALED EXTRA" $((xoff - 1)) xor
	run tb unseal -o out bad2
	assert_failure 1
	assert_output --partial "policies of the two blocks differ"
	[ ! -e out ]
	# Not base64.
	sed '2s/^./!/' blob > bad3
	run tb unseal -o out bad3
	assert_failure 1
	assert_output --partial "not valid base64"
	[ ! -e out ]
	# Bulk data: a changed ciphertext byte fails the GCM tag.
	head -c 4096 /dev/urandom > big
	tb seal -o bigblob big
	xoff=$(sed -n '/BEGIN TPMBOX/,/END TPMBOX/p' bigblob | sed '1d;$d' | base64 -d | wc -c)
	patch_block bigblob "TPMBOX SEALED EXTRA" $((xoff - 100)) xor
	run tb unseal -o out bigblob
	assert_failure 1
	assert_output --partial "fails its integrity check"
	[ ! -e out ]
	assert_nothing_loaded
}

@test "unseal: a blob from another TPM is refused, no output" {
	other_start foreign
	printf 'elsewhere' | tb -T "$OTHER_TCTI" seal -o blob
	run tb -T "$OTHER_TCTI" unseal blob
	assert_success
	other_stop
	run tb unseal -o out blob
	assert_failure 1
	assert_output --partial "was sealed under another SRK"
	assert_output --partial "another TPM"
	[ ! -e out ]
	assert_nothing_loaded
}

@test "seal/unseal: an SRK replaced by another key at 0x81000001 is refused" {
	run tb takeown
	assert_success
	printf 'guarded' | tb seal -o blob
	t2_flush
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	tpm2_createprimary -C o -G rsa2048 -c evil.ctx >/dev/null
	tpm2_evictcontrol -C o -c evil.ctx 0x81000001 >/dev/null
	t2_flush
	run tb unseal -o out blob
	assert_failure 1
	assert_output --partial "0x81000001 holds a key that is not a standard SRK"
	[ ! -e out ]
	run tb seal -o blob2 < blob
	assert_failure 1
	assert_output --partial "refusing to seal under it"
	[ ! -e blob2 ]
	assert_nothing_loaded
	# Put the real SRK back: the blob unseals again.
	tpm2_evictcontrol -C o -c 0x81000001 >/dev/null
	run tb takeown
	assert_success
	run tb unseal blob
	assert_success
	assert_output "guarded"
}

@test "seal/unseal: the secret never crosses the bus in clear (swtpm log)" {
	other_start wire --log "file=$BATS_FILE_TMPDIR/other.wire/log,level=20"
	marker=$(openssl rand -hex 20)
	hexm=$(printf '%s' "$marker" | xxd -p | tr -d '\n')
	pw=$(openssl rand -hex 12)
	hexpw=$(printf '%s' "$pw" | xxd -p | tr -d '\n')
	printf '%s' "$marker" > m
	tb -T "$OTHER_TCTI" seal -p sha256:0 --auth "str:$pw" -o blob m
	run tb -T "$OTHER_TCTI" unseal --auth "str:$pw" blob
	assert_success
	assert_output "$marker"
	tb -T "$OTHER_TCTI" seal -o blob2 m
	run tb -T "$OTHER_TCTI" unseal blob2
	assert_output "$marker"
	log=$BATS_FILE_TMPDIR/other.wire/log
	[ "$(grep -c SWTPM_IO_Write "$log")" -gt 10 ]
	# Absent in both directions (log bytes are upper-case hex).
	absent_in_log "$log" "$hexm"
	absent_in_log "$log" "$hexpw"
	# Bulk data: neither the data nor (in clear) the key goes out.
	head -c 300 /dev/zero | tr '\0' 'Q' > big
	tb -T "$OTHER_TCTI" seal -o blob3 big
	run tb -T "$OTHER_TCTI" unseal -o big.out blob3
	assert_success
	cmp big big.out
	absent_in_log "$log" "$(head -c 64 big | xxd -p | tr -d '\n')"
	# Positive control: the same marker written in clear by tpm2_nvwrite.
	TPM2TOOLS_TCTI=$OTHER_TCTI tpm2_nvdefine 0x1500016 -s 64 -a "ownerread|ownerwrite" >/dev/null
	TPM2TOOLS_TCTI=$OTHER_TCTI tpm2_nvwrite 0x1500016 -C o -i m
	run absent_in_log "$log" "$hexm"
	assert_failure
	other_stop
}

@test "seal/unseal: usage errors and refusals" {
	printf 's' > in
	run tb seal in
	assert_failure 2
	assert_output --partial "-o BLOB is required"
	run tb seal -o blob < /dev/null
	assert_failure 2
	assert_output --partial "nothing to seal"
	[ ! -e blob ]
	run tb seal -p sha256:7=abcd -o blob in
	assert_failure 2
	assert_output --partial "is not 32 bytes of hex for sha256:7"
	run tb seal -p "sha256:1,2=$(printf '%064d' 0)" -o blob in
	assert_failure 2
	assert_output --partial "selects 2 PCRs but gives 1 values"
	run tb seal -p md5:1 -o blob in
	assert_failure 2
	run tb seal -p sha256:40 -o blob in
	assert_failure 2
	run tb seal -P missing.txt -o blob in
	assert_failure 6
	printf 'nonsense\n' > bad.txt
	run tb seal -P bad.txt -o blob in
	assert_failure 2
	assert_output --partial "line 1"
	run tb seal -o - in
	assert_failure 2
	[ ! -e blob ]
	# An existing blob is kept unless -f.
	tb seal -o blob in
	cp blob keep
	run tb seal -o blob in
	assert_failure 3
	assert_output --partial "already exists"
	cmp blob keep
	run tb seal -f -o blob in
	assert_success
	run cmp -s blob keep
	assert_failure
	run tb unseal
	assert_failure 2
	run tb unseal nosuchblob
	assert_failure 6
	printf 'x' > out
	run tb unseal -o out blob
	assert_failure 3
	run tb unseal -f -o out blob
	assert_success
	[ "$(cat out)" = s ]
}

@test "seal/unseal: under an RSA-2048 SRK (rsaParent, RSA-OAEP salt)" {
	other_start rsa
	run tb -T "$OTHER_TCTI" takeown --rsa
	assert_success
	printf 'rsa-parent' | tb -T "$OTHER_TCTI" seal -p sha256:0 --auth str:k -o blob
	sed -n '/BEGIN TSS2/,/END TSS2/p' blob > key.pem
	run openssl asn1parse -in key.pem
	assert_output --partial "cont [ 5 ]"
	assert_output --regexp "INTEGER +:81000001"
	run tb -T "$OTHER_TCTI" unseal --auth str:k blob
	assert_success
	assert_output "rsa-parent"
	other_stop
}

@test "seal/unseal: no persisted SRK and an owner password -> --owner-auth" {
	other_start owner
	export TPM2TOOLS_TCTI=$OTHER_TCTI
	run tb -T "$OTHER_TCTI" takeown --owner-auth str:own
	assert_success
	tpm2_evictcontrol -C o -P own -c 0x81000001 >/dev/null
	printf 'o' > in
	run tb -T "$OTHER_TCTI" seal -o blob in
	assert_failure 4
	assert_output --partial "give --owner-auth"
	[ ! -e blob ]
	run tb -T "$OTHER_TCTI" seal --owner-auth str:own -o blob in
	assert_success
	run tb -T "$OTHER_TCTI" unseal blob
	assert_failure 4
	assert_output --partial "give --owner-auth"
	run tb -T "$OTHER_TCTI" unseal --owner-auth str:own blob
	assert_success
	assert_output "o"
	assert_nothing_loaded
	other_stop
}

@test "seal: TPM 1.2 options on this TPM 2.0: --srk-auth, --format tpm-tools and a bare PCR list are usage errors, nothing written" {
	printf 'x' > in
	run tb seal --srk-auth str:x -o b in
	assert_failure 2
	assert_output --partial "are for a TPM 1.2 (this one is a TPM 2.0)"
	run tb seal --format tpm-tools -o b in
	assert_failure 2
	assert_output --partial "are for a TPM 1.2"
	run tb seal -p 0,7 -o b in
	assert_failure 2
	assert_output --partial "name the PCR bank (e.g. sha256:0,7); a bare list is for a TPM 1.2"
	[ ! -e b ]
	# And a TPM 1.2's blob (tests/fixtures/tpm12: seal on swtpm 1.2) or
	# tpm-tools' file is refused here in one sentence: its first command
	# goes out as a 1.2 one, the 2.0 answers TPM_BADTAG, then the family
	# probe says why.
	fx=$BATS_TEST_DIRNAME/fixtures/tpm12
	for b in tpmbox-sealed-pcr0-7.blob sealdata-nopcr.tss; do
		run tb unseal -o out "$fx/$b"
		assert_failure 1
		assert_output "tpmbox unseal: $fx/$b was sealed on a TPM 1.2, and this TPM is a TPM 2.0"
		[ ! -e out ]
	done
	tb seal -o b20 in
	run tb unseal --srk-auth str:x -o out b20
	assert_failure 2
	assert_output --partial "--srk-auth is for a TPM 1.2's blob"
	[ ! -e out ]
}
