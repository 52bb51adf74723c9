#!/usr/bin/env bats
# Surviving updates (issue 11): seal to several PCR states (PolicyOR) and
# to policies a key signs (PolicyAuthorize), on swtpm.  Oracles:
# tpm2-tools (policypcr/policyor/policyauthorize/verifysignature/unseal on
# tpmbox's blob, pcrreset/pcrextend), openssl (keys, signatures, extend
# arithmetic), systemd-measure (signed-policy JSON).

load helpers/common

setup_file() {
	swtpm_start
	# the SRK persisted at 0x81000001, for tpm2-tools to load under
	"$TPMBOX" takeown >/dev/null
}
teardown_file() { swtpm_stop; }

setup() {
	W=$BATS_TEST_TMPDIR
	cd "$W"
	printf 'the disk key' > secret
}
# tpm2-tools leave objects and sessions behind when a test fails midway
teardown() { t2_flush; }

zero32=0000000000000000000000000000000000000000000000000000000000000000

# extend_hex OLD DIGEST -> sha256(OLD || DIGEST)
extend_hex() {
	printf '%s%s' "$1" "$2" | xxd -r -p | openssl dgst -sha256 -r |
		cut -d' ' -f1
}
sha_hex() { printf '%s' "$1" | openssl dgst -sha256 -r | cut -d' ' -f1; }

# PCR 16 (resettable) in state N: reset, then extended with the digests
# of the words given.
pcr16() {
	tpm2_pcrreset 16 >/dev/null
	local w
	for w in "$@"; do
		tpm2_pcrextend "16:sha256=$(sha_hex "$w")" >/dev/null
	done
}
# The value PCR 16 has after pcr16 WORDS...
val16() {
	local v=$zero32 w
	for w in "$@"; do v=$(extend_hex "$v" "$(sha_hex "$w")"); done
	echo "$v"
}

@test "PolicyOR: sealed to three states, unseals in each, refused in a fourth" {
	a=$(val16) b=$(val16 shim) c=$(val16 shim grub)
	tb seal -p sha256:16="$a" -p sha256:16="$b" -p sha256:16="$c" \
		-o blob secret
	for st in "" "shim" "shim grub"; do
		# shellcheck disable=SC2086
		pcr16 $st
		run tb unseal blob
		assert_success
		assert_output "the disk key"
	done
	pcr16 grub
	run tb unseal -o out blob
	assert_failure 4
	assert_output --partial "none of the 3 sets of values"
	assert_output --partial "sha256:16 differ"
	[ ! -e out ]
	t2_flush
}

@test "PolicyOR: tpm2-tools unseals the blob with its own PolicyPCR + PolicyOR (the digest is tpm2_policyor's)" {
	a=$(val16) b=$(val16 x) c=$(val16 x y)
	tb seal -p sha256:16="$a" -p sha256:16="$b" -p sha256:16="$c" \
		-o blob secret
	tss2_pieces blob p
	# the branch digests and the OR, with tpm2-tools' trial sessions
	for n in a b c; do
		eval "v=\$$n"
		echo "$v" | xxd -r -p > "pcr.$n"
		tpm2_startauthsession -S t.ctx
		tpm2_policypcr -S t.ctx -l sha256:16 -f "pcr.$n" -L "$n.pol" \
			>/dev/null
		tpm2_flushcontext t.ctx
	done
	tpm2_startauthsession -S t.ctx
	tpm2_policyor -S t.ctx -L or.pol sha256:a.pol,b.pol,c.pol >/dev/null
	tpm2_flushcontext t.ctx
	tpm2_load -C 0x81000001 -u p/pub -r p/priv -c obj.ctx >/dev/null
	tpm2_readpublic -c obj.ctx -o obj.pub >/dev/null
	# authPolicy of the sealed object: after size, type, nameAlg,
	# attributes and the policy's own size
	pol=$(xxd -p -c 256 obj.pub | cut -c25-88)
	assert_equal "$pol" "$(xxd -p -c 64 or.pol)"
	# and tpm2-tools' own policy session satisfies it in state b
	pcr16 x
	tpm2_startauthsession --policy-session -S s.ctx
	tpm2_policypcr -S s.ctx -l sha256:16 >/dev/null
	tpm2_policyor -S s.ctx sha256:a.pol,b.pol,c.pol >/dev/null
	run tpm2_unseal -c obj.ctx -p session:s.ctx
	assert_success
	assert_output "the disk key"
	tpm2_flushcontext s.ctx
	t2_flush
}

@test "PolicyOR: -P files over one -p selection, with a password; the branches and the password are both checked" {
	printf 'sha256:16 %s\n' "$(val16 one)" > one.txt
	printf 'sha256:16 %s\n' "$(val16 two)" > two.txt
	tb seal -p sha256:16 -P one.txt -P two.txt --auth str:pw -o blob secret
	pcr16 two
	run tb unseal --auth str:pw blob
	assert_success
	assert_output "the disk key"
	run tb unseal --auth str:wrong blob
	assert_failure 4
	assert_output --partial "password is wrong"
	pcr16 three
	run tb unseal --auth str:pw blob
	assert_failure 4
	assert_output --partial "none of the 2 sets"
	# -P files alone: each its own selection
	tb seal -P one.txt -P two.txt -o blob2 secret
	pcr16 one
	run tb unseal blob2
	assert_success
	t2_flush
	tpm2_dictionarylockout -c >/dev/null
}

@test "PolicyOR: the blob format (version 2, PolicyOR in the key file) and its checks" {
	tb seal -p sha256:16="$(val16)" -p sha256:16="$(val16 a)" -o blob secret
	# block 1: PolicyOR (0x171) as [0] INTEGER
	sed -n '/BEGIN TSS2/,/END TSS2/p' blob | sed '1d;$d' | base64 -d |
		xxd -p | tr -d '\n' > der.hex
	grep -q 'a00402020171' der.hex
	# the extra block says version 2
	x=$(sed -n '/BEGIN TPMBOX/,/END TPMBOX/p' blob | sed '1d;$d' | base64 -d |
		xxd -p | tr -d '\n')
	assert_equal "${x:0:12}" "544253580002"
	# a recorded value changed: the blocks disagree, nothing unseals
	python3 - blob <<'EOF'
import base64, sys
t = open(sys.argv[1]).read()
a = t.index("-----BEGIN TPMBOX SEALED EXTRA-----")
b = t.index("-----END TPMBOX SEALED EXTRA-----")
body = t[a:b].split("\n", 1)[1]
d = bytearray(base64.b64decode(body))
d[-1] ^= 1
enc = base64.b64encode(bytes(d)).decode()
lines = "\n".join(enc[i:i + 64] for i in range(0, len(enc), 64))
open(sys.argv[1] + ".bad", "w").write(t[:a] +
    "-----BEGIN TPMBOX SEALED EXTRA-----\n" + lines + "\n" + t[b:])
EOF
	run tb unseal -o out blob.bad
	assert_failure 1
	assert_output --partial "policies of the two blocks differ"
	[ ! -e out ]
}

@test "PolicyOR: refusals (more than 8 states, several -p with -P, --bank alone)" {
	args=()
	for i in 1 2 3 4 5 6 7 8 9; do args+=(-p "sha256:16=$(val16 "$i")"); done
	run tb seal "${args[@]}" -o blob secret
	assert_failure 2
	assert_output --partial "at most 8"
	printf 'sha256:16 %s\n' "$(val16 one)" > one.txt
	run tb seal -p sha256:16="$zero32" -p sha256:16="$zero32" -P one.txt \
		-o blob secret
	assert_failure 2
	assert_output --partial "with several -p"
	run tb seal --bank sha256 -p sha256:16 -o blob secret
	assert_failure 2
	assert_output --partial "--bank goes with --authorized-by"
	[ ! -e blob ]
}

# ---- signed policies ----

# sign_policy KEY BANK PCRS POLHEX -> one JSON entry (systemd's form) made
# with openssl: pkfp = SHA-256 of the DER public key as i2d_PublicKey
# writes it (RSA: PKCS#1 RSAPublicKey; EC: the point).
entry() {
	local key=$1 bank=$2 pcrs=$3 pol=$4 fp sig
	if openssl pkey -in "$key" -noout -text 2>/dev/null | grep -q '^Private-Key.*bit' &&
	   openssl rsa -in "$key" -noout 2>/dev/null; then
		fp=$(openssl rsa -in "$key" -RSAPublicKey_out -outform DER \
			2>/dev/null | openssl dgst -sha256 -r | cut -d' ' -f1)
	else
		fp=$(openssl ec -in "$key" -pubout -outform DER 2>/dev/null |
			tail -c 65 | openssl dgst -sha256 -r | cut -d' ' -f1)
	fi
	echo "$pol" | xxd -r -p > pol.bin
	sig=$(openssl dgst -sha256 -sign "$key" pol.bin | base64 -w0)
	printf '{"pcrs":[%s],"pkfp":"%s","pol":"%s","sig":"%s"}' \
		"$pcrs" "$fp" "$pol" "$sig"
}

# The PolicyPCR digest (SHA-256, from zero) of sha256:16 with value V,
# computed by tpm2-tools in a trial session.
polpcr16() {
	echo "$1" | xxd -r -p > v.bin
	tpm2_startauthsession -S tr.ctx
	tpm2_policypcr -S tr.ctx -l sha256:16 -f v.bin -L p.pol >/dev/null
	tpm2_flushcontext tr.ctx
	xxd -p -c 64 p.pol
}

@test "signed policy: RSA key, openssl-made JSON; unseals in a signed state, exit 4 in another, wrong key and bank refused" {
	openssl genrsa -out k.pem 2048 2>/dev/null
	openssl rsa -in k.pem -pubout -out k.pub 2>/dev/null
	tb seal --authorized-by k.pub -o blob secret
	e1=$(entry k.pem sha256 16 "$(polpcr16 "$(val16 v1)")")
	e2=$(entry k.pem sha256 16 "$(polpcr16 "$(val16 v2)")")
	printf '{"sha256":[%s,%s]}\n' "$e1" "$e2" > sig.json
	pcr16 v2
	run tb unseal --signature sig.json blob
	assert_success
	assert_output "the disk key"
	pcr16 v1
	run tb unseal --signature sig.json blob
	assert_success
	pcr16 v3
	run tb unseal --signature sig.json -o out blob
	assert_failure 4
	assert_output --partial "match none of the 2 signed policies"
	[ ! -e out ]
	# no --signature
	run tb unseal blob
	assert_failure 2
	assert_output --partial "give --signature"
	# signed by another key
	openssl genrsa -out other.pem 2048 2>/dev/null
	printf '{"sha256":[%s]}\n' "$(entry other.pem sha256 16 \
		"$(polpcr16 "$(val16 v3)")")" > other.json
	run tb unseal --signature other.json blob
	assert_failure 4
	assert_output --partial "is by the key"
	# the right key, another bank
	printf '{"sha1":[%s]}\n' "$(entry k.pem sha1 16 \
		"$(polpcr16 "$(val16 v3)")")" > sha1.json
	run tb unseal --signature sha1.json blob
	assert_failure 4
	assert_output --partial "for the PCR bank sha256"
	t2_flush
}

@test "signed policy: a signature that does not verify (right pkfp and pol, altered sig) is refused by the TPM" {
	openssl genrsa -out k.pem 2048 2>/dev/null
	openssl rsa -in k.pem -pubout -out k.pub 2>/dev/null
	tb seal --authorized-by k.pub -o blob secret
	pcr16 s
	e=$(entry k.pem sha256 16 "$(polpcr16 "$(val16 s)")")
	printf '{"sha256":[%s]}\n' "$e" > good.json
	python3 - good.json bad.json <<'EOF'
import base64, json, sys
j = json.load(open(sys.argv[1]))
s = bytearray(base64.b64decode(j["sha256"][0]["sig"]))
s[10] ^= 0x40
j["sha256"][0]["sig"] = base64.b64encode(bytes(s)).decode()
json.dump(j, open(sys.argv[2], "w"))
EOF
	run tb unseal --signature bad.json -o out blob
	assert_failure 4
	assert_output --partial "does not verify"
	[ ! -e out ]
	run tb unseal --signature good.json blob
	assert_success
	t2_flush
}

@test "signed policy: EC P-256 signer (DER ECDSA), with --auth" {
	openssl ecparam -genkey -name prime256v1 -noout -out ec.pem
	openssl ec -in ec.pem -pubout -out ec.pub 2>/dev/null
	tb seal --authorized-by ec.pub --auth str:pw -o blob secret
	pcr16 e
	printf '{"sha256":[%s]}\n' "$(entry ec.pem sha256 16 \
		"$(polpcr16 "$(val16 e)")")" > sig.json
	run tb unseal --signature sig.json --auth str:pw blob
	assert_success
	assert_output "the disk key"
	run tb unseal --signature sig.json blob
	assert_failure 4
	assert_output --partial "give --auth"
	t2_flush
}

@test "signed policy: policysign's JSON: tpmbox unseals with it, and tpm2-tools (loadexternal, verifysignature, policypcr, policyauthorize) unseals tpmbox's blob with it" {
	"$TPMBOX" --list | grep -q '^policysign ' ||
		skip "policysign is not in this build (make tiny leaves it out)"
	openssl genrsa -out k.pem 2048 2>/dev/null
	openssl rsa -in k.pem -pubout -out k.pub 2>/dev/null
	tb seal --authorized-by k.pub -o blob secret
	tss2_pieces blob p
	pcr16 t
	tb policysign -k k.pem -p "sha256:16=$(val16 t)" -o sig.json
	run tb unseal --signature sig.json blob
	assert_success
	assert_output "the disk key"
	# the entry's pol and sig, as tpm2-tools takes them
	jq -r '.sha256[0].pol' sig.json | xxd -r -p > approved.pol
	jq -r '.sha256[0].sig' sig.json | base64 -d > sig.bin
	assert_equal "$(xxd -p -c 64 approved.pol)" "$(polpcr16 "$(val16 t)")"
	tpm2_loadexternal -C o -G rsa -u k.pub -c key.ctx -n key.name >/dev/null
	tpm2_verifysignature -c key.ctx -g sha256 -m approved.pol -s sig.bin \
		-f rsassa -t tk.bin >/dev/null
	t2_flush
	tpm2_load -C 0x81000001 -u p/pub -r p/priv -c obj.ctx >/dev/null
	tpm2_startauthsession --policy-session -S s.ctx
	tpm2_policypcr -S s.ctx -l sha256:16 >/dev/null
	tpm2_policyauthorize -S s.ctx -i approved.pol -n key.name -t tk.bin \
		>/dev/null
	run tpm2_unseal -c obj.ctx -p session:s.ctx
	assert_success
	assert_output "the disk key"
	tpm2_flushcontext s.ctx
	t2_flush
}

@test "signed policy: refusals at seal (-p with --authorized-by, a key that is not RSA-2048/3072 or P-256, a missing file)" {
	openssl genrsa -out k.pem 2048 2>/dev/null
	openssl rsa -in k.pem -pubout -out k.pub 2>/dev/null
	run tb seal --authorized-by k.pub -p sha256:16 -o blob secret
	assert_failure 2
	assert_output --partial "drop -p/-P"
	openssl genrsa -out small.pem 1024 2>/dev/null
	openssl rsa -in small.pem -pubout -out small.pub 2>/dev/null
	run tb seal --authorized-by small.pub -o blob secret
	assert_failure 2
	assert_output --partial "not an RSA-2048/3072 or EC P-256 public key"
	openssl ecparam -genkey -name secp384r1 -noout -out p384.pem
	openssl ec -in p384.pem -pubout -out p384.pub 2>/dev/null
	run tb seal --authorized-by p384.pub -o blob secret
	assert_failure 2
	run tb seal --authorized-by nothere.pub -o blob secret
	assert_failure 6
	run tb seal --authorized-by k.pub --bank nosuch -o blob secret
	assert_failure 2
	assert_output --partial "unknown PCR bank"
	[ ! -e blob ]
	# --signature for a blob sealed without a signer
	tb seal -o plain secret
	echo '{"sha256":[]}' > empty.json
	run tb unseal --signature empty.json plain
	assert_failure 2
	assert_output --partial "drop --signature"
}

# The UKI stub's PCR 11 (ORACLES.md): for each section, SHA-256 of its name
# with the NUL, then SHA-256 of its contents; then the phase word.
uki_extend() {
	local s
	for s in linux osrel cmdline initrd; do
		tpm2_pcrextend "11:sha256=$(printf '.%s\0' "$s" |
			openssl dgst -sha256 -r | cut -d' ' -f1)" >/dev/null
		tpm2_pcrextend "11:sha256=$(openssl dgst -sha256 -r "$s.sec" |
			cut -d' ' -f1)" >/dev/null
	done
	tpm2_pcrextend "11:sha256=$(printf 'enter-initrd' |
		openssl dgst -sha256 -r | cut -d' ' -f1)" >/dev/null
}

@test "signed policy: systemd-measure sign's JSON unseals a tpmbox blob after the UKI stub's PCR 11 extends" {
	SM=/lib/systemd/systemd-measure
	[ -x "$SM" ] || fail "systemd-measure is missing (install systemd)"
	# no test before this one extends PCR 11: it is still zero
	assert_equal "$(t2_pcrread_text sha256:11)" "sha256:11 $zero32"
	printf 'kernel image' > linux.sec
	printf 'ID=debian\n' > osrel.sec
	printf 'root=/dev/sda1 ro' > cmdline.sec
	printf 'initrd bytes' > initrd.sec
	openssl genrsa -out k.pem 2048 2>/dev/null
	openssl rsa -in k.pem -pubout -out k.pub 2>/dev/null
	run "$SM" sign --tpm2-device="$TPMBOX_TCTI" --linux=linux.sec \
		--osrel=osrel.sec --cmdline=cmdline.sec --initrd=initrd.sec \
		--bank=sha256 --phase=enter-initrd --private-key=k.pem \
		--public-key=k.pub
	assert_success
	echo "$output" > sm.json
	tb seal --authorized-by k.pub -o blob secret
	uki_extend
	# the stub's value is what systemd-measure calculates
	want=$("$SM" calculate --linux=linux.sec --osrel=osrel.sec \
		--cmdline=cmdline.sec --initrd=initrd.sec --bank=sha256 \
		--phase=enter-initrd | awk -F'=' '/^11:sha256=/ {print $2}')
	assert_equal "sha256:11 $want" "$(t2_pcrread_text sha256:11)"
	run tb unseal --signature sm.json blob
	assert_success
	assert_output "the disk key"
	# one more extend: no signed state matches
	tpm2_pcrextend "11:sha256=$(sha_hex later)" >/dev/null
	run tb unseal --signature sm.json blob
	assert_failure 4
	assert_output --partial "match none of the 1 signed"
}

@test "reseal: a PCR blob to two states, and a signed-policy blob (--signature) to a PCR one" {
	pcr16 now
	tb seal -p sha256:16 -o old secret
	tb reseal -p sha256:16 -p "sha256:16=$(val16 next)" -o new old
	run tb unseal new
	assert_success
	assert_output "the disk key"
	pcr16 next
	run tb unseal new
	assert_success
	assert_output "the disk key"
	# signed OLD: reseal needs its signature, then seals NEW to the PCRs
	openssl genrsa -out k.pem 2048 2>/dev/null
	openssl rsa -in k.pem -pubout -out k.pub 2>/dev/null
	tb seal --authorized-by k.pub -o sold secret
	printf '{"sha256":[%s]}\n' "$(entry k.pem sha256 16 \
		"$(polpcr16 "$(val16 next)")")" > sig.json
	run tb reseal -p sha256:16 -o new2 sold
	assert_failure 2
	assert_output --partial "give --signature"
	[ ! -e new2 ]
	tb reseal --signature sig.json -p sha256:16 -o new2 sold
	run tb unseal new2
	assert_success
	assert_output "the disk key"
	# and NEW may itself be signed-policy
	tb reseal --signature sig.json --authorized-by k.pub -o new3 sold
	run tb unseal --signature sig.json new3
	assert_success
}
