#!/usr/bin/env bats
# policysign: signed PCR policies in systemd's JSON, with no TPM.
# Oracles: systemd-measure (systemd 252: calculate gives PCR 11 for a UKI's
# sections, sign writes the JSON; it needs a TPM for its trial sessions,
# the suite's swtpm), tpm2_policypcr in a trial session (the policy
# digest), openssl (verifies the signatures, computes the fingerprints).

load helpers/common

SDM=/lib/systemd/systemd-measure

setup_file() {
	# the small build leaves it out (the Makefile's TINY_OMIT): every
	# test skips (bats 1.8 cannot skip in setup_file)
	if ! "$TPMBOX" --list | grep -q '^policysign '; then
		export POLICYSIGN_ABSENT=1
		return 0
	fi
	swtpm_start
	K=$BATS_FILE_TMPDIR/keys
	U=$BATS_FILE_TMPDIR/uki
	mkdir -p "$K" "$U"
	cd "$K"
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out rsa.key 2>/dev/null
	openssl rsa -in rsa.key -traditional -out rsa.pkcs1 2>/dev/null
	openssl pkey -in rsa.key -pubout -out rsa.pub
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:4096 \
		-out rsa4096.key 2>/dev/null
	openssl pkey -in rsa4096.key -pubout -out rsa4096.pub
	openssl ecparam -name prime256v1 -genkey -noout -out ec.sec1
	openssl pkey -in ec.sec1 -out ec.pkcs8
	openssl pkey -in ec.sec1 -pubout -out ec.pub
	# refused as signers
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 \
		-out rsa1024.key 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 \
		-out ec384.key 2>/dev/null
	openssl genpkey -algorithm ED25519 -out ed.key 2>/dev/null
	openssl pkey -in rsa.key -aes256 -passout pass:pw -out rsa-enc.key
	# a UKI's sections, as files
	cd "$U"
	printf 'MZ a kernel image\n' > linux
	printf 'ID=debian\nVERSION_ID=12\n' > osrel
	printf 'root=/dev/vda1 ro quiet' > cmdline
	head -c 4096 /dev/zero | tr '\0' 'i' > initrd
	UKI="--linux=$U/linux --osrel=$U/osrel --cmdline=$U/cmdline --initrd=$U/initrd --phase=enter-initrd"
	"$SDM" calculate $UKI > "$U/calc"
	# the signed policies systemd-measure writes: the sha256 bank alone,
	# and every bank
	"$SDM" sign $UKI --bank=sha256 --private-key="$K/rsa.key" \
		--public-key="$K/rsa.pub" \
		--tpm2-device="swtpm:path=$SWTPM_DIR/sock" \
		> "$U/sd256.json" 2>/dev/null
	"$SDM" sign $UKI --private-key="$K/rsa.key" \
		--public-key="$K/rsa.pub" \
		--tpm2-device="swtpm:path=$SWTPM_DIR/sock" \
		> "$U/sdall.json" 2>/dev/null
	export K U UKI
}

teardown_file() { [ -z "${SWTPM_DIR:-}" ] || swtpm_stop; }

setup() {
	[ -z "${POLICYSIGN_ABSENT:-}" ] ||
		skip "policysign is not in this build (make tiny leaves it out)"
	W=$BATS_TEST_TMPDIR
	cd "$W"
	V256=$(sed -n 's/^11:sha256=//p' "$U/calc")
	V1=$(sed -n 's/^11:sha1=//p' "$U/calc")
	Z=$(printf '%064d' 0)
}

# pol_bin FILE JQPATH OUT: the hex field pol of an entry, as bytes.
field_bin() { jq -r "$2" "$1" | xxd -r -p > "$3"; }
sig_bin() { jq -r "$2" "$1" | base64 -d > "$3"; }

@test "policysign: systemd-measure's oracle files are there (calculate, sign)" {
	[ ${#V256} -eq 64 ]
	[ ${#V1} -eq 40 ]
	[ "$(jq -r '.sha256 | length' "$U/sd256.json")" = 1 ]
	[ "$(jq -r 'keys | join(",")' "$U/sdall.json")" = "sha1,sha256,sha384,sha512" ]
}

@test "policysign: PCR 11 as the UKI stub leaves it (section name with NUL, contents, then enter-initrd) is what systemd-measure calculates" {
	tb pcrread sha256:11 | grep -q "sha256:11 $Z"
	for s in linux osrel cmdline initrd; do
		printf '.%s\0' "$s" > name
		tb extend 11 -f name -b sha256
		tb extend 11 -f "$U/$s" -b sha256
	done
	tb extend 11 -s enter-initrd -b sha256
	run tb pcrread sha256:11
	assert_output "sha256:11 $V256"
	tb pcrread sha256:11+sha1:0 > "$U/pcrs.txt"
}

@test "policysign: the entry for systemd's PCR 11 value is systemd-measure sign's, byte for byte (RSA-2048, PKCS#8 and PKCS#1)" {
	tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" -o mine.json
	# the fields, parsed
	for f in pcrs pkfp pol sig; do
		[ "$(jq -c ".sha256[0].$f" mine.json)" = "$(jq -c ".sha256[0].$f" "$U/sd256.json")" ]
	done
	# and the whole text: the same layout
	cmp mine.json "$U/sd256.json"
	# no TPM is opened: a TPM that is not there changes nothing
	TPMBOX_TCTI="swtpm:path=$W/none" tb policysign -k "$K/rsa.pkcs1" \
		-p "sha256:11=$V256" -o pkcs1.json
	cmp pkcs1.json "$U/sd256.json"
	# systemd's sha256 entry of the every-bank file is the same entry
	[ "$(jq -c .sha256 "$U/sdall.json")" = "$(jq -c .sha256 mine.json)" ]
}

@test "policysign: -P with pcrread's output of the extended swtpm gives systemd's file too (the other banks in it are left out)" {
	[ -s "$U/pcrs.txt" ] || skip "needs the PCR 11 test before it"
	grep -q '^sha1:0 ' "$U/pcrs.txt"
	tb policysign -k "$K/rsa.key" -P "$U/pcrs.txt" -o mine.json
	cmp mine.json "$U/sd256.json"
	# stdin and stdout
	tb policysign -k "$K/rsa.key" -P - -o - < "$U/pcrs.txt" > out.json
	cmp out.json "$U/sd256.json"
}

@test "policysign: pkfp is SHA-256 of the PKCS#1 RSAPublicKey (RSA) and of the 04||X||Y point (P-256), as systemd writes" {
	want=$(openssl rsa -in "$K/rsa.key" -RSAPublicKey_out -outform DER 2>/dev/null | sha256sum | cut -c1-64)
	[ "$(jq -r '.sha256[0].pkfp' "$U/sd256.json")" = "$want" ]
	tb policysign -k "$K/rsa4096.key" -p "sha256:11=$Z" -o r4.json
	want=$(openssl rsa -in "$K/rsa4096.key" -RSAPublicKey_out -outform DER 2>/dev/null | sha256sum | cut -c1-64)
	[ "$(jq -r '.sha256[0].pkfp' r4.json)" = "$want" ]
	tb policysign -k "$K/ec.sec1" -p "sha256:11=$Z" -o ec.json
	want=$(openssl pkey -pubin -in "$K/ec.pub" -outform DER | tail -c 65 | sha256sum | cut -c1-64)
	[ "$(jq -r '.sha256[0].pkfp' ec.json)" = "$want" ]
}

@test "policysign: pol equals tpm2_policypcr's trial digest for several PCRs and every bank" {
	for bank in sha1 sha256 sha384 sha512; do
		case $bank in
		sha1) n=20 ;; sha256) n=32 ;; sha384) n=48 ;; sha512) n=64 ;;
		esac
		vals= ; : > vals.bin
		for i in 0 7 11; do
			v=$(head -c $n /dev/urandom | xxd -p -c 64)
			vals=$vals${vals:+,}$v
			printf '%s' "$v" | xxd -r -p >> vals.bin
		done
		tb policysign -k "$K/rsa.key" --bank $bank -p "$bank:0,7,11=$vals" -o "$bank.json"
		[ "$(jq -c ".$bank[0].pcrs" "$bank.json")" = "[0,7,11]" ]
		tpm2_startauthsession -S s.ctx
		tpm2_policypcr -S s.ctx -l "$bank:0,7,11" -f vals.bin -L want.bin >/dev/null
		tpm2_flushcontext s.ctx
		[ "$(jq -r ".$bank[0].pol" "$bank.json")" = "$(xxd -p -c 64 want.bin)" ]
	done
}

@test "policysign: openssl verifies the signatures over pol's bytes with SHA-256 (RSA-2048, RSA-4096, P-256 SEC1 and PKCS#8), for every bank" {
	tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" -o rsa.json
	tb policysign -k "$K/rsa4096.key" --bank sha1 -p "sha1:11=$V1" -o r4.json
	tb policysign -k "$K/ec.sec1" -p "sha256:11=$V256" -o ec.json
	tb policysign -k "$K/ec.pkcs8" --bank sha1 -p "sha1:11=$V1" -o ec8.json
	for c in "rsa.json sha256 rsa.pub" "r4.json sha1 rsa4096.pub" \
		 "ec.json sha256 ec.pub" "ec8.json sha1 ec.pub"; do
		set -- $c
		field_bin "$1" ".$2[0].pol" pol.bin
		sig_bin "$1" ".$2[0].sig" sig.bin
		run openssl dgst -sha256 -verify "$K/$3" -signature sig.bin pol.bin
		assert_output "Verified OK"
		# and not over other bytes
		printf x >> pol.bin
		run openssl dgst -sha256 -verify "$K/$3" -signature sig.bin pol.bin
		assert_failure
	done
	[ "$(stat -c %s sig.bin)" -le 72 ]
	# the signature is a DER ECDSA-Sig-Value
	openssl asn1parse -inform DER -in sig.bin | grep -c INTEGER | grep -qx 2
}

@test "policysign: --append on systemd's every-bank file keeps systemd's entries; the same state is replaced, not duplicated" {
	cp "$U/sdall.json" all.json
	# the same state with the same key: replaced by identical bytes
	tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" --append -o all.json
	cmp all.json "$U/sdall.json"
	# another state, another key: added to its bank, the rest unchanged
	tb policysign -k "$K/ec.pkcs8" -p "sha256:11=$Z" --append -o all.json
	[ "$(jq '.sha256 | length' all.json)" = 2 ]
	for b in sha1 sha256 sha384 sha512; do
		[ "$(jq -c ".$b[0]" all.json)" = "$(jq -c ".$b[0]" "$U/sdall.json")" ]
	done
	[ "$(jq -r 'keys_unsorted | join(",")' all.json)" = "$(jq -r 'keys_unsorted | join(",")' "$U/sdall.json")" ]
	[ "$(jq -r '.sha256[1].pol' all.json)" != "$(jq -r '.sha256[0].pol' all.json)" ]
	# the EC key again for the same state: replaced (a new random k)
	old=$(jq -r '.sha256[1].sig' all.json)
	tb policysign -k "$K/ec.sec1" -p "sha256:11=$Z" --append -o all.json
	[ "$(jq '.sha256 | length' all.json)" = 2 ]
	[ "$(jq -r '.sha256[1].sig' all.json)" != "$old" ]
	# a new bank goes at the end
	tb policysign -k "$K/rsa.key" --bank sha1 -p "sha1:7=$(printf '%040d' 0)" --append -o all.json
	[ "$(jq '.sha1 | length' all.json)" = 2 ]
	[ "$(jq -c '.sha1[1].pcrs' all.json)" = "[7]" ]
	# --append on a file that is not there yet makes it
	tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" --append -o new.json
	cmp new.json "$U/sd256.json"
	# the file is one line, as systemd writes it
	[ "$(wc -l < all.json)" = 1 ]
}

@test "policysign: --append reads systemd's pretty-printed JSON and writes it in systemd's layout" {
	"$SDM" sign $UKI --bank=sha256 --private-key="$K/rsa.key" \
		--public-key="$K/rsa.pub" --json=pretty \
		--tpm2-device="swtpm:path=$SWTPM_DIR/sock" > pretty.json 2>/dev/null
	[ "$(wc -l < pretty.json)" -gt 5 ]
	tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" --append -o pretty.json
	cmp pretty.json "$U/sd256.json"
}

@test "policysign: an existing SIG.json is kept without -f (exit 3) and replaced with -f" {
	echo keep > out.json
	run tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" -o out.json
	assert_failure 3
	assert_output --partial "out.json already exists"
	[ "$(cat out.json)" = keep ]
	tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" -f -o out.json
	cmp out.json "$U/sd256.json"
}

# append_refused TEXT WHY: a SIG.json with TEXT is refused by --append
# (exit 1, naming the file and why) and left as it was.
append_refused() {
	printf '%s' "$1" > bad.json
	cp bad.json before.json
	run tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" --append -o bad.json
	assert_failure 1
	assert_output --partial "tpmbox policysign: bad.json: $2"
	cmp bad.json before.json
}

@test "policysign: --append refuses a malformed SIG.json and leaves it alone" {
	E=$(jq -c '.sha256[0]' "$U/sd256.json")
	append_refused "" "expected '{' at the start"
	append_refused "[$E]" "expected '{' at the start"
	append_refused "{\"sha256\":[$E]}x" "trailing data after the JSON object"
	append_refused "{\"sha256\":[$E],\"sha256\":[$E]}" 'bank "sha256" appears twice'
	append_refused "{\"md5\":[$E]}" 'unknown bank "md5"'
	append_refused "{\"sha256\":$E}" '"sha256" is an object, not an array'
	append_refused "{\"sha256\":[[$E]]}" 'an entry of "sha256" is an array, not an object'
	append_refused "{\"sha256\":[${E%\}},\"x\":1}]}" 'an entry has an unknown key "x"'
	append_refused "{\"sha256\":[${E%\}},\"pol\":\"$Z\"}]}" 'an entry has "pol" twice'
	append_refused "{\"sha256\":[$(jq -c 'del(.sig)' <<< "$E")]}" 'an entry has no "sig"'
	append_refused "{\"sha256\":[$(jq -c '.pcrs=[11,7]' <<< "$E")]}" '"pcrs" is not in ascending order'
	append_refused "{\"sha256\":[$(jq -c '.pcrs=[24]' <<< "$E")]}" 'PCR 24 in "pcrs" is out of range'
	append_refused "{\"sha256\":[$(jq -c '.pcrs=["11"]' <<< "$E")]}" '"pcrs" holds a string, not a number'
	append_refused "{\"sha256\":[$(jq -c '.pkfp=.pkfp[2:]' <<< "$E")]}" '"pkfp" has 62 hex digits, not 64'
	append_refused "{\"sha256\":[$(jq -c '.pol="zz"+.pol[2:]' <<< "$E")]}" '"pol" is not hex'
	append_refused "{\"sha256\":[$(jq -c '.sig=.sig[1:]' <<< "$E")]}" '"sig" has 343 base64 characters: not a multiple of 4'
	append_refused "{\"sha256\":[$(jq -c '.sig=("A"*700)' <<< "$E")]}" '"sig" has 700 base64 characters: longer than any signature'
	append_refused "{\"sha256\":[$(jq -c '.pol=1' <<< "$E")]}" '"pol" is a number, not a string'
	# 65 entries
	many=$(for i in $(seq 0 64); do jq -c ".pol=\"$(printf '%064x' "$i")\"" <<< "$E"; done | paste -sd,)
	append_refused "{\"sha256\":[$many]}" "more than 64 entries"
}

@test "policysign: signer keys that are refused: P-384, RSA-1024, Ed25519, a public key, an encrypted key, not a key, missing" {
	for k in ec384.key:"an EC key on P-384" rsa1024.key:"an RSA key of 1024 bits" \
		 ed.key:"not an RSA or EC" rsa.pub:"not a PEM private key" \
		 rsa-enc.key:"the private key is encrypted"; do
		run tb policysign -k "$K/${k%%:*}" -p "sha256:11=$V256" -o out.json
		assert_failure 2
		assert_output --partial "tpmbox policysign: -k $K/${k%%:*}: ${k#*:}"
		[ ! -e out.json ]
	done
	echo "not a key" > junk
	run tb policysign -k junk -p "sha256:11=$V256" -o out.json
	assert_failure 2
	run tb policysign -k nothere -p "sha256:11=$V256" -o out.json
	assert_failure 6
	[ ! -e out.json ]
}

@test "policysign: PCR arguments that are refused: no values, bank mismatch, two banks, PCR 24, all, a PCRFILE without the bank" {
	r() {	# r WHY ARGS...: exit 2 with WHY, nothing written
		local why=$1; shift
		run tb policysign -k "$K/rsa.key" "$@" -o out.json
		assert_failure 2
		assert_output --partial "tpmbox policysign: $why"
		[ ! -e out.json ]
	}
	r "-p: give the value of every PCR" -p sha256:11
	r "-p: 'sha256:7,11' selects 2 PCRs but gives 1 values" -p "sha256:7,11=$Z"
	r "-p names the sha1 bank but --bank is sha256" -p "sha1:11=$V1"
	r "-p names the sha256 bank but --bank is sha1" --bank sha1 -p "sha256:11=$V256"
	r "-p must name the PCRs of one bank" -p "sha256:11=$V256+sha1:11=$V1"
	r "PCRs above 23 cannot be signed for" -p "sha256:24=$Z"
	r "-p: 'sha256:all' cannot take values" -p "sha256:all=$Z"
	r "-p: 'abcd' is not 32 bytes of hex for sha256:11" -p "sha256:11=abcd"
	r "--bank: unknown bank 'md5'" --bank md5 -p "sha256:11=$V256"
	r "--bank: unknown bank 'sm3_256'" --bank sm3_256 -p "sha256:11=$V256"
	printf 'sha1:11 %s\n' "$V1" > sha1only.txt
	r "-P sha1only.txt has no sha256 values" -P sha1only.txt
	r "one -p or -P" -p "sha256:11=$V256" -P sha1only.txt
	r "give -k SIGNER.key, -o SIG.json and one of" 
	run tb policysign -k "$K/rsa.key" -p "sha256:11=$V256"
	assert_failure 2
	run tb policysign -k "$K/rsa.key" -p "sha256:11=$V256" --append -o -
	assert_failure 2
	assert_output --partial "--append needs -o FILE"
	# the test runs in a directory of its own: nothing was left in it
	[ -z "$(ls | grep -v sha1only.txt)" ]
}
