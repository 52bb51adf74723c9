#!/usr/bin/env bats
# Escrow copies (seal --escrow, --recovery-code*) and recover.  Oracles:
# openssl cms -decrypt (OpenSSL 3.0) and age -d (age 1.1) open the copies
# tpmbox makes; recover runs with no TPM at all.

load helpers/common

setup_file() {
	swtpm_start
	K=$BATS_FILE_TMPDIR/keys
	mkdir -p "$K"
	cd "$K"
	# RSA: a certificate and its key (PKCS#8), the bare public key (SPKI
	# and PKCS#1), the key in PKCS#1 ("RSA PRIVATE KEY")
	openssl req -x509 -newkey rsa:2048 -nodes -keyout rsa.key \
		-out rsa.crt -subj /CN=escrow-rsa -days 30 2>/dev/null
	openssl pkey -in rsa.key -pubout -out rsa.pub
	openssl rsa -in rsa.key -RSAPublicKey_out -out rsa.pkcs1pub 2>/dev/null
	openssl rsa -in rsa.key -traditional -out rsa.pkcs1 2>/dev/null
	# EC: a bare P-256 key (SEC 1 private key), a P-384 certificate
	openssl ecparam -name prime256v1 -genkey -noout -out ec256.key
	openssl pkey -in ec256.key -pubout -out ec256.pub
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes \
		-keyout ec384.key -out ec384.crt -subj /CN=escrow-ec384 \
		-days 30 2>/dev/null
	# age
	age-keygen -o age.txt 2>/dev/null
	age-keygen -y age.txt > age.rcpt
	# keys that are not the recipients'
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
		-out other-rsa.key 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out other-ec256.key 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 \
		-out other-ec384.key 2>/dev/null
	age-keygen -o other-age.txt 2>/dev/null
	# refused as recipients
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 \
		-out rsa1024.key 2>/dev/null
	openssl pkey -in rsa1024.key -pubout -out rsa1024.pub
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 \
		-out ec521.key 2>/dev/null
	openssl pkey -in ec521.key -pubout -out ec521.pub
	openssl pkey -in rsa.key -aes256 -passout pass:pw -out rsa-enc.key
	export K
}

teardown_file() { swtpm_stop; }

setup() {
	W=$BATS_TEST_TMPDIR
	cd "$W"
	AGE_R=$(cat "$K/age.rcpt")
}

# seal_all OUT DATA: a blob with every recipient kind and a recovery code
# (in OUT.code).
seal_all() {
	tb seal --escrow "$K/rsa.crt" --escrow "$K/ec256.pub" \
		--escrow "$K/ec384.crt" --escrow "$AGE_R" \
		--recovery-code-out "$1.code" -o "$1" "$2"
}

no_tpm() { TPMBOX_TCTI=swtpm:path=$W/no-such-socket "$@"; }

@test "seal --escrow: openssl cms and age open the copies of 1 B, 64 KiB and 1 MiB (in the blob and --escrow-out)" {
	local n
	for n in 1 65536 1048576; do
		head -c $n /dev/urandom > d$n
		run tb seal --escrow "$K/rsa.crt" --escrow "$AGE_R" \
			--escrow-out e$n -o b$n d$n
		assert_success
		[ "$(stat -c %a e$n.cms)" = 600 ]
		[ "$(stat -c %a e$n.age)" = 600 ]
		openssl cms -decrypt -inform PEM -in e$n.cms -inkey "$K/rsa.key" | cmp - d$n
		openssl cms -decrypt -inform PEM -in b$n -inkey "$K/rsa.key" | cmp - d$n
		age -d -i "$K/age.txt" e$n.age | cmp - d$n
		pem_cut "AGE ENCRYPTED FILE" b$n | age -d -i "$K/age.txt" | cmp - d$n
		# unseal reads the blob as before
		tb unseal b$n | cmp - d$n
		no_tpm tb recover -k "$K/rsa.key" b$n | cmp - d$n
		no_tpm tb recover -k "$K/age.txt" b$n | cmp - d$n
	done
}

@test "seal --escrow: a 64 MiB secret, opened by openssl cms, age and recover (timed)" {
	local t0 t1 t2 t3 t4 t5
	head -c 67108864 /dev/urandom > d
	t0=$EPOCHREALTIME
	tb seal -o plain.blob d
	t1=$EPOCHREALTIME
	tb seal --escrow "$K/ec256.pub" --escrow "$AGE_R" --escrow-out e -o b d
	t2=$EPOCHREALTIME
	openssl cms -decrypt -inform PEM -in e.cms -inkey "$K/ec256.key" -out o1
	t3=$EPOCHREALTIME
	age -d -i "$K/age.txt" -o o2 e.age
	t4=$EPOCHREALTIME
	no_tpm tb recover -k "$K/ec256.key" -o o3 b
	t5=$EPOCHREALTIME
	cmp o1 d && cmp o2 d && cmp o3 d
	# unseal still reads a blob that large
	tb unseal b | cmp - d
	echo "# 64 MiB: seal $(bc <<< "$t1 - $t0") s, seal with EC + age escrow $(bc <<< "$t2 - $t1") s, openssl cms -decrypt $(bc <<< "$t3 - $t2") s, age -d $(bc <<< "$t4 - $t3") s, recover $(bc <<< "$t5 - $t4") s; blob $(stat -c %s b) bytes" >&3
}

@test "recover: every recipient kind and key form, and the recovery code, with no TPM" {
	echo "escrowed secret" > s
	run tb seal --escrow "$K/rsa.crt" --escrow "$K/rsa.pkcs1pub" \
		--escrow "$K/ec256.pub" --escrow "$K/ec384.crt" \
		--escrow "$K/age.rcpt" --recovery-code-out code -o b s
	assert_success
	[ "$(stat -c %a code)" = 600 ]
	grep -Eqx '([0-9]{6}-){7}[0-9]{6}' code
	local k
	for k in rsa.key rsa.pkcs1 ec256.key ec384.key age.txt; do
		run no_tpm tb recover -k "$K/$k" -o "out.$k" b
		assert_success
		cmp "out.$k" s
		[ "$(stat -c %a "out.$k")" = 600 ]
	done
	# the RSA public key alone (SPKI) too
	run tb seal --escrow "$K/rsa.pub" -o b2 s
	assert_success
	no_tpm tb recover -k "$K/rsa.key" b2 | cmp - s
	# the key on stdin
	no_tpm tb recover -k - b < "$K/ec256.key" | cmp - s
	# the code: as a file, =AUTH, from the environment
	no_tpm tb recover --recovery-code file:code b | cmp - s
	no_tpm tb recover --recovery-code=file:code b | cmp - s
	CODE=$(cat code) no_tpm tb recover --recovery-code env:CODE b | cmp - s
	# typed with spaces, or as 48 digits in a row
	tr - ' ' < code > code.spaces
	no_tpm tb recover --recovery-code file:code.spaces b | cmp - s
	tr -d -- '-\n' < code > code.row
	no_tpm tb recover --recovery-code file:code.row b | cmp - s
}

@test "recover: with no TPM configured at all, and with TPMBOX_TCTI pointing at nothing" {
	echo "secret" > s
	seal_all b s
	run env -u TPMBOX_TCTI -u TPM2TOOLS_TCTI "$TPMBOX" recover -k "$K/rsa.key" b
	assert_success
	assert_output "secret"
	run env TPMBOX_TCTI=device:/nonexistent/tpm0 "$TPMBOX" recover \
		--recovery-code file:b.code b
	assert_success
	assert_output "secret"
	run "$TPMBOX" -T swtpm:path=/nonexistent recover -k "$K/age.txt" b
	assert_success
	assert_output "secret"
}

@test "recover: after clearall --yes on the sealing TPM (unseal can no longer)" {
	echo "disk key" > s
	seal_all b s
	tb unseal b | cmp - s
	run tb clearall --yes
	assert_success
	run tb unseal b
	assert_failure
	assert_output --partial "tpmbox unseal:"
	no_tpm tb recover -k "$K/ec384.key" b | cmp - s
	no_tpm tb recover --recovery-code file:b.code b | cmp - s
}

@test "recover: a key that is not a recipient -> exit 4, nothing written" {
	echo "secret" > s
	seal_all b s
	tb seal --escrow "$K/rsa.crt" -o cmsonly s
	local k
	for k in other-rsa.key other-ec256.key other-ec384.key other-age.txt; do
		run no_tpm tb recover -k "$K/$k" -o out b
		assert_failure 4
		assert_output --partial "tpmbox recover:"
		[ ! -e out ]
	done
	run no_tpm tb recover -k "$K/other-rsa.key" b
	assert_failure 4
	assert_line --index 0 "tpmbox recover: this RSA key is not one the CMS escrow copy was made for (it has 1 RSA recipient(s))"
	assert_output --partial "the blob holds a CMS copy for 1 RSA key(s), 2 EC key(s) and a recovery code; an age copy for 1 recipient(s)"
	# an age identity for a blob without an age copy
	run no_tpm tb recover -k "$K/age.txt" -o out cmsonly
	assert_failure 4
	assert_output --partial "the blob has no age copy"
	[ ! -e out ]
	run no_tpm tb recover --recovery-code file:b.code -o out cmsonly
	assert_failure 4
	assert_output --partial "no recovery-code copy"
	[ ! -e out ]
}

@test "recover --recovery-code: a wrong code -> 4, a mistyped group -> 2 naming it, bad shapes -> 2" {
	echo "secret" > s
	seal_all b s
	seal_all b2 s
	# another blob's code: every group passes its check
	run no_tpm tb recover --recovery-code file:b2.code -o out b
	assert_failure 4
	assert_output --partial "the recovery code is wrong"
	[ ! -e out ]
	# two groups swapped
	awk -F- '{t = $1; $1 = $2; $2 = t; print}' OFS=- b.code > swapped
	run no_tpm tb recover --recovery-code file:swapped -o out b
	assert_failure 4
	[ ! -e out ]
	# one digit wrong in each group in turn: caught, the group named
	local g d code
	code=$(cat b.code)
	for g in 1 2 3 4 5 6 7 8; do
		local at=$(( (g - 1) * 7 + 2 ))
		d=${code:$at:1}
		echo "${code:0:$at}$(( (d + 1) % 10 ))${code:$((at + 1))}" > typo
		run no_tpm tb recover --recovery-code file:typo -o out b
		assert_failure 2
		assert_line --index 0 "tpmbox recover: group $g of the recovery code is mistyped (it fails its check)"
		[ ! -e out ]
	done
	# neighbours swapped within a group
	local a b1
	a=${code:0:1} b1=${code:1:1}
	if [ "$a" != "$b1" ]; then
		echo "$b1$a${code:2}" > typo
		run no_tpm tb recover --recovery-code file:typo b
		assert_failure 2
		assert_output --partial "group 1 "
	fi
	run no_tpm tb recover --recovery-code "str:${code%?}" b
	assert_failure 2
	assert_output --partial "group 8 of the recovery code has 5 digits"
	run no_tpm tb recover --recovery-code "str:${code%-*}" b
	assert_failure 2
	assert_output --partial "has only 7 groups"
	run no_tpm tb recover --recovery-code "str:${code/1/x}" b
	assert_failure 2
	assert_output --partial "not a digit"
}

@test "recover: truncated and tampered escrow blocks -> exit 1, nothing written" {
	echo "secret" > s
	tb seal --escrow "$K/rsa.crt" --escrow "$AGE_R" -o b s
	# cut in the middle of the CMS block, and just after the index
	local cms_end
	cms_end=$(grep -n -- '-----END CMS-----' b | cut -d: -f1)
	head -n $((cms_end - 2)) b > cut1
	run no_tpm tb recover -k "$K/rsa.key" -o out cut1
	assert_failure 1
	assert_output --partial "the CMS block has no END line"
	[ ! -e out ]
	sed '/^-----BEGIN CMS-----$/,$d' b > cut2
	run no_tpm tb recover -k "$K/rsa.key" -o out cut2
	assert_failure 1
	assert_output --partial "the index lists a copy in a CMS block, and there is none"
	[ ! -e out ]
	# a changed character inside each copy: the index's SHA-256 says so
	local lab
	for lab in CMS "AGE ENCRYPTED FILE"; do
		python3 - "$lab" b t <<-'EOF'
		import sys
		lab, src, dst = sys.argv[1:]
		lines = open(src).read().split("\n")
		i = lines.index("-----BEGIN %s-----" % lab) + 2
		c = lines[i][10]
		lines[i] = lines[i][:10] + ("A" if c != "A" else "B") + lines[i][11:]
		open(dst, "w").write("\n".join(lines))
		EOF
		run no_tpm tb recover -k "$K/rsa.key" -o out t
		assert_failure 1
		assert_output --partial "is not the one the index lists"
		[ ! -e out ]
	done
	# no escrow block at all: exit 6
	tb seal -o plain s
	run no_tpm tb recover -k "$K/rsa.key" -o out plain
	assert_failure 6
	assert_output --partial "the blob has no escrow copies"
	[ ! -e out ]
}

# tamper BLOB OUT LABEL OFFSET-FROM-END: flip a byte of a copy and write a
# blob whose index lists the changed copy (its SHA-256 redone), so that
# only the copy's own authentication can notice.
tamper() {
	python3 - "$@" <<-'EOF'
	import base64, hashlib, struct, sys
	src, dst, lab, off = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
	text = open(src).read()
	def block(label):
	    b = text.index("-----BEGIN %s-----\n" % label)
	    e = text.index("-----END %s-----\n" % label) + len("-----END %s-----\n" % label)
	    body = text[b:e].split("\n")[1:-2]
	    return b, e, bytearray(base64.b64decode("".join(body)))
	def pem(label, data):
	    s = base64.b64encode(bytes(data)).decode()
	    return "-----BEGIN %s-----\n%s\n-----END %s-----\n" % (
	        label, "\n".join(s[i:i + 64] for i in range(0, len(s), 64)), label)
	b, e, copy = block(lab)
	at = len(copy) - off
	if lab == "AGE ENCRYPTED FILE" and copy.find(b"--- ") <= at < copy.find(b"\n", copy.find(b"--- ")):
	    # in the header MAC's base64: another valid base64 letter, so that
	    # the MAC (not the base64 decoder) is what refuses it
	    copy[at] = ord("A") if copy[at] != ord("A") else ord("B")
	else:
	    copy[at] ^= 0x01
	text = text[:b] + pem(lab, copy) + text[e:]
	ib, ie, idx = block("TPMBOX ESCROW")
	kind = 1 if lab == "CMS" else 2
	for i in range(struct.unpack(">H", idx[6:8])[0]):
	    at = 8 + 38 * i
	    if struct.unpack(">H", idx[at:at + 2])[0] == kind:
	        idx[at + 6:at + 38] = hashlib.sha256(copy).digest()
	text = text[:ib] + pem("TPMBOX ESCROW", idx) + text[ie:]
	open(dst, "w").write(text)
	EOF
}

@test "recover: an altered copy whose index was redone -> exit 1 by AES-GCM or the age MAC/chunk check" {
	echo "secret" > s
	tb seal --escrow "$K/rsa.crt" --escrow "$AGE_R" --recovery-code-out code -o b s
	# the GCM tag (last bytes of the CMS), and the ciphertext before it
	tamper b t1 CMS 3
	run no_tpm tb recover -k "$K/rsa.key" -o out t1
	assert_failure 1
	assert_output --partial "its AES-GCM tag does not verify"
	[ ! -e out ]
	run no_tpm tb recover --recovery-code file:code -o out t1
	assert_failure 1
	[ ! -e out ]
	tamper b t2 CMS 20
	run no_tpm tb recover -k "$K/rsa.key" -o out t2
	assert_failure 1
	assert_output --partial "AES-GCM"
	[ ! -e out ]
	# openssl refuses the same copy
	run openssl cms -decrypt -inform PEM -in t2 -inkey "$K/rsa.key"
	assert_failure
	# the age payload's last chunk, and the header MAC
	tamper b t3 "AGE ENCRYPTED FILE" 5
	run no_tpm tb recover -k "$K/age.txt" -o out t3
	assert_failure 1
	assert_output --partial "chunk 0 of the payload does not verify"
	[ ! -e out ]
	local hdr
	hdr=$(pem_cut "AGE ENCRYPTED FILE" b | sed '1d;$d' | base64 -d | head -c 300 | grep -a -b -o -- '--- ' | cut -d: -f1)
	local total
	total=$(pem_cut "AGE ENCRYPTED FILE" b | sed '1d;$d' | base64 -d | wc -c)
	tamper b t4 "AGE ENCRYPTED FILE" $((total - hdr - 6))
	run no_tpm tb recover -k "$K/age.txt" -o out t4
	assert_failure 1
	assert_output --partial "the header MAC does not verify"
	[ ! -e out ]
	run bash -c "sed -n '/^-----BEGIN AGE ENCRYPTED FILE-----\$/,/^-----END AGE ENCRYPTED FILE-----\$/p' t4 | age -d -i '$K/age.txt'"
	assert_failure
}

@test "recover: an escrow index of another version or listing an unknown kind -> exit 1" {
	echo "secret" > s
	tb seal --escrow "$K/rsa.crt" -o b s
	python3 - b v2 <<-'EOF'
	import base64, sys
	src, dst = sys.argv[1:]
	text = open(src).read()
	b = text.index("-----BEGIN TPMBOX ESCROW-----\n") + 30
	e = text.index("-----END TPMBOX ESCROW-----")
	idx = bytearray(base64.b64decode(text[b:e].replace("\n", "")))
	idx[5] = 2
	s = base64.b64encode(bytes(idx)).decode()
	open(dst, "w").write(text[:b] + "\n".join(s[i:i + 64] for i in range(0, len(s), 64)) + "\n" + text[e:])
	EOF
	run no_tpm tb recover -k "$K/rsa.key" -o out v2
	assert_failure 1
	assert_output --partial "escrow: format version 2 is not supported"
	[ ! -e out ]
	# a copy block the index does not list
	{ cat b; age -r "$AGE_R" -a s; } > extra
	run no_tpm tb recover -k "$K/rsa.key" -o out extra
	assert_failure 1
	assert_output --partial "a AGE ENCRYPTED FILE block the index does not list"
	[ ! -e out ]
}

@test "recovery without tpmbox: the commands of docs/blob-format.md, as written there" {
	echo "offline secret" > s
	tb seal --escrow "$K/rsa.crt" --escrow "$AGE_R" \
		--recovery-code-out code.txt -o disk.blob s
	cp "$K/rsa.key" escrow.key
	cp "$K/age.txt" escrow.txt
	# the three ```sh blocks of the section, run as they stand
	awk '/^### Recovery without tpmbox/ {on = 1} on && /^```sh$/ {n++; f = 1; next}
	     f && /^```$/ {f = 0; next} f {print > ("cmd" n ".sh")}' \
		"$BATS_TEST_DIRNAME/../docs/blob-format.md"
	[ -s cmd1.sh ]
	[ -s cmd2.sh ]
	[ -s cmd3.sh ]
	local i
	for i in 1 2 3; do
		rm -f disk.key
		run bash -e cmd$i.sh
		assert_success
		cmp disk.key s
	done
	grep -q 'openssl cms -decrypt' cmd1.sh && grep -q 'age -d' cmd2.sh &&
		grep -q 'openssl kdf' cmd3.sh
}

@test "seal --escrow: refusals before anything is sealed" {
	echo "secret" > s
	run tb seal --escrow "$K/rsa1024.pub" -o b s
	assert_failure 2
	assert_output --partial "an RSA key of 1024 bits is too small"
	run tb seal --escrow "$K/ec521.pub" -o b s
	assert_failure 2
	assert_output --partial "not an RSA or EC (P-256, P-384) public key"
	run tb seal --escrow age1notarecipient -o b s
	assert_failure 2
	assert_output --partial "not an age recipient"
	# the checksum's last character changed (to another Bech32 letter)
	local last=q
	[ "${AGE_R: -1}" = q ] && last=p
	run tb seal --escrow "${AGE_R%?}$last" -o b s
	assert_failure 2
	run tb seal --escrow "$W/missing.pem" -o b s
	assert_failure 6
	echo "hello" > junk
	run tb seal --escrow junk -o b s
	assert_failure 2
	run tb seal --escrow-out e -o b s
	assert_failure 2
	assert_output --partial "--escrow-out needs --escrow"
	run tb seal --recovery-code -o b s < /dev/null
	assert_failure 2
	assert_output --partial "--recovery-code needs a terminal"
	[ ! -e b ]
	[ ! -e e.cms ]
	# existing outputs are kept without -f, replaced with it
	tb seal --escrow "$K/rsa.crt" --escrow-out e -o b s
	run tb seal --escrow "$K/rsa.crt" --escrow-out e -o b2 s
	assert_failure 3
	[ ! -e b2 ]
	run tb seal --escrow "$K/rsa.crt" --escrow-out e -f -o b s
	assert_success
}

@test "recover: refusals (options, key files, blobs)" {
	echo "secret" > s
	seal_all b s
	run no_tpm tb recover b
	assert_failure 2
	assert_output --partial "give -k KEYFILE or --recovery-code"
	run no_tpm tb recover -k "$K/rsa.key" --recovery-code file:b.code b
	assert_failure 2
	run no_tpm tb recover -k "$K/rsa-enc.key" -o out b
	assert_failure 2
	assert_output --partial "the private key is encrypted"
	assert_output --partial "openssl pkey -in KEY | tpmbox recover -k -"
	[ ! -e out ]
	openssl pkey -in "$K/rsa-enc.key" -passin pass:pw |
		no_tpm tb recover -k - b | cmp - s
	run no_tpm tb recover -k "$K/rsa.crt" b
	assert_failure 2
	run no_tpm tb recover -k s b
	assert_failure 2
	assert_output --partial "neither a PEM private key nor age identities"
	run no_tpm tb recover -k "$W/missing" b
	assert_failure 6
	run no_tpm tb recover -k "$K/rsa.key" "$W/missing"
	assert_failure 6
	run no_tpm tb recover -k - - < /dev/null
	assert_failure 2
	run no_tpm tb recover --recovery-code b < /dev/null
	assert_failure 2
	assert_output --partial "no terminal to ask on"
	tb recover -k "$K/rsa.key" -o out b
	run no_tpm tb recover -k "$K/rsa.key" -o out b
	assert_failure 3
	run no_tpm tb recover -k "$K/rsa.key" -f -o out b
	assert_success
}

@test "seal --recovery-code shows the code once on the terminal; recover asks for it without echo" {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	echo "secret" > s
	run script -qec "'$TPMBOX' seal --recovery-code -o b s" /dev/null
	assert_success
	local code
	code=$(echo "$output" | grep -Eo '([0-9]{6}-){7}[0-9]{6}')
	[ -n "$code" ]
	assert_output --partial "Recovery code for b (shown once: write it down):"
	! grep -q "$code" b || false
	echo "$code" > code
	no_tpm tb recover --recovery-code file:code b | cmp - s
	# asked on the terminal: the answer is not echoed
	run script -qec "'$TPMBOX' recover --recovery-code -o out b" /dev/null \
		< <(sleep 1; echo "$code")
	assert_success
	assert_output --partial "Recovery code:"
	refute_output --partial "$code"
	cmp out s
}
