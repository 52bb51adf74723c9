#!/usr/bin/env bats
# pcrpredict (issue 11 part 3): the Authenticode digest of real PE files
# and the PCR values of the next boot.  Oracles: pesign -h (sha1, sha256),
# osslsigncode (signs, and computes the digest it signs), the spec's steps
# in Python's hashlib (tests/helpers/pe.py digest: sha384, sha512), and
# for predictions a real event log rewritten by tests/helpers/evlog.py
# (its own reader and writer) replayed by tpm2_eventlog and tpmbox
# eventlog; seal -P with the prediction, unsealed on swtpm once its PCRs
# hold the predicted values (extended with tpm2_pcrextend).

load helpers/common

FIX="$BATS_TEST_DIRNAME/../../shared/fixtures/eventlog"
PE="$BATS_TEST_DIRNAME/helpers/pe.py"
EVL="$BATS_TEST_DIRNAME/helpers/evlog.py"
SDB=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
SHIM=/usr/lib/shim/shimx64.efi.signed
GRUB=/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed
GCE=event-gce-ubuntu-2104-log.bin	# sha1, sha256, sha384; event 23 an app
ARCH=event-arch-linux.bin		# sha1, sha256; 9 a driver, 22 an app
SHA1LOG=event-uefi-sha1-log.bin		# legacy SHA-1; event 15 an app

setup_file() { swtpm_start; }
teardown_file() {
	local p
	swtpm_stop
	# and the one a test started for itself
	for p in "$BATS_FILE_TMPDIR"/swtpm.*/pid; do
		[ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	true
}

# The small build leaves pcrpredict out (Makefile TINY_OMIT, docs/tiny.md).
setup() {
	T=$BATS_TEST_TMPDIR
	"$TPMBOX" --list | grep -q '^pcrpredict ' ||
		skip "pcrpredict is not in this build (make tiny leaves it out)"
}

pe() { python3 "$PE" "$@"; }
evl() { python3 "$EVL" "$@"; }
need_fix() { [ -d "$FIX" ] || skip "no ../shared/fixtures/eventlog here"; }

# tpmbox's digest of FILE in BANK (hex).
ac() { tb pcrpredict --authenticode "$2" --bank "$1" | cut -d' ' -f2; }
# pesign's (sha1 or sha256).
ps() { pesign -h -d "$1" -i "$2" | sed -n 's/^hash: //p'; }

# "BANK=HEX" words of FILE's digests in BANKS (for evlog.py set-digest).
digs() { tb pcrpredict --authenticode "$2" --bank "$1" | tr ' ' '='; }

# tpm2_eventlog's "pcrs:" section as "bank:index hex" lines.
t2_pcrs() {
	tpm2_eventlog "$1" | awk '
		/^pcrs:/ { on = 1; next }
		on && /^  [a-z0-9_]+:$/ { bank = $1; sub(":", "", bank); next }
		on && /^ +[0-9]+ *: *0x/ { l = $0; gsub(/[ \t]/, "", l); split(l, a, ":")
			sub("0x", "", a[2]); print bank ":" a[1] " " tolower(a[2]) }'
}

# --- the Authenticode digest ------------------------------------------

@test "authenticode: Debian's EFI binaries, sha1 and sha256, equal pesign -h" {
	n=0
	for f in "$SDB" "$STUB" "$SHIM" "$GRUB" /usr/lib/shim/mmx64.efi.signed \
		 /usr/lib/shim/fbx64.efi.signed; do
		[ -f "$f" ] || { echo "missing $f (tests/helpers/install-deps.sh)"; return 1; }
		for a in sha1 sha256; do
			want=$(ps "$a" "$f"); got=$(ac "$a" "$f")
			[ ${#want} -ge 40 ]
			[ "$got" = "$want" ] || { echo "$f $a: $got, pesign $want"; return 1; }
			n=$((n + 1))
		done
	done
	[ "$n" -eq 12 ]
}

@test "authenticode: sha384 and sha512 equal the spec's steps in hashlib" {
	pe pe32 "$T/pe32.efi"
	for f in "$SDB" "$SHIM" "$GRUB" "$T/pe32.efi"; do
		for a in sha384 sha512; do
			[ "$(ac "$a" "$f")" = "$(pe digest "$a" "$f")" ]
		done
		# and the hashlib steps agree with pesign, so they are the oracle
		[ "$(pe digest sha256 "$f")" = "$(ps sha256 "$f")" ]
	done
	run tb pcrpredict --authenticode "$SDB"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "$(echo "$output" | cut -d' ' -f1 | tr '\n' ' ')" = "sha1 sha256 sha384 sha512 " ]
}

@test "authenticode: PE32 (i386) and PE32+ images made here equal pesign's" {
	pe pe32 "$T/pe32.efi"
	file "$T/pe32.efi" | grep -q 'PE32 executable'
	pe pe32plus "$T/pe32plus.efi"
	file "$T/pe32plus.efi" | grep -q 'PE32+ executable'
	for f in "$T/pe32.efi" "$T/pe32plus.efi"; do
		for a in sha1 sha256; do
			[ "$(ac "$a" "$f")" = "$(ps "$a" "$f")" ]
		done
	done
}

@test "authenticode: sections are hashed in file order, not table order" {
	# The spec (and EDK2) sort by PointerToRawData; pesign 116 hashes in
	# table order, so it is not the oracle here: hashlib is.
	pe pe32 "$T/a.efi"
	pe damage swap-sections "$T/a.efi" "$T/b.efi"
	! cmp -s "$T/a.efi" "$T/b.efi" || false
	[ "$(ac sha256 "$T/b.efi")" = "$(pe digest sha256 "$T/b.efi")" ]
	[ "$(ac sha1 "$T/b.efi")" = "$(pe digest sha1 "$T/b.efi")" ]
	# the order matters: table order (pesign's) gives another digest
	[ "$(ac sha256 "$T/b.efi")" != "$(ps sha256 "$T/b.efi")" ]
	[ "$(ac sha256 "$T/a.efi")" = "$(ps sha256 "$T/a.efi")" ]
}

@test "authenticode: an image with no Certificate Table entry (4 data directories)" {
	pe pe32 "$T/a.efi"
	pe damage four-dirs "$T/a.efi" "$T/b.efi"
	for a in sha1 sha256 sha512; do
		[ "$(ac "$a" "$T/b.efi")" = "$(pe digest "$a" "$T/b.efi")" ]
	done
	[ "$(ac sha256 "$T/b.efi")" != "$(ac sha256 "$T/a.efi")" ]
}

@test "authenticode: signing with osslsigncode leaves the digest unchanged" {
	cd "$T"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem \
		-subj /CN=pcrpredict-test -days 1 2>/dev/null
	# osslsigncode pads the image to 8 bytes before the certificate
	# table: the padding is hashed (it is before the table), so the
	# unsigned image to compare with is the padded one.
	for f in "$SDB" "$STUB"; do
		cp "$f" p.efi
		s=$(stat -c %s p.efi)
		head -c $(((8 - s % 8) % 8)) /dev/zero >>p.efi
		for h in sha256 sha1; do
			rm -f s.efi
			osslsigncode sign -h "$h" -certs c.pem -key k.pem \
				-in p.efi -out s.efi >/dev/null
			[ "$(stat -c %s s.efi)" -gt "$(stat -c %s p.efi)" ]
			[ "$(ac "$h" s.efi)" = "$(ac "$h" p.efi)" ]
			# the digest osslsigncode signed is the one tpmbox gives
			calc=$(osslsigncode verify s.efi 2>/dev/null |
			       sed -n 's/^Calculated message digest *: *\([0-9A-F]*\).*/\1/p')
			[ "$(ac "$h" s.efi)" = "$(echo "$calc" | tr A-F a-f)" ]
		done
	done
	# A signed Debian file: the same digest with its table cut off.
	[ "$(ac sha256 "$SHIM")" = "$(ps sha256 "$SHIM")" ]
}

@test "authenticode: damaged PE files are refused (exit 1, the file named)" {
	pe pe32plus "$T/ok.efi"
	pe pe32 "$T/ok32.efi"
	for k in truncated-header no-mz no-pe bad-magic lfanew-beyond \
		 section-beyond section-overflow headers-beyond too-many-rva \
		 too-many-sections cert-not-at-end cert-beyond; do
		for o in ok ok32; do
			pe damage "$k" "$T/$o.efi" "$T/$k.efi"
			run tb pcrpredict --authenticode "$T/$k.efi"
			[ "$status" -eq 1 ] || { echo "$o $k: $status $output"; return 1; }
			[[ $output == "tpmbox pcrpredict: $T/$k.efi: "* ]]
		done
	done
	pe damage section-beyond "$T/ok.efi" "$T/section-beyond.efi"
	pe damage cert-not-at-end "$T/ok.efi" "$T/cert-not-at-end.efi"
	pe damage truncated-header "$T/ok.efi" "$T/truncated-header.efi"
	run tb pcrpredict --authenticode "$T/section-beyond.efi"
	[[ $output == *"section 2 (512 bytes at offset"*"runs past the end"* ]]
	run tb pcrpredict --authenticode "$T/cert-not-at-end.efi"
	[[ $output == *"certificate table"*"not at the end"* ]]
	run tb pcrpredict --authenticode "$T/truncated-header.efi"
	[[ $output == *"truncated"* ]]
	# real files: cut in a section, the certificate table cut off or moved
	head -c 100000 "$SDB" >"$T/cut.efi"
	run tb pcrpredict --authenticode "$T/cut.efi"
	[ "$status" -eq 1 ]
	[[ $output == *"section "*"runs past the end of the file (100000 bytes)"* ]]
	head -c 100000 "$SHIM" >"$T/cut.efi"
	run tb pcrpredict --authenticode "$T/cut.efi"
	[ "$status" -eq 1 ]
	[[ $output == *"certificate table"*"not at the end of the file (100000 bytes)"* ]]
	pe damage cert-not-at-end "$GRUB" "$T/g.efi"
	run tb pcrpredict --authenticode "$T/g.efi"
	[ "$status" -eq 1 ]
	[[ $output == *"not at the end"* ]]
	: >"$T/empty.efi"
	run tb pcrpredict --authenticode "$T/empty.efi"
	[ "$status" -eq 1 ]
	[[ $output == *"not a PE image"* ]]
	run tb pcrpredict --authenticode "$T/missing.efi"
	[ "$status" -eq 6 ]
	run tb pcrpredict --authenticode "$SDB" --bank sm3_256
	[ "$status" -eq 2 ]
	run tb pcrpredict --authenticode "$SDB" --bank md5
	[ "$status" -eq 2 ]
}

# --- predictions ------------------------------------------------------

# base.bin: LOG with event NUM measuring $SDB; want.bin: measuring $STUB.
mk_app_logs() {
	local log=$1 num=$2 banks=$3
	evl set-digest "$FIX/$log" "$T/base.bin" "$num" $(digs "$banks" "$SDB")
	evl set-digest "$FIX/$log" "$T/want.bin" "$num" $(digs "$banks" "$STUB")
}

@test "predict: a boot application replaced (3 banks) equals the replay of the rewritten log" {
	need_fix
	mk_app_logs "$GCE" 23 sha1,sha256,sha384
	# the rewritten log holds pesign's digests of each image
	evl list "$T/want.bin" | grep -q "^23 4 0x80000003 .*sha256=$(ps sha256 "$STUB")"
	run tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB"
	[ "$status" -eq 0 ]
	echo "$output" >"$T/got"
	tb eventlog --pcrs "$T/want.bin" >"$T/tb"
	diff "$T/got" "$T/tb"
	t2_pcrs "$T/want.bin" >"$T/t2"
	diff <(sort "$T/got") <(sort "$T/t2")
	grep -c '^sha384:' "$T/got"
	# PCR 4 changes in each bank, nothing else
	tb eventlog --pcrs "$T/base.bin" >"$T/before"
	[ "$(diff "$T/before" "$T/got" | grep -c '^>')" -eq 3 ]
	diff "$T/before" "$T/got" | grep '^>' | grep -qv ':4 ' && return 1
	true
}

@test "predict: a legacy SHA-1 log, and a boot services driver in PCR 2" {
	need_fix
	mk_app_logs "$SHA1LOG" 15 sha1
	tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" >"$T/got"
	diff "$T/got" <(tb eventlog --pcrs "$T/want.bin")
	diff <(sort "$T/got") <(t2_pcrs "$T/want.bin" | sort)
	mk_app_logs "$ARCH" 9 sha1,sha256
	tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" >"$T/got"
	diff "$T/got" <(tb eventlog --pcrs "$T/want.bin")
	diff <(tb eventlog --pcrs "$T/base.bin") "$T/got" | grep -q '^> sha256:2 '
}

@test "predict: every event of OLD is replaced, and two replacements at once" {
	need_fix
	evl set-digest "$FIX/$ARCH" "$T/b1" 22 $(digs sha1,sha256 "$SDB")
	evl set-digest "$T/b1" "$T/base.bin" 23 $(digs sha1,sha256 "$SDB")
	evl set-digest "$FIX/$ARCH" "$T/w1" 22 $(digs sha1,sha256 "$STUB")
	evl set-digest "$T/w1" "$T/want.bin" 23 $(digs sha1,sha256 "$STUB")
	tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" >"$T/got"
	diff "$T/got" <(tb eventlog --pcrs "$T/want.bin")
	# shim -> systemd-boot in 22, grub -> stub in 23
	evl set-digest "$FIX/$ARCH" "$T/b1" 22 $(digs sha1,sha256 "$SHIM")
	evl set-digest "$T/b1" "$T/base.bin" 23 $(digs sha1,sha256 "$GRUB")
	evl set-digest "$FIX/$ARCH" "$T/w1" 22 $(digs sha1,sha256 "$SDB")
	evl set-digest "$T/w1" "$T/want.bin" 23 $(digs sha1,sha256 "$STUB")
	tb pcrpredict --log "$T/base.bin" --replace-app "$SHIM=$SDB" \
		--replace-app "$GRUB=$STUB" >"$T/got"
	diff <(sort "$T/got") <(t2_pcrs "$T/want.bin" | sort)
}

@test "predict: -p limits the output; --json" {
	need_fix
	mk_app_logs "$GCE" 23 sha1,sha256,sha384
	tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" >"$T/all"
	run tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" -p sha256:4,7+sha1:0
	[ "$status" -eq 0 ]
	[ "$output" = "$(grep -E '^sha256:(4|7) ' "$T/all")
$(grep -E '^sha1:0 ' "$T/all")" ]
	diff "$T/all" <(tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" -p all)
	run tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" -p sha384:all
	[ "$status" -eq 0 ]
	[ "$output" = "$(grep '^sha384:' "$T/all")" ]
	run tb pcrpredict --log "$T/base.bin" --replace-app "$SDB=$STUB" -p sha256:4 --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.sha256["4"]')" = "$(sed -n 's/^sha256:4 //p' "$T/all")" ]
	# no change at all: the log's own replay
	diff <(tb pcrpredict --log "$FIX/$GCE") <(tb eventlog --pcrs "$FIX/$GCE")
}

@test "predict: --replace-var db equals the log with its db event rewritten" {
	need_fix
	cd "$T"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem \
		-subj /CN=new-db -days 1 2>/dev/null
	openssl x509 -in c.pem -outform DER -out c.der
	evl esl db.esl c.der
	evl set-var "$FIX/$ARCH" want.bin db db.esl
	run tb pcrpredict --log "$FIX/$ARCH" --replace-var db=db.esl
	[ "$status" -eq 0 ]
	echo "$output" >got
	diff got <(tb eventlog --pcrs want.bin)
	diff <(sort got) <(t2_pcrs want.bin | sort)
	# only PCR 7 moves
	[ "$(diff <(tb eventlog --pcrs "$FIX/$ARCH") got | grep '^>' | grep -vc ':7 ')" -eq 0 ]
	[ "$(diff <(tb eventlog --pcrs "$FIX/$ARCH") got | grep -c '^>')" -eq 2 ]
	# an efivarfs copy (4 bytes of attributes first) gives the same
	{ printf '\047\000\000\000'; cat db.esl; } >efivar-db
	diff got <(tb pcrpredict --log "$FIX/$ARCH" --replace-var db=efivar-db)
	# dbx, KEK and PK the same way; an empty dbx too
	evl esl two.esl c.der c.der
	: >empty
	evl set-var "$FIX/$ARCH" w1 dbx empty
	evl set-var w1 w2 KEK two.esl
	evl set-var w2 w3 PK db.esl
	tb pcrpredict --log "$FIX/$ARCH" --replace-var dbx=empty \
		--replace-var KEK=two.esl --replace-var PK=db.esl >got
	diff got <(tb eventlog --pcrs w3)
}

@test "predict: --replace-var SecureBoot (one byte) on a sha256-only log" {
	need_fix
	printf '\001' >"$T/on"
	evl set-var "$FIX/event-sd-boot-fedora37.bin" "$T/want.bin" SecureBoot "$T/on"
	run tb pcrpredict --log "$FIX/event-sd-boot-fedora37.bin" --replace-var SecureBoot="$T/on" -p sha256:7
	[ "$status" -eq 0 ]
	[ "$output" = "$(t2_pcrs "$T/want.bin" | grep '^sha256:7 ')" ]
	printf '\006\000\000\000\001' >"$T/efivar-on"
	run tb pcrpredict --log "$FIX/event-sd-boot-fedora37.bin" --replace-var SecureBoot="$T/efivar-on" -p sha256:7
	[ "$output" = "$(t2_pcrs "$T/want.bin" | grep '^sha256:7 ')" ]
	printf '\002' >"$T/two"
	run tb pcrpredict --log "$FIX/event-sd-boot-fedora37.bin" --replace-var SecureBoot="$T/two"
	[ "$status" -eq 1 ]
	[[ $output == *"$T/two: a SecureBoot value is one byte"* ]]
}

@test "predict: events that may change but cannot be recomputed: exit 1, named; --keep-unknown" {
	need_fix
	cd "$T"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem \
		-subj /CN=new-db -days 1 2>/dev/null
	openssl x509 -in c.pem -outform DER -out c.der
	evl esl db.esl c.der
	# db changes: the EV_EFI_VARIABLE_AUTHORITY event (26) may change
	run tb pcrpredict --log "$FIX/$GCE" --replace-var db=db.esl
	[ "$status" -eq 1 ]
	[[ $output == *"not recomputed: event 26 (PCR 7 EV_EFI_VARIABLE_AUTHORITY)"* ]]
	[[ $output == *"the prediction is incomplete: 1 line above"* ]]
	[[ $output == *"--keep-unknown"* ]]
	[[ $output != *"sha256:"* ]]
	run tb pcrpredict --log "$FIX/$GCE" --replace-var db=db.esl --keep-unknown
	[ "$status" -eq 0 ]
	[[ $output == *"event 26"* ]]
	evl set-var "$FIX/$GCE" want.bin db db.esl
	diff <(tb pcrpredict --log "$FIX/$GCE" --replace-var db=db.esl --keep-unknown 2>/dev/null) \
		<(tb eventlog --pcrs want.bin)
	# OLD matches no event
	run tb pcrpredict --log "$FIX/$GCE" --replace-app "$SDB=$STUB"
	[ "$status" -eq 1 ]
	[[ $output == *"not recomputed: $SDB: no boot application or driver in the log has its digest"* ]]
	run tb pcrpredict --log "$FIX/$GCE" --replace-app "$SDB=$STUB" --keep-unknown
	[ "$status" -eq 0 ]
	diff <(echo "$output" | grep -v 'not recomputed') <(tb eventlog --pcrs "$FIX/$GCE")
	# a variable event whose digest is not the hash of its data
	evl set-digest "$FIX/$ARCH" bad.bin 6 sha256=$(printf '%064d' 7)
	run tb pcrpredict --log bad.bin --replace-var db=db.esl
	[ "$status" -eq 1 ]
	[[ $output == *"event 6 (PCR 7 EV_EFI_VARIABLE_DRIVER_CONFIG db): its sha256 digest is not the hash of its data"* ]]
	# a variable the log does not measure
	evl drop "$FIX/$ARCH" nodb.bin 6
	run tb pcrpredict --log nodb.bin --replace-var db=db.esl
	[ "$status" -eq 1 ]
	[[ $output == *"db: no EV_EFI_VARIABLE_DRIVER_CONFIG event for it in the log"* ]]
	# an event whose digests match OLD in one bank only
	evl set-digest "$FIX/$ARCH" half.bin 22 $(digs sha1 "$SDB")
	run tb pcrpredict --log half.bin --replace-app "$SDB=$STUB"
	[ "$status" -eq 1 ]
	[[ $output == *"event 22 (PCR 4 EV_EFI_BOOT_SERVICES_APPLICATION): $SDB matches 1 of its 2 digests"* ]]
}

@test "predict: refusals: malformed files, usage" {
	need_fix
	cd "$T"
	mk_app_logs "$GCE" 23 sha1,sha256,sha384
	pe pe32 ok.efi
	pe damage section-beyond ok.efi bad.efi
	run tb pcrpredict --log base.bin --replace-app "$SDB=bad.efi"
	[ "$status" -eq 1 ]
	[[ $output == "tpmbox pcrpredict: bad.efi: section 2"* ]]
	run tb pcrpredict --log base.bin --replace-app "bad.efi=$STUB"
	[ "$status" -eq 1 ]
	run tb pcrpredict --log base.bin --replace-app "$SDB=nothere.efi"
	[ "$status" -eq 6 ]
	# a malformed log, a missing one
	head -c 3000 "$FIX/$GCE" >cut.bin
	run tb pcrpredict --log cut.bin
	[ "$status" -eq 1 ]
	[[ $output == "tpmbox pcrpredict: cut.bin: event log truncated"* ]]
	run tb pcrpredict --log nothere.bin
	[ "$status" -eq 6 ]
	# a variable value that is not a signature list
	printf 'not a signature list at all, no' >junk
	run tb pcrpredict --log "$FIX/$ARCH" --replace-var db=junk
	[ "$status" -eq 1 ]
	[[ $output == "tpmbox pcrpredict: junk: not an EFI_SIGNATURE_LIST sequence"* ]]
	openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem \
		-subj /CN=x -days 1 2>/dev/null
	openssl x509 -in c.pem -outform DER -out c.der
	evl esl db.esl c.der
	head -c 100 db.esl >short.esl
	run tb pcrpredict --log "$FIX/$ARCH" --replace-var db=short.esl
	[ "$status" -eq 1 ]
	[[ $output == *"runs past the end"* ]]
	# -p: a bank or PCR the log does not give; bad grammar
	run tb pcrpredict --log "$FIX/$ARCH" -p sha384:7
	[ "$status" -eq 1 ]
	[[ $output == *"the log has no sha384 bank"* ]]
	run tb pcrpredict --log "$FIX/$ARCH" -p sha256:15
	[ "$status" -eq 1 ]
	[[ $output == *"sha256:15: the log does not extend it"* ]]
	run tb pcrpredict --log "$FIX/$ARCH" -p sha256:99
	[ "$status" -eq 2 ]
	# usage
	for bad in "--replace-app $SDB" "--replace-app =$STUB" "--replace-app $SDB=" \
		   "--replace-var Boot0001=db.esl" "--replace-var db" \
		   "--replace-var db=db.esl --replace-var db=db.esl" \
		   "--bank sha1" "--authenticode $SDB -p sha256:4" "extra"; do
		run tb pcrpredict --log "$FIX/$ARCH" $bad
		[ "$status" -eq 2 ] || { echo "$bad: $status $output"; return 1; }
	done
}

@test "predict: seal -P takes the prediction; unseal works once swtpm's PCRs reach it" {
	need_fix
	cd "$T"
	mk_app_logs "$GCE" 23 sha1,sha256,sha384
	tb pcrpredict --log base.bin --replace-app "$SDB=$STUB" -p sha256:4,7 >pred
	[ "$(wc -l <pred)" -eq 2 ]
	echo "next boot's secret" >secret
	tb seal -P pred -o blob secret
	run tb unseal blob
	[ "$status" -eq 4 ]
	# The next boot: extend swtpm's PCRs 4 and 7 with want.bin's events.
	evl list want.bin | awk '($2 == 4 || $2 == 7) && $3 != "0x00000003" {
		for (i = 4; i <= NF; i++) if ($i ~ /^sha256=/) { sub("sha256=", "", $i); print $2, $i } }' >ext
	[ "$(wc -l <ext)" -gt 5 ]
	while read -r pcr hex; do tpm2_pcrextend "$pcr:sha256=$hex"; done <ext
	diff <(tb pcrread sha256:4,7) pred
	run tb unseal blob
	[ "$status" -eq 0 ]
	[ "$output" = "next boot's secret" ]
}

@test "predict: the whole update: sealed to now and the prediction (PolicyOR), and signed for both (policysign -P); each unseals before and after" {
	need_fix
	cd "$T"
	# a TPM of its own: PCRs 4 and 7 still as the firmware left them
	swtpm_stop
	swtpm_start
	mk_app_logs "$GCE" 23 sha1,sha256,sha384
	tb pcrpredict --log base.bin --replace-app "$SDB=$STUB" -p sha256:4,7 >pred
	tb pcrread sha256:4,7 >now
	echo "the disk key" >secret
	tb seal -P now -P pred -o orblob secret
	openssl genrsa -out k.pem 2048 2>/dev/null
	openssl rsa -in k.pem -pubout -out k.pub 2>/dev/null
	tb seal --authorized-by k.pub -o sblob secret
	tb policysign -k k.pem -P now -o sig.json
	tb policysign -k k.pem -P pred --append -o sig.json
	[ "$(jq '.sha256 | length' sig.json)" -eq 2 ]
	for b in "orblob" "--signature sig.json sblob"; do
		# shellcheck disable=SC2086
		run tb unseal $b
		[ "$status" -eq 0 ]
		[ "$output" = "the disk key" ]
	done
	# the update boots: swtpm's PCRs 4 and 7 reach the prediction
	evl list want.bin | awk '($2 == 4 || $2 == 7) && $3 != "0x00000003" {
		for (i = 4; i <= NF; i++) if ($i ~ /^sha256=/) { sub("sha256=", "", $i); print $2, $i } }' >ext
	while read -r pcr hex; do tpm2_pcrextend "$pcr:sha256=$hex"; done <ext
	diff <(tb pcrread sha256:4,7) pred
	for b in "orblob" "--signature sig.json sblob"; do
		# shellcheck disable=SC2086
		run tb unseal $b
		[ "$status" -eq 0 ]
		[ "$output" = "the disk key" ]
	done
	# and one more change, not signed nor sealed to: both refuse
	tpm2_pcrextend "7:sha256=$(printf later | sha256sum | cut -c1-64)"
	run tb unseal orblob
	[ "$status" -eq 4 ]
	run tb unseal --signature sig.json sblob
	[ "$status" -eq 4 ]
}
