#!/usr/bin/env bats
# takeown --ek-ca: first contact you can trust (issue 14).  The session
# is salted to the EK whose certificate in NV verifies to the CA given,
# so the new auth values reach this TPM and the SRK name printed is its
# own even with an active interposer on the bus.  The TPM: a swtpm
# manufactured with EK certificates by a swtpm-localca of the suite's own
# (helpers/common.bash).  Oracles: tpm2-tools read the TPM's state
# straight from swtpm (the owner value set or not, the SRK's name);
# tests/helpers/interposer.c is the attacker.

load helpers/common

setup_file() {
	swtpm_ekcert_start
	CA=$SWTPM_DIR/ca
	export CA REAL=$TPMBOX_TCTI
	cat "$CA/swtpm-localca-rootca-cert.pem" "$CA/issuercert.pem" \
		>"$BATS_FILE_TMPDIR/chain.pem"
	mkdir -p "$BATS_FILE_TMPDIR/cadir"
	cp "$CA/swtpm-localca-rootca-cert.pem" "$BATS_FILE_TMPDIR/cadir/root.pem"
	openssl x509 -in "$CA/issuercert.pem" -outform der \
		-out "$BATS_FILE_TMPDIR/cadir/intermediate.der"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$BATS_FILE_TMPDIR/other.key" -subj /CN=other-ca \
		-days 2 -out "$BATS_FILE_TMPDIR/other.pem" 2>/dev/null
	export IP="$BATS_FILE_TMPDIR/interposer"
	interposer_build "$IP"
	# the well-known state every test starts from (tpm2_clear between)
	printf 'ownerpw\nhunter2\n' > "$BATS_FILE_TMPDIR/words"
}
teardown_file() { swtpm_stop; }
setup() {
	D=$BATS_TEST_TMPDIR; F=$BATS_FILE_TMPDIR
	export TPMBOX_TCTI=$REAL TPM2TOOLS_TCTI=$REAL
	t2_flush
}
teardown() {
	[ ! -f "$D/ipid" ] || kill "$(cat "$D/ipid")" 2>/dev/null || true
	export TPMBOX_TCTI=$REAL
	# back to no owner value and no SRK for the next test
	tpm2_clear -c l >/dev/null 2>&1 || tpm2_clear -c p >/dev/null 2>&1 || true
}

# nv_pp INDEX FILE: an EK certificate index holding FILE, defined by the
# platform as the manufacturer's are (tpm2_clear leaves it).
nv_pp() {
	tpm2_nvundefine -C p "$1" >/dev/null 2>&1 || true
	tpm2_nvdefine -C p -s "$(stat -c %s "$2")" \
		-a "ppwrite|ppread|ownerread|authread|no_da|platformcreate" "$1" >/dev/null
	tpm2_nvwrite -C p -i "$2" "$1" >/dev/null
}

# owner_set: whether swtpm's owner auth value is set (tpm2-tools, direct)
owner_set() {
	tpm2_getcap properties-variable | grep -q 'ownerAuthSet: *1'
}

@test "takeown --ek-ca: salted to the certified EK; the SRK name printed is the one tpm2-tools reads; --json says what it was salted to" {
	"$TPMBOX" --list | grep -q '^ekcert ' ||
		skip "the small build reads no certificates (tested below)"
	run tb takeown --ek-ca "$F/chain.pem" --owner-auth str:NewOwner1 \
		--srk-pub "$D/srk.pem" -v
	assert_success
	name=${lines[-1]}
	assert_output --partial "takeown: the session is salted to the EK of the L-1 certificate"
	assert_output --partial "which verifies to CN=swtpm-localca-rootca"
	[ "$(tpm2_readpublic -c 0x81000001 | sed -n 's/^name: //p')" = "$name" ]
	owner_set
	# a CA directory (a PEM root, a DER intermediate) and the JSON
	# report; a re-run changes nothing
	run tb takeown --ek-ca "$F/cadir" --old-owner-auth str:NewOwner1 \
		--owner-auth str:NewOwner1 --json
	assert_success
	[ "$(jq -r .salted_to.ek <<< "$output")" = L-1 ]
	[ "$(jq -r .salted_to.ca <<< "$output")" = CN=swtpm-localca-rootca ]
	[ "$(jq -r .srk_name <<< "$output")" = "$name" ]
}

@test "takeown --ek-ca: a CA that did not issue the certificate is refused (exit 1) and nothing changes" {
	"$TPMBOX" --list | grep -q '^ekcert ' || skip "no certificates in the small build"
	run tb takeown --ek-ca "$F/other.pem" --owner-auth str:NewOwner1
	assert_failure 1
	assert_output --partial "does not verify to a CA in $F/other.pem"
	! owner_set || false
	run tpm2_readpublic -c 0x81000001
	assert_failure
}

@test "takeown --ek-ca: a certificate that verifies but is not this EK's is refused (exit 1) and nothing changes" {
	"$TPMBOX" --list | grep -q '^ekcert ' || skip "no certificates in the small build"
	# the H-3 (P-384) certificate, issued by the same CA, where L-1's is
	tpm2_nvread 0x01c00016 -o "$D/ecc.bin" 2>/dev/null
	tpm2_nvread 0x01c00002 -o "$D/rsa.bin" 2>/dev/null
	nv_pp 0x01c00002 "$D/ecc.bin"
	run tb takeown --ek-ca "$F/chain.pem" --owner-auth str:NewOwner1
	nv_pp 0x01c00002 "$D/rsa.bin"
	assert_failure 1
	assert_output --partial "is not the key its certificate at 0x01c00002 (L-1) certifies"
	! owner_set || false
}

@test "takeown --ek-ca with an interposer that substitutes the SRK and drops the change: it learns no value, forges nothing (exit 1); without --ek-ca it does" {
	"$TPMBOX" --list | grep -q '^ekcert ' || skip "no certificates in the small build"
	ipstart() {
		: > "$D/ilog"
		"$IP" -l "$D/isock" -t "$SWTPM_DIR/sock" -m "$1" -o "$D/ilog" \
			-w "$F/words" -F &
		echo $! > "$D/ipid"
		for _ in $(seq 1 100); do [ -S "$D/isock" ] && break; sleep 0.02; done
		export TPMBOX_TCTI="swtpm:path=$D/isock"
	}
	ipstop() { kill "$(cat "$D/ipid")"; rm -f "$D/ipid" "$D/isock"; export TPMBOX_TCTI=$REAL; }
	hexof() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
	# the control: no --ek-ca, the interposer reads the value and fakes
	# the change
	ipstart srk,dropchange
	run tb takeown --owner-auth str:NewOwner1
	ipstop
	assert_success
	grep -q "param HierarchyChangeAuth $(hexof NewOwner1)" "$D/ilog"
	! owner_set || false
	tpm2_clear -c l >/dev/null 2>&1 || true
	# --ek-ca: the session key is the TPM's and ours alone
	ipstart srk,dropchange
	run tb takeown --ek-ca "$F/chain.pem" --owner-auth str:NewOwner1
	ipstop
	assert_failure 1
	assert_output --partial "response HMAC does not verify"
	! grep -q "session key derived" "$D/ilog" || false
	! grep -q "param HierarchyChangeAuth" "$D/ilog" || false
	! grep -qi "$(hexof NewOwner1)" "$D/ilog" || false
	! owner_set || false
	# a passive interposer: the same run goes through, every answer it
	# acts on HMACed
	ipstart pass
	run tb takeown --ek-ca "$F/chain.pem" --owner-auth str:NewOwner1
	ipstop
	assert_success
	owner_set
	grep -q "hmac HierarchyChangeAuth" "$D/ilog"
	grep -q "hmac EvictControl" "$D/ilog"
}

@test "takeown --ek-ca: no certificate in NV is exit 6; the small build says it reads none (exit 2)" {
	if ! "$TPMBOX" --list | grep -q '^ekcert '; then
		run tb takeown --ek-ca "$F/chain.pem"
		assert_failure 2
		assert_output --partial "this build reads no X.509 certificates"
		return
	fi
	tpm2_nvread 0x01c00002 -o "$D/rsa.bin" 2>/dev/null
	tpm2_nvread 0x01c0000a -o "$D/l2.bin" 2>/dev/null || true
	tpm2_nvundefine -C p 0x01c00002 >/dev/null
	tpm2_nvundefine -C p 0x01c0000a >/dev/null 2>&1 || true
	run tb takeown --ek-ca "$F/chain.pem"
	nv_pp 0x01c00002 "$D/rsa.bin"
	[ ! -s "$D/l2.bin" ] || nv_pp 0x01c0000a "$D/l2.bin"
	assert_failure 6
	assert_output --partial "no EK certificate in NV"
	run tpm2_readpublic -c 0x81000001
	assert_failure
}
