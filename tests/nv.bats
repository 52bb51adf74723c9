#!/usr/bin/env bats
# NV storage: nvdefine, nvwrite, nvread, nvincrement, nvextend, nvsetbits,
# nvrelease, nvlist.  tpm2-tools (tpm2_nvread, tpm2_nvwrite,
# tpm2_nvreadpublic, tpm2_getcap) read back what tpmbox did on the same
# swtpm, and openssl computes extend values independently.

load helpers/common

# swtpm logs every command and response in hex: the wire, as a bus
# sniffer would see it.
setup_file() { swtpm_start unix --log "file=$BATS_FILE_TMPDIR/swtpm.log,level=20"; }
teardown_file() { swtpm_stop; }
# A test that failed half-way must not leave the owner password set.
# The lying proxy goes with its test.
teardown() {
	tpm2_changeauth -c o -p ownerpw >/dev/null 2>&1 || true
	[ -z "${LIE_PID:-}" ] || kill "$LIE_PID" 2>/dev/null || true
}

# t2_attrs INDEX: the attribute value per tpm2_nvreadpublic (0x... lower)
t2_attrs() {
	tpm2_nvreadpublic "$1" | awk '/attributes:/ { a = 1 }
		a && /value:/ { print tolower($2); exit }'
}
# t2_size INDEX: the data size per tpm2_nvreadpublic
t2_size() { tpm2_nvreadpublic "$1" | awk '/^  size:/ { print $2; exit }'; }
# t2_hex INDEX [tpm2_nvread options]: the index's bytes per tpm2_nvread
t2_hex() {
	local i=$1; shift
	tpm2_nvread "$i" "$@" 2>/dev/null | xxd -p | tr -d '\n'
}
hexof() { xxd -p | tr -d '\n'; }
# on_wire TEXT: how many times TEXT's bytes crossed the bus so far
on_wire() {
	grep -E '^( [0-9A-F]{2})+ *$' "$BATS_FILE_TMPDIR/swtpm.log" |
		tr -d ' \n' | tr A-F a-f | grep -o "$(printf %s "$1" | hexof)" | wc -l
}

@test "nvdefine: default attributes are owner and auth read/write" {
	run tb nvdefine 0x01000001 -s 64
	assert_success
	assert_output ""
	# ownerwrite 0x2 | authwrite 0x4 | ownerread 0x20000 | authread 0x40000
	[ "$(t2_attrs 0x1000001)" = 0x60006 ]
	[ "$(t2_size 0x1000001)" = 64 ]
}

@test "nvdefine -a: attributes in tpm2-tools' syntax reach the TPM" {
	run tb nvdefine 0x01000002 -s 16 -a "ownerread|ownerwrite|no_da|orderly"
	assert_success
	# 0x2 | 0x20000 | no_da 0x2000000 | orderly 0x4000000
	[ "$(t2_attrs 0x1000002)" = 0x6020002 ]
	# the same value as a number is accepted too
	run tb nvdefine 0x01000003 -s 16 -a 0x6020002
	assert_success
	[ "$(t2_attrs 0x1000003)" = 0x6020002 ]
}

@test "nvdefine: INDEX in decimal is the same index" {
	run tb nvdefine 16777220 -s 8
	assert_success
	[ "$(t2_size 0x1000004)" = 8 ]
	run tb nvlist
	assert_line --partial "0x01000004 type=ordinary size=8 written=no"
}

@test "nvwrite/nvread: 2000 bytes round trip, chunked by TPM_PT_NV_BUFFER_MAX" {
	bufmax=$(tpm2_getcap properties-fixed | awk '/TPM2_PT_NV_BUFFER_MAX/ { getline; print $2 }')
	[ $((bufmax)) -lt 2000 ]	# so this needs more than one command
	head -c 2000 /dev/urandom > "$BATS_TEST_TMPDIR/in"
	tb nvdefine 0x01000010 -s 2000
	run tb nvwrite 0x01000010 -i "$BATS_TEST_TMPDIR/in"
	assert_success
	run tb nvread 0x01000010 -o "$BATS_TEST_TMPDIR/out"
	assert_success
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/out")" = 600 ]
	# the oracle reads the same bytes
	tpm2_nvread 0x01000010 -s 2000 -o "$BATS_TEST_TMPDIR/t2"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/t2"
	# stdin works for nvwrite, stdout for nvread
	head -c 2000 /dev/urandom > "$BATS_TEST_TMPDIR/in2"
	tb nvwrite 0x01000010 < "$BATS_TEST_TMPDIR/in2"
	tb nvread 0x01000010 > "$BATS_TEST_TMPDIR/out2"
	cmp "$BATS_TEST_TMPDIR/in2" "$BATS_TEST_TMPDIR/out2"
	# an existing -o file is kept unless -f
	run tb nvread 0x01000010 -o "$BATS_TEST_TMPDIR/out"
	assert_failure 3
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	run tb nvread 0x01000010 -o "$BATS_TEST_TMPDIR/out" -f
	assert_success
	cmp "$BATS_TEST_TMPDIR/in2" "$BATS_TEST_TMPDIR/out"
}

@test "nvread: reads what tpm2_nvwrite wrote" {
	head -c 1500 /dev/urandom > "$BATS_TEST_TMPDIR/in"
	tb nvdefine 0x01000011 -s 1500
	tpm2_nvwrite 0x01000011 -C o -i "$BATS_TEST_TMPDIR/in"
	run tb nvread 0x01000011 -o "$BATS_TEST_TMPDIR/out"
	assert_success
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	run tb nvread 0x01000011 -s 16 --hex
	assert_success
	assert_output "$(head -c 16 "$BATS_TEST_TMPDIR/in" | hexof)"
}

@test "nvwrite --offset and nvread --offset -s touch only that range" {
	tb nvdefine 0x01000012 -s 1200
	head -c 1200 /dev/zero | tb nvwrite 0x01000012
	printf 'HELLO' | tb nvwrite 0x01000012 --offset 1100
	run tb nvread 0x01000012 --offset 1100 -s 5
	assert_success
	assert_output HELLO
	[ "$(t2_hex 0x01000012 --offset 1099 -s 7)" = 0048454c4c4f00 ]
	# a range crossing a chunk boundary
	head -c 300 /dev/urandom > "$BATS_TEST_TMPDIR/mid"
	tb nvwrite 0x01000012 --offset 900 -i "$BATS_TEST_TMPDIR/mid"
	tpm2_nvread 0x01000012 --offset 900 -s 300 -o "$BATS_TEST_TMPDIR/t2"
	cmp "$BATS_TEST_TMPDIR/mid" "$BATS_TEST_TMPDIR/t2"
	[ "$(tb nvread 0x01000012 --offset 900 -s 300 | hexof)" = "$(hexof < "$BATS_TEST_TMPDIR/mid")" ]
}

@test "nvincrement: the counter tpm2_nvread sees goes up by one each time" {
	run tb nvdefine 0x01000020 -t counter
	assert_success
	[ "$(t2_size 0x1000020)" = 8 ]
	[ $(( $(t2_attrs 0x1000020) & 0xf0 )) = $((0x10)) ]	# TPM_NT_COUNTER
	run tb nvincrement 0x01000020
	assert_success
	a=$(t2_hex 0x01000020)
	[ ${#a} = 16 ]
	[ "$(tb nvread 0x01000020 --hex)" = "$a" ]
	tb nvincrement 0x01000020
	tb nvincrement 0x01000020
	b=$(t2_hex 0x01000020)
	[ $((0x$b - 0x$a)) = 2 ]
	[ "$(tb nvread 0x01000020 --hex)" = "$b" ]
	# the counter a tpm2-tools increment moves is the same one
	tpm2_nvincrement 0x01000020 -C o
	[ $((0x$(tb nvread 0x01000020 --hex) - 0x$b)) = 1 ]
}

@test "nvextend: the index becomes H(old || data), checked with openssl" {
	run tb nvdefine 0x01000030 -t extend
	assert_success
	[ "$(t2_size 0x1000030)" = 32 ]
	run tb nvextend 0x01000030 -d 616263
	assert_success
	want=$( (head -c 32 /dev/zero; printf abc) | openssl dgst -sha256 -binary | hexof)
	[ "$(t2_hex 0x01000030)" = "$want" ]
	[ "$(tb nvread 0x01000030 --hex)" = "$want" ]
	# a second extend with file data chains from the current value
	printf 'second piece\n' > "$BATS_TEST_TMPDIR/d"
	tb nvextend 0x01000030 -i "$BATS_TEST_TMPDIR/d"
	want2=$( (echo "$want" | xxd -r -p; cat "$BATS_TEST_TMPDIR/d") | sha256sum | cut -c1-64)
	[ "$(t2_hex 0x01000030)" = "$want2" ]
}

@test "nvextend: an extend index with -g sha1 holds 20 bytes and extends with SHA-1" {
	run tb nvdefine 0x01000031 -t extend -g sha1
	assert_success
	[ "$(t2_size 0x1000031)" = 20 ]
	printf 'x' | tb nvextend 0x01000031 -i -
	want=$( (head -c 20 /dev/zero; printf x) | sha1sum | cut -c1-40)
	[ "$(t2_hex 0x01000031)" = "$want" ]
}

@test "nvsetbits: bits OR into the field tpm2_nvread sees" {
	run tb nvdefine 0x01000040 -t bits
	assert_success
	[ $(( $(t2_attrs 0x1000040) & 0xf0 )) = $((0x20)) ]	# TPM_NT_BITS
	run tb nvsetbits 0x01000040 0x5
	assert_success
	[ "$(t2_hex 0x01000040)" = 0000000000000005 ]
	tb nvsetbits 0x01000040 256
	[ "$(t2_hex 0x01000040)" = 0000000000000105 ]
	[ "$(tb nvread 0x01000040 --hex)" = 0000000000000105 ]
}

@test "nvlist: the same indices as tpm2_getcap handles-nv-index, with size and attributes" {
	want=$(for h in $(tpm2_getcap handles-nv-index | awk '{ print $2 }'); do printf '0x%08x\n' "$h"; done)
	got=$(tb nvlist | awk '{ print $1 }')
	[ -n "$want" ]
	[ "$got" = "$want" ]
	for i in $want; do
		line=$(tb nvlist | grep "^$i ")
		[[ "$line" == *" size=$(t2_size "$i") "* ]] || { echo "$line"; false; }
	done
	# attributes: nvlist's text parses back (nvdefine's grammar) to the
	# value tpm2_nvreadpublic reports
	run tb nvlist --json
	assert_success
	echo "$output" | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    print(e["index"], e["attributes_value"], e["size"], e["written"], e["type"], e["attributes"])' > "$BATS_TEST_TMPDIR/j"
	while read -r idx val size written type attrs; do
		[ "$(( $(t2_attrs "$idx") ))" = "$((val))" ] || { echo "$idx $val"; false; }
		[ "$(t2_size "$idx")" = "$size" ]
		if [ $((val & 0x20000000)) != 0 ]; then [ "$written" = True ]; else [ "$written" = False ]; fi
	done < "$BATS_TEST_TMPDIR/j"
	grep -q '^0x01000020 0x.* 8 True counter ownerwrite|authwrite|nt=counter|' "$BATS_TEST_TMPDIR/j"
	grep -q '^0x01000001 0x00060006 64 False ordinary ownerwrite|authwrite|ownerread|authread$' "$BATS_TEST_TMPDIR/j"
}

@test "nvrelease: the index is gone for tpm2_getcap and nvread" {
	tb nvdefine 0x01000050 -s 4
	tpm2_getcap handles-nv-index | grep -q 0x1000050
	run tb nvrelease 0x01000050
	assert_success
	run bash -c "tpm2_getcap handles-nv-index | grep 0x1000050"
	assert_failure
	run tb nvread 0x01000050
	assert_failure 6
	assert_output --partial "NV index 0x01000050 is not defined"
}

@test "--auth: the index's auth value writes and reads; tpm2_nvread -P agrees" {
	run tb nvdefine 0x01000060 -s 32 --auth str:s3cret -a "authread|authwrite|no_da"
	assert_success
	printf 'top secret data' > "$BATS_TEST_TMPDIR/d"
	run tb nvwrite 0x01000060 --auth str:s3cret -i "$BATS_TEST_TMPDIR/d"
	assert_success
	run tb nvread 0x01000060 --auth hex:733363726574 -s 15
	assert_success
	assert_output "top secret data"
	[ "$(t2_hex 0x01000060 -P s3cret -s 15)" = "$(hexof < "$BATS_TEST_TMPDIR/d")" ]
	# env: and file: forms
	S=s3cret run tb nvread 0x01000060 --auth env:S -s 3
	assert_output top
	printf s3cret > "$BATS_TEST_TMPDIR/pw"
	run tb nvread 0x01000060 --auth "file:$BATS_TEST_TMPDIR/pw" -s 3
	assert_output top
	# a value set by tpm2-tools works with tpmbox
	tpm2_nvdefine 0x01000061 -s 8 -p other -a "authread|authwrite|no_da" >/dev/null
	printf '12345678' | tb nvwrite 0x01000061 --auth other
	[ "$(tb nvread 0x01000061 --auth str:other)" = 12345678 ]
}

@test "--auth: the auth value and the data never cross the bus in clear" {
	tb nvdefine 0x01000062 -s 64 --auth str:Wire-Pass-0x62 -a "authread|authwrite|no_da"
	printf 'Wire-Data-0x62-written' | tb nvwrite 0x01000062 --auth str:Wire-Pass-0x62
	run tb nvread 0x01000062 --auth str:Wire-Pass-0x62 -s 22
	assert_success
	assert_output Wire-Data-0x62-written
	[ "$(on_wire Wire-Pass-0x62)" = 0 ]
	[ "$(on_wire Wire-Data-0x62-written)" = 0 ]
	# the oracle reads the same data with the same value
	[ "$(t2_hex 0x01000062 -P Wire-Pass-0x62 -s 22)" = "$(printf Wire-Data-0x62-written | hexof)" ]
	# control: without an auth value the data is on the wire, so the
	# check above can fail
	tb nvdefine 0x01000063 -s 32
	printf 'Wire-Plain-0x63' | tb nvwrite 0x01000063
	[ "$(on_wire Wire-Plain-0x63)" -ge 1 ]
	# an extend with --auth: its data is encrypted too
	tb nvdefine 0x01000064 -t extend --auth str:Wire-Pass-0x64 -a "authread|authwrite|no_da"
	printf 'Wire-Ext-0x64' | tb nvextend 0x01000064 -i - --auth str:Wire-Pass-0x64
	[ "$(on_wire Wire-Ext-0x64)" = 0 ]
	[ "$(on_wire Wire-Pass-0x64)" = 0 ]
	want=$( (head -c 32 /dev/zero; printf Wire-Ext-0x64) | sha256sum | cut -c1-64)
	[ "$(t2_hex 0x01000064 -P Wire-Pass-0x64)" = "$want" ]
	# no session or SRK is left loaded
	[ -z "$(tpm2_getcap handles-transient)" ]
	[ -z "$(tpm2_getcap handles-loaded-session)" ]
}

@test "--auth: a standard SRK persisted at 0x81000001 salts the session" {
	tb nvdefine 0x01000065 -s 8 --auth str:pw65 -a "authread|authwrite|no_da"
	printf 12345678 | tb nvwrite 0x01000065 --auth str:pw65
	tpm2_createprimary -Q -C o -g sha256 -G ecc256:null:aes128cfb \
		-a "fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda|restricted|decrypt" \
		-c "$BATS_TEST_TMPDIR/srk.ctx"
	tpm2_evictcontrol -Q -C o -c "$BATS_TEST_TMPDIR/srk.ctx" 0x81000001
	t2_flush
	run bash -c "'$TPMBOX' --trace nvread 0x01000065 --auth str:pw65 2>&1 >/dev/null | grep '^>'"
	tpm2_evictcontrol -Q -C o -c 0x81000001
	assert_success
	assert_line --partial "> TPM2_StartAuthSession"
	refute_line --partial "TPM2_CreatePrimary"
	# without it, a key from the template is made and flushed
	run bash -c "'$TPMBOX' --trace nvread 0x01000065 --auth str:pw65 2>&1 >/dev/null | grep '^>'"
	assert_line --partial "> TPM2_CreatePrimary"
	[ -z "$(tpm2_getcap handles-transient)" ]
}

@test "--owner-auth: the owner's auth value authorizes define, access and release" {
	tpm2_changeauth -c o ownerpw
	before=$(on_wire ownerpw)
	run tb nvdefine 0x01000070 -s 8
	assert_failure 4
	assert_output --partial "TPM2_NV_DefineSpace: TPM_RC_"
	run tb nvdefine 0x01000070 -s 8 --owner-auth str:ownerpw -a "ownerread|ownerwrite"
	assert_success
	printf 'ownerdat' | tb nvwrite 0x01000070 --owner-auth str:ownerpw
	run tb nvread 0x01000070 --owner-auth str:ownerpw
	assert_output ownerdat
	[ "$(t2_hex 0x01000070 -C o -P ownerpw)" = "$(printf ownerdat | hexof)" ]
	run tb nvread 0x01000070 --owner-auth str:wrong
	assert_failure 4
	run tb nvrelease 0x01000070
	assert_failure 4
	run tb nvrelease 0x01000070 --owner-auth str:ownerpw
	assert_success
	# tpmbox never sent the owner's value itself
	[ "$(on_wire ownerpw)" = "$before" ]
	tpm2_changeauth -c o -p ownerpw
}

@test "--allow-irreversible: needed for each attribute that cannot be undone" {
	for a in writedefine policydelete policy_delete write_stclear read_stclear globallock platformcreate; do
		run tb nvdefine 0x01000080 -s 8 -a "ownerread|ownerwrite|$a"
		assert_failure 2
		assert_output --partial "add --allow-irreversible"
	done
	run bash -c "tpm2_getcap handles-nv-index | grep 0x1000080"
	assert_failure
	run tb nvdefine 0x01000080 -s 8 -a "ownerread|ownerwrite|writedefine" --allow-irreversible
	assert_success
	[ $(( $(t2_attrs 0x1000080) & 0x2000 )) = $((0x2000)) ]
	run tb nvdefine 0x01000081 -s 8 -a "ownerread|ownerwrite|write_stclear|read_stclear" --allow-irreversible
	assert_success
	[ $(( $(t2_attrs 0x1000081) & 0x80004000 )) = $((0x80004000)) ]
}

@test "platformcreate: defined and released through the platform hierarchy" {
	run tb nvdefine 0x01400000 -s 8 -a "ppread|ppwrite|ownerread|authread|authwrite|platformcreate" --allow-irreversible
	assert_success
	[ "$(t2_attrs 0x1400000)" = 0x40070005 ]
	printf 12345678 | tb nvwrite 0x01400000
	[ "$(t2_hex 0x01400000)" = "$(printf 12345678 | hexof)" ]
	run tb nvrelease 0x01400000 --owner-auth str:x
	assert_failure 2
	assert_output --partial "use --platform-auth"
	run tb nvrelease 0x01400000
	assert_success
	run bash -c "tpm2_getcap handles-nv-index | grep 0x1400000"
	assert_failure
	run tb nvdefine 0x01400001 -s 8 -a "ownerread|ownerwrite|policydelete" --allow-irreversible
	assert_failure 2
	assert_output --partial "policydelete needs platformcreate"
	run tb nvdefine 0x01400001 -s 8 -a "ownerread|ownerwrite" --platform-auth str:x
	assert_failure 2
	assert_output --partial "for platformcreate indices"
	# nvrelease says the same of an owner's index (lib/job/nv.c)
	tb nvdefine 0x01400002 -s 8
	run tb nvrelease 0x01400002 --platform-auth str:x
	assert_failure 2
	assert_output --partial "NV index 0x01400002 is the owner's: --platform-auth is for platformcreate indices (use --owner-auth)"
	tb nvrelease 0x01400002
}

# lying_tpm MODE: a proxy between tpmbox and swtpm that alters one kind of
# response; sets $LIE to a TCTI for it.
lying_tpm() {
	cat > "$BATS_TEST_TMPDIR/lie.py" <<'PY'
import os, socket, struct, sys
up, path, mode = sys.argv[1], sys.argv[2], sys.argv[3]
def rd(c):
    b = b""
    while len(b) < 6 or len(b) < struct.unpack(">I", b[2:6])[0]:
        d = c.recv(65536)
        if not d:
            return None
        b += d
    return b
s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(4)
while True:
    c, _ = s.accept()
    u = socket.socket(socket.AF_UNIX); u.connect(up)
    while True:
        cmd = rd(c)
        if cmd is None:
            break
        cc = struct.unpack(">I", cmd[6:10])[0]
        u.sendall(cmd)
        r = bytearray(rd(u))
        ok = struct.unpack(">I", r[6:10])[0] == 0
        if ok and mode == "name" and cc == 0x169:
            r[-1] ^= 1                  # last byte of the name
        if ok and mode == "index" and cc == 0x169:
            r[15] ^= 1                  # low byte of nvIndex
        if ok and mode == "short" and cc == 0x14e:
            n = struct.unpack(">H", r[14:16])[0]
            r[14:16] = struct.pack(">H", n - 1)
        c.sendall(bytes(r))
    c.close(); u.close()
PY
	rm -f "$BATS_TEST_TMPDIR/lie.sock"
	python3 "$BATS_TEST_TMPDIR/lie.py" "$SWTPM_DIR/sock" \
		"$BATS_TEST_TMPDIR/lie.sock" "$1" </dev/null >/dev/null 2>&1 3>&- &
	LIE_PID=$!
	for _ in $(seq 1 50); do [ -S "$BATS_TEST_TMPDIR/lie.sock" ] && break; sleep 0.05; done
	LIE="swtpm:path=$BATS_TEST_TMPDIR/lie.sock"
}

@test "untrusted TPM: a wrong name, a wrong index or a short read are refused" {
	tb nvdefine 0x010000b0 -s 1500
	head -c 1500 /dev/urandom | tb nvwrite 0x010000b0
	# control: through the proxy with no lie, all is well
	lying_tpm none
	run tb -T "$LIE" nvread 0x010000b0 -s 4
	assert_success
	kill $LIE_PID; wait $LIE_PID 2>/dev/null || true
	lying_tpm name
	run tb -T "$LIE" nvread 0x010000b0 -s 4
	assert_failure 3
	assert_output --partial "the name the TPM returned for 0x010000b0 does not match its public area"
	run tb -T "$LIE" nvlist
	assert_failure 3
	kill $LIE_PID; wait $LIE_PID 2>/dev/null || true
	lying_tpm index
	run tb -T "$LIE" nvread 0x010000b0 -s 4
	assert_failure 3
	assert_output --partial "asked for 0x010000b0, the TPM answered for 0x010000b1"
	kill $LIE_PID; wait $LIE_PID 2>/dev/null || true
	lying_tpm short
	run tb -T "$LIE" nvread 0x010000b0 -s 1500
	assert_failure 3
	assert_output --partial "TPM2_NV_Read: asked for"
	kill $LIE_PID; wait $LIE_PID 2>/dev/null || true
}

# ---- refusals ----

@test "refused: a missing index exits 6 for every applet" {
	for a in "nvread" "nvincrement" "nvrelease" "nvsetbits 1" "nvextend -d 00"; do
		run tb $a 0x01000fff
		[ "$a" = "nvsetbits 1" ] && run tb nvsetbits 0x01000fff 1
		[ "$a" = "nvextend -d 00" ] && run tb nvextend 0x01000fff -d 00
		assert_failure 6
		assert_output --partial "NV index 0x01000fff is not defined"
	done
	run bash -c "printf x | '$TPMBOX' nvwrite 0x01000fff"
	assert_failure 6
	assert_output --partial "NV index 0x01000fff is not defined"
}

@test "refused: a wrong auth value exits 4" {
	run tb nvread 0x01000060 --auth str:wrong
	assert_failure 4
	assert_output --partial "TPM_RC_"
	assert_output --partial "TPM2_NV_Read"
	run bash -c "printf x | '$TPMBOX' nvwrite 0x01000060 --auth str:wrong"
	assert_failure 4
	assert_output --partial "TPM2_NV_Write"
	# the data is unchanged
	[ "$(tb nvread 0x01000060 --auth str:s3cret -s 3)" = top ]
	# forgetting --auth: the empty value is refused, with a hint
	run tb nvread 0x01000060
	assert_failure 4
	assert_output --partial "pass --auth AUTH"
}

@test "refused: SIZE above TPM_PT_NV_INDEX_MAX exits 2 naming the limit" {
	max=$(( $(tpm2_getcap properties-fixed | awk '/TPM2_PT_NV_INDEX_MAX/ { getline; print $2 }') ))
	run tb nvdefine 0x01000090 -s $((max + 1))
	assert_failure 2
	assert_output --partial "above this TPM's TPM_PT_NV_INDEX_MAX ($max bytes)"
	run tb nvdefine 0x01000090 -s "$max"
	assert_success
	tb nvrelease 0x01000090
}

@test "refused: offset plus size past the end exits 2" {
	run tb nvread 0x01000010 --offset 1990 -s 20
	assert_failure 2
	assert_output --partial "go past the end of NV index 0x01000010 (2000 bytes)"
	run tb nvread 0x01000010 --offset 2000
	assert_failure 2
	assert_output --partial "past the end"
	head -c 20 /dev/zero > "$BATS_TEST_TMPDIR/z"
	run tb nvwrite 0x01000010 --offset 1990 -i "$BATS_TEST_TMPDIR/z"
	assert_failure 2
	assert_output --partial "does not fit: NV index 0x01000010 holds 2000 bytes"
	head -c 2001 /dev/zero > "$BATS_TEST_TMPDIR/z"
	run tb nvwrite 0x01000010 -i "$BATS_TEST_TMPDIR/z"
	assert_failure 2
}

@test "refused: reading an unwritten index says so" {
	run tb nvread 0x01000001
	assert_failure 1
	assert_output --partial "NV index 0x01000001 has not been written yet"
	run tb nvread 0x01000030 -s 1
	[ "$status" = 0 ]	# written by the extend test: a control
}

@test "refused: bad INDEX, attributes, types and sizes exit 2" {
	run tb nvdefine 0x81000001 -s 8
	assert_failure 2
	assert_output --partial "is not an NV index"
	run tb nvread 0x1000000000
	assert_failure 2
	run tb nvdefine zzz -s 8
	assert_failure 2
	assert_output --partial "bad NV index 'zzz'"
	run tb nvdefine 0x01000091 -s 8 -a "ownerread|ownerwrite|bogus"
	assert_failure 2
	assert_output --partial "unknown attribute 'bogus'"
	run tb nvdefine 0x01000091 -s 8 -a "ownerread||ownerwrite"
	assert_failure 2
	run tb nvdefine 0x01000091 -s 8 -a "ownerread|ownerwrite|written"
	assert_failure 2
	assert_output --partial "written: set by the TPM"
	run tb nvdefine 0x01000091 -s 8 -a "ownerread"
	assert_failure 2
	assert_output --partial "needs a read and a write authorization"
	run tb nvdefine 0x01000091 -t counter -s 4
	assert_failure 2
	assert_output --partial "holds 8 bytes"
	run tb nvdefine 0x01000091 -t extend -s 20
	assert_failure 2
	assert_output --partial "holds 32 bytes"
	run tb nvdefine 0x01000091 -t counter -a "ownerread|ownerwrite|nt=bits"
	assert_failure 2
	assert_output --partial "disagrees"
	run tb nvdefine 0x01000091 -t pizza -s 8
	assert_failure 2
	run tb nvdefine 0x01000091
	assert_failure 2
	assert_output --partial "needs -s SIZE"
	run bash -c "tpm2_getcap handles-nv-index | grep 0x1000091"
	assert_failure
}

@test "refused: the wrong applet for the index type, or an access it does not allow" {
	run bash -c "printf x | '$TPMBOX' nvwrite 0x01000020"
	assert_failure 2
	assert_output --partial "NV index 0x01000020 is a counter index, not an ordinary index: use nvincrement"
	# one message in every applet: what the index is, what the applet
	# takes, and the applet for it
	run tb nvincrement 0x01000010
	assert_failure 2
	assert_output --partial "is an ordinary index, not a counter index: use nvwrite"
	run tb nvextend 0x01000010 -d 00
	assert_failure 2
	assert_output --partial "is an ordinary index, not an extend index: use nvwrite"
	run tb nvsetbits 0x01000010 1
	assert_failure 2
	assert_output --partial "is an ordinary index, not a bit-field index: use nvwrite"
	# 0x01000002 has no authread: --auth cannot read it
	run tb nvread 0x01000002 --auth str:x
	assert_failure 2
	assert_output --partial "authread is not set"
	run tb nvread 0x01000010 --auth a --owner-auth b
	assert_failure 2
	assert_output --partial "not both"
	# extend data above one NV buffer
	head -c 4000 /dev/zero > "$BATS_TEST_TMPDIR/big"
	run tb nvextend 0x01000030 -i "$BATS_TEST_TMPDIR/big"
	assert_failure 2
	assert_output --partial "TPM_PT_NV_BUFFER_MAX"
	run tb nvdefine 0x01000010 -s 8
	assert_failure 1
	assert_output --partial "TPM_RC_NV_DEFINED"
}

@test "refused: writeall needs the whole index in one write" {
	tb nvdefine 0x010000a0 -s 16 -a "ownerread|ownerwrite|writeall"
	run bash -c "printf abc | '$TPMBOX' nvwrite 0x010000a0"
	assert_failure 2
	assert_output --partial "writeall"
	run bash -c "printf 0123456789abcdef | '$TPMBOX' nvwrite 0x010000a0"
	assert_success
	[ "$(t2_hex 0x010000a0 -C o)" = "$(printf 0123456789abcdef | hexof)" ]
}

@test "refused: nvwrite --lock and nvread --lock are a TPM 1.2's (no bytes), usage errors on a 2.0" {
	tb nvdefine 0x010000a1 -s 8 -a "ownerread|ownerwrite"
	run tb nvwrite 0x010000a1 --lock
	assert_failure 2
	assert_output --partial "--lock is for a TPM 1.2"
	run tb nvwrite 0x010000a1 --lock -i /dev/null
	assert_failure 2
	assert_output --partial "--lock writes no data"
	run tb nvread 0x010000a1 --lock
	assert_failure 2
	assert_output --partial "--lock is for a TPM 1.2"
	tb nvrelease 0x010000a1
}
