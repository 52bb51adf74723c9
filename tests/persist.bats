#!/usr/bin/env bats
# persist and evict (TPM2_EvictControl).  Oracles: tpm2_createek,
# tpm2_getcap handles-persistent, tpm2_readpublic.

load helpers/common

setup_file() { swtpm_start; }
teardown_file() { swtpm_stop; }
setup() {
	D=$BATS_TEST_TMPDIR
	tpm2_clear -c p >/dev/null 2>&1 || true
	t2_flush
}

persistent() { tpm2_getcap handles-persistent | grep -c "$1" || true; }

@test "persist --ek --ecc: tpm2_createek's key at 0x81010002; again: already persisted, no EvictControl sent" {
	run tb persist --ek --ecc
	assert_success
	assert_output --partial "0x81010002: the ECC EK persisted"
	[ "$(persistent 0x81010002)" = 1 ]
	tpm2_readpublic -c 0x81010002 -o "$D/p.pub" >/dev/null
	tpm2_createek -c "$D/ek.ctx" -G ecc -u "$D/t.pub" >/dev/null
	cmp "$D/p.pub" "$D/t.pub"
	run tb --trace persist --ek --ecc
	assert_success
	assert_output --partial "already persisted"
	refute_output --partial "TPM2_EvictControl"
	# ekpub now reports the persisted one
	run tb ekpub --ecc --name -o /dev/null
	assert_output --partial "(persisted at 0x81010002)"
}

@test "persist --srk (RSA by --rsa, ECC by default) is takeown's SRK" {
	run tb persist --srk
	assert_success
	assert_output --partial "0x81000001: the standard ECC SRK persisted"
	name=$(tb takeown)
	assert_output --partial "$name"
	run tb persist --srk --rsa
	assert_failure 1
	assert_output --partial "0x81000001 holds another object (the standard ECC SRK"
	run tb persist --srk --rsa --force
	assert_success
	assert_output --partial "the standard RSA SRK persisted"
}

@test "persist HANDLE -k AKBLOB: the AK at 0x81000010, then evict --yes removes it" {
	tb takeown >/dev/null
	tb akcreate -o "$D/ak.blob" --name "$D/ak.name" >/dev/null
	run tb persist 0x81000010 -k "$D/ak.blob"
	assert_success
	assert_output --partial "an attestation key persisted"
	tpm2_readpublic -c 0x81000010 -n "$D/n" >/dev/null
	cmp "$D/n" "$D/ak.name"
	run tb evict 0x81000010 --yes
	assert_success
	assert_line --partial "0x81000010: an attestation key (name"
	assert_line "0x81000010: evicted"
	[ "$(persistent 0x81000010)" = 0 ]
}

@test "evict asks: no terminal and no --yes is exit 2 and the object stays; a missing handle is exit 6" {
	tb persist --ek --ecc >/dev/null
	run tb evict 0x81010002 < /dev/null
	assert_failure 2
	assert_output --partial "give --yes"
	[ "$(persistent 0x81010002)" = 1 ]
	run tb evict 0x81000020 --yes
	assert_failure 6
}

@test "persist and evict with an owner value: needed (exit 4), never on the bus" {
	tb takeown --owner-auth str:OwnerSecretValue1 >/dev/null
	run tb persist --ek --ecc
	assert_failure 4
	assert_output --partial "give --owner-auth"
	tb --trace persist --ek --ecc --owner-auth str:OwnerSecretValue1 \
		> /dev/null 2> "$D/trace"
	grep -q "TPM2_EvictControl" "$D/trace"
	local hex
	hex=$(printf OwnerSecretValue1 | od -An -tx1 | tr -d ' \n')
	! tr -d ' \n' < "$D/trace" | grep -q "$hex" || false
	run tb evict 0x81010002 --yes --owner-auth str:wrong
	assert_failure 4
	[ "$(persistent 0x81010002)" = 1 ]
	tb evict 0x81010002 --yes --owner-auth str:OwnerSecretValue1
	[ "$(persistent 0x81010002)" = 0 ]
}

@test "persist --ek with an endorsement value: needed (exit 4), then --endorsement-auth works, never on the bus" {
	tb evict 0x81010002 --yes >/dev/null 2>&1 || true
	tpm2_changeauth -c e str:EndorsementValue2 >/dev/null
	run tb persist --ek --ecc
	assert_failure 4
	assert_output --partial "give it with --endorsement-auth"
	run tb persist --ek --ecc --endorsement-auth str:wrong
	assert_failure 4
	tb --trace persist --ek --ecc --endorsement-auth str:EndorsementValue2 \
		> "$D/out" 2> "$D/trace"
	grep -q "0x81010002: the ECC EK persisted" "$D/out"
	local hex
	hex=$(printf EndorsementValue2 | od -An -tx1 | tr -d ' \n')
	! tr -d ' \n' < "$D/trace" | grep -q "$hex" || false
	# positive control: the trace holds the commands' bytes
	grep -q "TPM2_CreatePrimary" "$D/trace"
	run tb persist --srk --endorsement-auth str:x
	assert_failure 2
	tpm2_changeauth -c e -p str:EndorsementValue2 >/dev/null
	tb evict 0x81010002 --yes >/dev/null
}

@test "persist and evict refusals: a platform handle, two objects, no object (exit 2)" {
	run tb persist 0x81800000 -k "$D/x"
	assert_failure 2
	run tb persist --srk --ek
	assert_failure 2
	run tb persist
	assert_failure 2
	run tb evict 0x81800001 --yes
	assert_failure 2
	run tb evict --yes
	assert_failure 2
}
