#!/usr/bin/env bats
# Every applet that talks to the TPM, through a proxy that damages one
# response per run (tests/helpers/faultproxy.c).  Each run must end within
# --timeout + 1 s, exit with a documented code (0-6, or 7 where the
# recipe's success is 7; never a signal), say
# "tpmbox APPLET: ..." when it fails, and leave no partial output file.
#
#   FAULT_ITER=N   runs per applet per damaging mode (default 6, 2 in the
#                  small build's pass of make check; the long
#                  run in docs/hardening.md uses 1200)
#   FAULT_SEED=S   proxy seed (default random; printed for replay)
#   FAULT_APPLETS="a b"  only these applets (unseal-or: a blob sealed to
#                  two PCR states; unseal-sig: one sealed --authorized-by; unseal-to, unseal-to-ek:
#                  unseal of a blob from seal --to or --to-ek, which
#                  imports it; seal-escrow: seal with
#                  escrow copies and a recovery code; reseal-escrow:
#                  reseal a blob that does not unseal, from its escrow
#                  copy; takeown-provision: takeown with values, --ek
#                  and a DA parameter on a TPM cleared before each run;
#                  luks-enroll-sd, -clevis, -tpmbox: luks enroll on a
#                  fresh image each run)
#
# The SPI and I2C transports (-T spi:, -T i2c:; issue 28) pass a TPM's
# response up as the socket transport does, so the damage this proxy does
# to responses meets the same parsers there; what is theirs alone, the
# bus's registers, gets its damage from tests/helpers/tissim.py's modes
# (tests/tis.bats: damaged TPM_STS, burstCount 0, Expect stuck, left-over
# data, a floating bus, NACKs, fuzzed register answers).  The proxy can
# sit behind the simulator (tissim.py --swtpm PROXY_SOCKET) when a run
# over the bus is wanted.

load helpers/common

# make check runs this suite three times.  The default and the sanitizer
# passes draw 6 runs per applet and mode; the small build's pass (the same
# parsers, built by musl-gcc -Os) draws 2: every applet and mode still
# meets damage there, in about half the time (51 s against 110 s with
# one seed).
if [ -z "${FAULT_ITER:-}" ]; then
	FAULT_ITER=6
	[ "${TPMBOX_SECOND_PASS:-}" != tiny ] || FAULT_ITER=2
fi
QUICK_MODES="trunc close inflate shrink sizefield flip rc twice"

setup_file() {
	# --timeout 2 plus 1 s; the sanitizer build runs the host-side steps
	# several times slower, and slow_all runs every applet at once on two
	# cores (CI saw 3008 ms there), so it gets 3 s.
	export LIMIT_MS=3000
	[ -z "${TPMBOX_SANITIZED:-}" ] || LIMIT_MS=5000
	export FD="$BATS_FILE_TMPDIR/fault"
	mkdir -p "$FD"
	export SOCKD
	SOCKD=$(mktemp -d "${TMPDIR:-/tmp}/fp.XXXXXX")
	export PROXY="$BATS_FILE_TMPDIR/faultproxy"
	faultproxy_build "$PROXY"
	export FAULT_SEED=${FAULT_SEED:-$RANDOM}
	swtpm_start
	export REAL_TCTI=$TPMBOX_TCTI
	head -c 32 /dev/urandom > "$FD/data32"
	# escrow recipients for seal --escrow (issue 10)
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$FD/escrow.key" -out "$FD/escrow.pem" -subj /CN=fault \
		-days 30 >/dev/null 2>&1 || true
	age-keygen -o "$FD/age.txt" >/dev/null 2>&1 &&
		age-keygen -y "$FD/age.txt" > "$FD/age.rcpt" || true
	prep_state
	: > "$FD/summary"
}

teardown_file() {
	[ -s "$FD/proxy.pid" ] && kill "$(cat "$FD/proxy.pid")" 2>/dev/null
	swtpm_stop
	rm -rf "$SOCKD"
}

# What the recipes work on, made directly (not via the proxy); again after
# clearall wiped it.
prep_state() {
	# Damaged session responses make the TPM see bad HMACs, which count
	# toward lockout: let the suite's swtpm forgive them at once.  Again
	# after every clearall: TPM2_Clear puts the defaults back (3 tries,
	# 1000 s), and a later recipe's check then met a lockout.
	tpm2_dictionarylockout --setup-parameters --max-tries=1000000 \
		--recovery-time=1 --lockout-recovery-time=1 >/dev/null 2>&1 ||
		echo "# fault: could not set the DA parameters" >&3
	tpm2_dictionarylockout --clear-lockout >/dev/null 2>&1 || true
	tb nvdefine 0x01500001 -s 32 >/dev/null 2>&1 &&
		tb nvwrite 0x01500001 -i "$FD/data32" >/dev/null 2>&1 || true
	tb nvdefine 0x01500002 -t counter >/dev/null 2>&1 || true
	tb nvdefine 0x01500003 -t extend >/dev/null 2>&1 || true
	tb nvdefine 0x01500004 -t bits >/dev/null 2>&1 || true
	if has_applet seal &&
	   ! tb unseal --auth str:pw "$FD/blob" >/dev/null 2>&1; then
		tb seal -p sha256:0 --auth str:pw -f -o "$FD/blob" \
			"$FD/data32" >/dev/null 2>&1 || true
	fi
	# luks list's image: a LUKS2 header with a systemd-tpm2 token
	# (PCR 7, a made-up blob: list parses it, reads PCR 7, compares)
	if has_applet luks && [ ! -s "$FD/luks.img" ] &&
	   command -v cryptsetup >/dev/null; then
		printf pw > "$FD/luks.pw"
		truncate -s 32M "$FD/luks.img"
		cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
			--pbkdf-force-iterations 1000 "$FD/luks.img" \
			"$FD/luks.pw" >/dev/null 2>&1 &&
		printf '{"type":"systemd-tpm2","keyslots":["0"],"tpm2-blob":"%s","tpm2-pcrs":[7],"tpm2-pcr-bank":"sha256","tpm2-primary-alg":"ecc","tpm2-policy-hash":"%064d","tpm2-pin":false}' \
			"$(python3 "$BATS_TEST_DIRNAME/helpers/luks2img.py" blob)" 0 \
			> "$FD/luks.tok" &&
		cryptsetup token import --disable-external-tokens \
			--token-id 0 --json-file "$FD/luks.tok" "$FD/luks.img" ||
			rm -f "$FD/luks.img"
	fi
	# luks unlock's tokens, made for real by systemd-cryptenroll and
	# clevis (again after clearall: the owner seed, so the legacy
	# primary, changed)
	if has_applet luks && [ -s "$FD/luks.img" ] &&
	   command -v systemd-cryptenroll >/dev/null &&
	   ! tb luks unlock "$FD/sd.img" >/dev/null 2>&1; then
		tpm2_flushcontext -t >/dev/null 2>&1
		tpm2_flushcontext -s >/dev/null 2>&1
		tpm2_flushcontext -l >/dev/null 2>&1
		cp "$FD/luks.img" "$FD/sd.img"
		cryptsetup token remove --token-id 0 "$FD/sd.img"
		PASSWORD=pw systemd-cryptenroll \
			--tpm2-device=swtpm:path=$SWTPM_DIR/sock \
			--tpm2-pcrs=7 "$FD/sd.img" >/dev/null 2>&1 ||
			rm -f "$FD/sd.img"
		tpm2_flushcontext -t >/dev/null 2>&1
		tpm2_flushcontext -s >/dev/null 2>&1
		tpm2_flushcontext -l >/dev/null 2>&1
	fi
	if has_applet luks && command -v clevis >/dev/null &&
	   ! tb luks unlock --jwe "$FD/cl.jwe" >/dev/null 2>&1; then
		TPM2TOOLS_TCTI=swtpm:path=$SWTPM_DIR/sock clevis encrypt tpm2 \
			'{"pcr_ids":"7"}' < "$FD/data32" > "$FD/cl.jwe" \
			2>/dev/null || rm -f "$FD/cl.jwe"
		tpm2_flushcontext -t >/dev/null 2>&1
		tpm2_flushcontext -s >/dev/null 2>&1
		tpm2_flushcontext -l >/dev/null 2>&1
	fi
	# reseal-escrow's old blob: sealed to a PCR 0 value it never has,
	# so it never unseals (exit 4) and reseal takes the escrow copy.
	# Made again after clearall: under another SRK, unseal would stop
	# earlier (exit 1), with fewer commands than the pass runs counted.
	if has_applet reseal && [ -s "$FD/escrow.pem" ]; then
		local rc=0
		tb unseal "$FD/rblob" >/dev/null 2>&1 || rc=$?
		[ "$rc" -eq 4 ] ||
			tb seal -p "sha256:0=$(printf '%064d' 0)" -f \
				--escrow "$FD/escrow.pem" -o "$FD/rblob" \
				"$FD/data32" >/dev/null 2>&1 || true
	fi
	# unseal-to's blob: sealed with seal --to for this TPM's SRK, so
	# unseal imports it first (made again after clearall: a new SRK)
	if tb seal --help | grep -q -- --to &&
	   ! tb unseal "$FD/toblob" >/dev/null 2>&1; then
		# (a new SRK after clearall: its public replaces the old one)
		rm -f "$FD/srk.pem"
		tb takeown --srk-pub "$FD/srk.pem" >/dev/null 2>&1 &&
		tb seal --to "$FD/srk.pem" -f -o "$FD/toblob" \
			"$FD/data32" >/dev/null 2>&1 || true
	fi
	# unseal-to-ek's: sealed with --to-ek for this TPM's EK (made by
	# tpm2_createek, not persisted), survives clearall
	if tb seal --help | grep -q -- --to-ek && [ ! -s "$FD/ekblob" ] &&
	   tpm2_createek -c "$FD/ek.ctx" -G ecc -u "$FD/ek.pub" \
		>/dev/null 2>&1; then
		tpm2_flushcontext -t >/dev/null 2>&1
		tb seal --to-ek "$FD/ek.pub" -o "$FD/ekblob" "$FD/data32" \
			>/dev/null 2>&1 || true
	fi
	# sign's and decrypt's keys (made again after clearall: a new SRK);
	# decrypt's ciphertext made by openssl
	if has_applet keycreate &&
	   ! tb sign -k "$FD/sk.key" -i "$FD/data32" -f -o "$FD/sk.sig" \
		>/dev/null 2>&1; then
		tb keycreate -f -o "$FD/sk.key" --pub "$FD/sk.pub" \
			>/dev/null 2>&1 || true
		# sign-pcr's: a key with a PolicyPCR (PCR 15: the extend
		# recipe extends 16) and a value
		tb keycreate -f -p sha256:15 --auth str:pk -o "$FD/pk.key" \
			--pub "$FD/pk.pub" >/dev/null 2>&1 || true
		tb keycreate --rsa --usage decrypt -f -o "$FD/dk.key" \
			--pub "$FD/dk.pub" >/dev/null 2>&1 &&
		openssl pkeyutl -encrypt -pubin -inkey "$FD/dk.pub" \
			-pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
			-in "$FD/data32" -out "$FD/dk.ct" 2>/dev/null || true
		# unbind's: a CMS message (more than one OAEP block)
		head -c 400 /dev/urandom > "$FD/data400"
		tb bind --pub "$FD/dk.pub" -i "$FD/data400" -f \
			-o "$FD/dk.cms" 2>/dev/null || true
	fi
	# totp-show's blob and its URI (PCR 15: the extend recipe extends 16)
	if ! tb totp show --time 59 "$FD/totpblob" >/dev/null 2>&1; then
		rm -f "$FD/totpblob" "$FD/totpuri"
		tb totp enroll -p sha256:15 -o "$FD/totpblob" \
			--uri-out "$FD/totpuri" --qr none >/dev/null 2>&1 || true
	fi
	# unseal-or's blob: two states of PCR 15 (the extend recipe
	# extends 16), the TPM in the second
	# (made again after clearall: a new SRK)
	if ! tb unseal "$FD/orblob" >/dev/null 2>&1; then
		tb seal -p "sha256:15=$(printf '%064d' 1)" -p sha256:15 -f \
			-o "$FD/orblob" "$FD/data32" >/dev/null 2>&1 || true
	fi
	# unseal-sig's blob: sealed --authorized-by a key that signed
	# PCR 15's value now (policysign)
	if has_applet policysign &&
	   ! tb unseal --signature "$FD/sig.json" "$FD/sigblob" \
		>/dev/null 2>&1; then
		[ -s "$FD/signer.key" ] ||
			openssl genrsa -out "$FD/signer.key" 2048 2>/dev/null
		openssl rsa -in "$FD/signer.key" -pubout \
			-out "$FD/signer.pub" 2>/dev/null
		tb pcrread sha256:15 > "$FD/pcr15.txt" 2>/dev/null &&
		tb policysign -k "$FD/signer.key" -P "$FD/pcr15.txt" -f \
			-o "$FD/sig.json" >/dev/null 2>&1 &&
		tb seal --authorized-by "$FD/signer.pub" -f -o "$FD/sigblob" \
			"$FD/data32" >/dev/null 2>&1 || true
	fi
	if has_applet akcreate && ! tb quote -k "$FD/ak.blob" -p sha256:0 \
			-o "$FD/q.tmp" -f >/dev/null 2>&1; then
		tb akcreate -o "$FD/ak.blob" --pub "$FD/ak.pem" -f \
			>/dev/null 2>&1 || true
	fi
	# ekpub's check: the ECC EK as tpm2_createek makes it
	if [ ! -s "$FD/ek.pem" ] &&
	   tpm2_createek -c "$FD/eke.ctx" -G ecc >/dev/null 2>&1; then
		tpm2_readpublic -c "$FD/eke.ctx" -f pem -o "$FD/ek.pem" \
			>/dev/null 2>&1
		tpm2_flushcontext -t >/dev/null 2>&1
	fi
	# ekcert's certificate: the RSA EK's key, signed by a throw-away CA,
	# at 0x01c00002 (owner-defined, gone after clearall: made again)
	if has_applet ekcert && ! tb ekcert --rsa >/dev/null 2>&1 &&
	   tpm2_createek -c "$FD/ekr.ctx" -G rsa >/dev/null 2>&1; then
		tpm2_readpublic -c "$FD/ekr.ctx" -f pem -o "$FD/ekr.pem" \
			>/dev/null 2>&1
		tpm2_flushcontext -t >/dev/null 2>&1
		openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=fault-ca \
			-keyout "$FD/ca.key" -out "$FD/ca.crt" -days 30 \
			>/dev/null 2>&1 &&
		openssl x509 -new -subj /CN=fault-ek -CA "$FD/ca.crt" \
			-CAkey "$FD/ca.key" -force_pubkey "$FD/ekr.pem" -days 30 \
			-outform DER -out "$FD/ekcert.der" >/dev/null 2>&1 &&
		tpm2_nvdefine -C o -s "$(stat -c %s "$FD/ekcert.der")" \
			-a "ownerwrite|ownerread|authread|authwrite|no_da" \
			0x01c00002 >/dev/null 2>&1 &&
		tpm2_nvwrite -C o -i "$FD/ekcert.der" 0x01c00002 \
			>/dev/null 2>&1 || true
	fi
	# activatecredential's credential: for this TPM's EK and the AK
	if has_applet makecredential && [ -s "$FD/ak.blob" ] &&
	   ! tb activatecredential -k "$FD/ak.blob" -i "$FD/cred" \
		>/dev/null 2>&1 &&
	   tpm2_createek -c "$FD/ekc.ctx" -G ecc -u "$FD/ekc.pub" \
		>/dev/null 2>&1; then
		tpm2_flushcontext -t >/dev/null 2>&1
		tb akcreate -o "$FD/ak.blob" --pub "$FD/ak.pem" \
			--name "$FD/ak.name" -f >/dev/null 2>&1 &&
		tb makecredential --ek "$FD/ekc.pub" --name "$FD/ak.name" \
			-i "$FD/data32" -o "$FD/cred" -f >/dev/null 2>&1 || true
	fi
	true
}

has_applet() { tb --list | grep -q "^$1 "; }

# recipe APPLET: sets ARGS (the command), OUT (output file or ""), CHECK
# (a command that must succeed on a good OUT), PASSRC (exit codes of an
# undamaged run), PRE (run directly on swtpm before each run), OUTFILE
# (0: OUT is no file the applet writes, only what turns CHECK on),
# FAILRC (the exit when the TPM never answers or always says RETRY, when
# not that failure's own: luks list stands without the TPM).
# Returns 1 for an applet without a recipe, 2 for one that never talks
# to the TPM.
recipe() {
	OUT="" CHECK="true" PASSRC="0" PRE="true" OUTFILE=1 FAILRC=""
	case $1 in
	getrandom) OUT=$FD/out; ARGS=(getrandom -o "$OUT" 200)
		CHECK='[ "$(stat -c %s "$OUT")" = 200 ]' ;;
	pcrread) OUT=$FD/out; ARGS=(pcrread -o "$OUT" sha256:0-3+sha1:0)
		CHECK='[ "$(stat -c %s "$OUT")" = 148 ]' ;;
	info) ARGS=(info --json) ;;
	extend) ARGS=(extend 16 -s fault -v) ;;
	nvdefine) ARGS=(nvdefine 0x01500010 -s 16)
		PRE='tb nvrelease 0x01500010' ;;
	nvrelease) ARGS=(nvrelease 0x01500011)
		PRE='tb nvdefine 0x01500011 -s 8' ;;
	nvwrite) ARGS=(nvwrite 0x01500001 -i "$FD/data32") ;;
	nvread) OUT=$FD/out; ARGS=(nvread 0x01500001 -s 32 -o "$OUT")
		CHECK='[ "$(stat -c %s "$OUT")" = 32 ]' ;;
	nvincrement) ARGS=(nvincrement 0x01500002) ;;
	nvextend) ARGS=(nvextend 0x01500003 -d 00112233) ;;
	nvsetbits) ARGS=(nvsetbits 0x01500004 0x5) ;;
	nvlist) ARGS=(nvlist --json)
		# the list as long as in pass mode (nvdefine's damaged runs
		# may leave its index out; one fewer ReadPublic): a damage
		# drawn for the last answer lands on an answer
		PRE='tb nvrelease 0x01500011; tb nvdefine 0x01500010 -s 16' ;;
	takeown) ARGS=(takeown) ;;
	clearall) ARGS=(clearall --yes) ;;
	takeown-provision)
		# the whole provisioning run on a cleared TPM each time (the
		# storage seed changes: it runs after every recipe that uses
		# the SRK): SRK made, two values set, the ECC EK persisted, a
		# DA parameter set; an exit-0 run did all of it
		ARGS=(takeown --owner-auth str:fo --endorsement-auth str:fe
			--ek=ecc --max-tries 40)
		PRE='tpm2_clearcontrol -C p c; tpm2_clear -c p'
		OUT=$FD/provisioned OUTFILE=0
		CHECK='tpm2_changeauth -c o -p fo fo &&
			tpm2_changeauth -c e -p fe fe &&
			tpm2_getcap handles-persistent | grep -q 0x81010002 &&
			tpm2_getcap properties-variable |
				grep -q "TPM2_PT_MAX_AUTH_FAIL: 0x28"' ;;
	seal) OUT=$FD/out
		ARGS=(seal -p sha256:0 --auth str:pw -o "$OUT" "$FD/data32")
		# A blob from an exit-0 seal must unseal to the data.
		CHECK='tb unseal --auth str:pw "$OUT" | cmp -s - "$FD/data32"' ;;
	seal-escrow) OUT=$FD/out
		# seal with an escrow copy of each kind and a recovery code:
		# an exit-0 blob unseals, and every copy gives the data
		ARGS=(seal --escrow "$FD/escrow.pem" --escrow "$(cat "$FD/age.rcpt")"
			--recovery-code-out "$FD/code" -f -p sha256:0
			--auth str:pw -o "$OUT" "$FD/data32")
		CHECK='tb unseal --auth str:pw "$OUT" | cmp -s - "$FD/data32" &&
			tb recover -k "$FD/escrow.key" "$OUT" | cmp -s - "$FD/data32" &&
			tb recover -k "$FD/age.txt" "$OUT" | cmp -s - "$FD/data32" &&
			tb recover --recovery-code "file:$FD/code" "$OUT" |
				cmp -s - "$FD/data32"' ;;
	recover) return 2 ;;	# never opens the TPM
	makecredential) return 2 ;;	# likewise
	bind) return 2 ;;	# likewise
	policysign|pcrpredict) return 2 ;;	# likewise (host-side only)
	ppi) return 2 ;;	# sysfs only: tests/ppi.bats and fuzz_ppi
	dalock) ARGS=(dalock --reset) ;;
	# --clear: pcrallocate's recipe (before it in the list) leaves an
	# allocation pending, and the TPM then refuses Shutdown(STATE)
	# (TPM_RC_TYPE, as the man page says); handoff.bats tests STATE
	shutdown) ARGS=(shutdown --clear) ;;
	# every step's reads and the platform probe, nothing changed
	lockdown) ARGS=(lockdown --extend 16 --disable-clear --platform --dry-run --json) ;;
	# the extend and TPM2_ClearControl for real, disableClear lifted
	# (platform) before each run; exit 0 means it is set
	lockdown-clear) ARGS=(lockdown --extend 16 --disable-clear --json)
		PRE='tpm2_clearcontrol -C p c'
		OUT=$FD/cleared OUTFILE=0
		CHECK='tpm2_getcap properties-variable | grep -q "disableClear: *1"' ;;
	pcrallocate)
		# the request stays pending (nothing restarts this swtpm):
		# exit 7 is its success; sha1 alone differs from the active
		# banks, so the command is sent every run
		ARGS=(pcrallocate sha1); PASSRC="7" ;;
	persist) ARGS=(persist --ek --ecc)
		PRE='tb evict 0x81010002 --yes'
		# no file (OUTFILE=0): OUT only turns the check on; exit 0
		# means the EK is there
		OUT=$FD/persisted OUTFILE=0
		CHECK='tpm2_getcap handles-persistent | grep -q 0x81010002' ;;
	evict) ARGS=(evict 0x81010002 --yes)
		PRE='tb persist --ek --ecc'
		OUT=$FD/evicted OUTFILE=0
		CHECK='! tpm2_getcap handles-persistent | grep -q 0x81010002' ;;
	ekcert) OUT=$FD/out; ARGS=(ekcert --rsa --ca "$FD/ca.crt" -o "$OUT")
		# an exit-0 run wrote the certificate, checked to the CA
		CHECK='cmp -s "$OUT" "$FD/ekcert.der"' ;;
	ekpub) OUT=$FD/out; ARGS=(ekpub --ecc -o "$OUT")
		# an exit-0 run wrote this TPM's EK
		CHECK='cmp -s "$OUT" "$FD/ek.pem"' ;;
	activatecredential) OUT=$FD/out
		# a credential for this TPM's EK and the suite's AK: an exit-0
		# run wrote exactly the secret
		[ -s "$FD/cred" ] || return 2
		ARGS=(activatecredential -k "$FD/ak.blob" -i "$FD/cred" -o "$OUT")
		CHECK='cmp -s "$OUT" "$FD/data32"' ;;
	reseal) OUT=$FD/out
		# unseal then seal in one process: an exit-0 blob must unseal
		# to the data, with the new password
		ARGS=(reseal --old-auth str:pw -p sha256:0 --auth str:pw2
			-o "$OUT" "$FD/blob")
		CHECK='tb unseal --auth str:pw2 "$OUT" | cmp -s - "$FD/data32"' ;;
	reseal-escrow) OUT=$FD/out
		# the old blob does not unseal (PCR 0): the escrow copy gives
		# the secret, the TPM seals it again
		[ -s "$FD/rblob" ] || return 2
		ARGS=(reseal -k "$FD/escrow.key" -p sha256:0
			--escrow "$FD/escrow.pem" -o "$OUT" "$FD/rblob")
		CHECK='tb unseal "$OUT" | cmp -s - "$FD/data32" &&
			tb recover -k "$FD/escrow.key" "$OUT" | cmp -s - "$FD/data32"' ;;
	unseal-to) OUT=$FD/out
		# a blob from seal --to: TPM2_Import, then Load and Unseal
		[ -s "$FD/toblob" ] || return 2
		ARGS=(unseal -o "$OUT" "$FD/toblob")
		CHECK='cmp -s "$OUT" "$FD/data32"' ;;
	unseal-to-ek) OUT=$FD/out
		# the same under the EK: PolicySecret sessions for Import
		# and Load, the unseal session salted to the EK
		[ -s "$FD/ekblob" ] || return 2
		ARGS=(unseal -o "$OUT" "$FD/ekblob")
		CHECK='cmp -s "$OUT" "$FD/data32"' ;;
	totp) OUT=$FD/out
		# an exit-0 enrolment's blob gives oathtool's code for its URI
		ARGS=(totp enroll -p sha256:15 -o "$OUT" --uri-out "$FD/totp.uri"
			-f --qr none)
		CHECK='[ "$(tb totp show --time 59 "$OUT" | head -1)" = \
			"$(oathtool --totp --now @59 -b "$(sed "s/.*secret=//;
			s/&.*//" "$FD/totp.uri")")" ]' ;;
	totp-show) OUT=$FD/out OUTFILE=0
		# PolicyPCR and TPM2_HMAC in the salted session: an exit-0
		# show prints oathtool's code
		[ -s "$FD/totpblob" ] || return 2
		ARGS=(totp show --time 59 "$FD/totpblob")
		CHECK='[ "$(head -1 "$FD/stdout")" = \
			"$(oathtool --totp --now @59 -b "$(sed "s/.*secret=//;
			s/&.*//" "$FD/totpuri")")" ]' ;;
	unseal-or) OUT=$FD/out
		# sealed to two PCR states: PCR_Read picks the branch,
		# PolicyPCR, PolicyOR, Unseal
		[ -s "$FD/orblob" ] || return 2
		ARGS=(unseal -o "$OUT" "$FD/orblob")
		CHECK='cmp -s "$OUT" "$FD/data32"' ;;
	unseal-sig) OUT=$FD/out
		# a signed policy: PCR_Read, LoadExternal, VerifySignature,
		# PolicyPCR, PolicyAuthorize, Unseal
		[ -s "$FD/sigblob" ] || return 2
		ARGS=(unseal --signature "$FD/sig.json" -o "$OUT" "$FD/sigblob")
		CHECK='cmp -s "$OUT" "$FD/data32"' ;;
	unseal) OUT=$FD/out
		ARGS=(unseal --auth str:pw -o "$OUT" "$FD/blob")
		# The response is HMAC-checked and encrypted: an exit-0 unseal
		# must give exactly the secret, damage or not.
		CHECK='cmp -s "$OUT" "$FD/data32"' ;;
	keycreate) OUT=$FD/out; ARGS=(keycreate -o "$OUT")
		# an exit-0 key file loads and signs (sign checks the
		# signature with the file's public key)
		CHECK='tb sign -k "$OUT" -i "$FD/data32" -f -o "$FD/kc.sig"' ;;
	sign) OUT=$FD/out
		[ -s "$FD/sk.key" ] || return 2
		ARGS=(sign -k "$FD/sk.key" -i "$FD/data32" -o "$OUT")
		# an exit-0 signature verifies for the key (openssl)
		CHECK='openssl dgst -sha256 -verify "$FD/sk.pub" -signature "$OUT" "$FD/data32" >/dev/null' ;;
	decrypt) OUT=$FD/out
		[ -s "$FD/dk.ct" ] || return 2
		ARGS=(decrypt -k "$FD/dk.key" -i "$FD/dk.ct" -o "$OUT")
		# an exit-0 plaintext is exactly what openssl encrypted
		CHECK='cmp -s "$OUT" "$FD/data32"' ;;
	sign-pcr) OUT=$FD/out
		[ -s "$FD/pk.key" ] || return 2
		ARGS=(sign -k "$FD/pk.key" --auth str:pk -i "$FD/data32" -o "$OUT")
		# an exit-0 signature verifies for the key (openssl)
		CHECK='openssl dgst -sha256 -verify "$FD/pk.pub" -signature "$OUT" "$FD/data32" >/dev/null' ;;
	unbind) OUT=$FD/out
		[ -s "$FD/dk.cms" ] || return 2
		ARGS=(unbind -k "$FD/dk.key" -i "$FD/dk.cms" -o "$OUT")
		# an exit-0 result is exactly what bind encrypted
		CHECK='cmp -s "$OUT" "$FD/data400"' ;;
	keyimport) OUT=$FD/out
		# an openssl key into the TPM under the pinned SRK: an exit-0
		# key file loads (tpm2-tools) and signs for the original key
		[ -s "$FD/srk.pem" ] || return 2
		[ -s "$FD/ki.pem" ] ||
			openssl genpkey -algorithm EC -pkeyopt \
				ec_paramgen_curve:P-256 -out "$FD/ki.pem" 2>/dev/null
		[ -s "$FD/ki.pub" ] ||
			openssl pkey -in "$FD/ki.pem" -pubout -out "$FD/ki.pub"
		ARGS=(keyimport --srk-pub "$FD/srk.pem" -i "$FD/ki.pem" -o "$OUT")
		CHECK='tss2_pieces "$OUT" "$FD/kp" &&
			tpm2_load -Q -C 0x81000001 -u "$FD/kp/pub" \
				-r "$FD/kp/priv" -c "$FD/kp.ctx" &&
			tpm2_sign -c "$FD/kp.ctx" -g sha256 -s ecdsa -f plain \
				-o "$FD/kp.sig" "$FD/data32" &&
			tpm2_flushcontext -t &&
			openssl dgst -sha256 -verify "$FD/ki.pub" \
				-signature "$FD/kp.sig" "$FD/data32" >/dev/null' ;;
	akcreate) OUT=$FD/out; ARGS=(akcreate -o "$OUT")
		CHECK='grep -q "BEGIN" "$OUT"' ;;
	quote) OUT=$FD/out
		ARGS=(quote -k "$FD/ak.blob" -p sha256:0,7 -n 00112233 -o "$OUT")
		# An exit-0 quote must verify.
		CHECK='tb checkquote -k "$FD/ak.pem" -n 00112233 "$OUT"' ;;
	checkquote) return 2 ;;
	imalog)
		# --check reads the banks and PCR 10; the replay does not
		# match swtpm (exit 1), the point is the damaged answers.
		local f=$BATS_TEST_DIRNAME/../../shared/fixtures/eventlog/sml-ima-ng-sha1.bin
		[ -f "$f" ] || return 2
		ARGS=(imalog --check "$f"); PASSRC="0 1" ;;
	eventlog)
		# Only --check reads the TPM; a replay never matches swtpm.
		local f
		f=$(ls "$BATS_TEST_DIRNAME"/../../shared/fixtures/eventlog/*.bin \
			2>/dev/null | grep -v sml | head -1)
		[ -n "$f" ] || return 2
		ARGS=(eventlog --check "$f"); PASSRC="0 1" ;;
	luks)
		# a LUKS2 image with a systemd-tpm2 token (sd7's form, its blob
		# from the suite's seal); list reads the banks and PCR 7
		[ -s "$FD/luks.img" ] || return 2
		# a TPM that fails leaves the list standing, the match
		# unknown: exit 0, the reason in a note (slow_one)
		FAILRC=0
		ARGS=(luks list "$FD/luks.img" --json) ;;
	luks-unlock-sd)
		# systemd-cryptenroll's PCR 7 token: the legacy primary, Load,
		# the salted policy session, Unseal
		[ -s "$FD/sd.img" ] || return 2
		OUT=$FD/out; ARGS=(luks unlock "$FD/sd.img" -o "$OUT" -f)
		CHECK='cryptsetup open --test-passphrase --key-file="$OUT" "$FD/sd.img"' ;;
	luks-unlock-clevis)
		# clevis encrypt tpm2 (PCR 7): the JWK unsealed, the JWE opened
		[ -s "$FD/cl.jwe" ] || return 2
		OUT=$FD/out; ARGS=(luks unlock --jwe "$FD/cl.jwe" -o "$OUT" -f)
		CHECK='cmp "$OUT" "$FD/data32"' ;;
	luks-enroll-sd|luks-enroll-clevis|luks-enroll-tpmbox)
		# a fresh copy of luks.img each run (one per form: slow_all
		# runs them at once); enroll adds keyslot 1 and token 1 (or,
		# failing, takes its keyslot with it); a run that says 0 must
		# have made a token luks unlock opens.  OUT only turns the
		# check on (OUTFILE=0).
		[ -s "$FD/luks.img" ] || return 2
		IMG=$FD/$1.img
		PRE="cp '$FD/luks.img' '$IMG'"
		OUT=$FD/$1.on OUTFILE=0
		ARGS=(luks enroll "$IMG" --as "${1#luks-enroll-}"
		      -p sha256:7 --unlock-key-file "$FD/luks.pw")
		[ "$1" != luks-enroll-sd ] || ARGS[4]=systemd
		CHECK="tb luks unlock '$IMG' --token-id 1 | cryptsetup open --test-passphrase --key-file=- '$IMG'" ;;
	*) return 1 ;;
	esac
	return 0
}

applets() {
	if [ -n "${FAULT_APPLETS:-}" ]; then
		echo "$FAULT_APPLETS"
	else
		# clearall last: it wipes what the others work on.
		tb --list | awk '$1 != "clearall" {print $1}'
		# seal with escrow copies: its own recipe
		[ -s "$FD/age.rcpt" ] && tb seal --help | grep -q -- --escrow &&
			echo seal-escrow
		[ -s "$FD/rblob" ] && echo reseal-escrow
		[ -s "$FD/toblob" ] && echo unseal-to
		[ -s "$FD/ekblob" ] && echo unseal-to-ek
		[ -s "$FD/orblob" ] && echo unseal-or
		[ -s "$FD/totpblob" ] && echo totp-show
		[ -s "$FD/sigblob" ] && echo unseal-sig
		[ -s "$FD/pk.key" ] && echo sign-pcr
		[ -s "$FD/sd.img" ] && echo luks-unlock-sd
		[ -s "$FD/cl.jwe" ] && echo luks-unlock-clevis
		has_applet lockdown && echo lockdown-clear
		[ -s "$FD/luks.img" ] && tb luks --help | grep -q enroll &&
			echo luks-enroll-sd luks-enroll-clevis luks-enroll-tpmbox
		# clears the TPM before each run, as clearall does
		echo takeown-provision
		has_applet clearall && echo clearall
	fi
}

proxy_start() {	# MODE K STATS [FIRST-CONNECTION]
	rm -f "$SOCKD/p.sock"
	"$PROXY" -l "$SOCKD/p.sock" -t "$SWTPM_DIR/sock" -m "$1" -k "$2" \
		-s "$FAULT_SEED" -c "${4:-0}" -o "$3" -F >/dev/null 2>&1 3>&- &
	PP=$!
	echo "$PP" > "$FD/proxy.pid"
	for _ in $(seq 1 300); do
		[ -S "$SOCKD/p.sock" ] && return 0
		sleep 0.01
	done
	return 1
}

proxy_stop() {
	# SIGTERM: the proxy finishes the connection's stats line first.
	kill "$PP" 2>/dev/null
	for _ in $(seq 1 300); do
		kill -0 "$PP" 2>/dev/null || break
		sleep 0.01
	done
	kill -9 "$PP" 2>/dev/null || true
	wait "$PP" 2>/dev/null || true
	rm -f "$FD/proxy.pid"
}

# A failing test must not leave its proxy running.
teardown() {
	[ -s "$FD/proxy.pid" ] && kill "$(cat "$FD/proxy.pid")" 2>/dev/null
	rm -f "$FD/proxy.pid"
	true
}

# One damaged run of the current recipe; failures appended to $FD/fail.
# Sets RC, ERR.
one_run() {	# APPLET MODE N
	local a=$1 m=$2 n=$3 t0 t1 ms bad=""
	if [ "$PRE" != true ]; then
		(TPMBOX_TCTI=$REAL_TCTI; eval "$PRE") >/dev/null 2>&1 || true
	fi
	[ -n "$OUT" ] && rm -f "$OUT" "$OUT".tmp.*
	t0=$EPOCHREALTIME
	timeout -s KILL 10 "$TPMBOX" --timeout 2 -T "swtpm:path=$SOCKD/p.sock" \
		"${ARGS[@]}" >"$FD/stdout" 2>"$FD/stderr" && RC=0 || RC=$?
	t1=$EPOCHREALTIME
	ERR=""
	IFS= read -r ERR < "$FD/stderr" || true
	ms=$(( (10#${t1/./} - 10#${t0/./}) / 1000 ))
	[ "$RC" -ge 7 ] && [[ " $PASSRC " != *" $RC "* ]] &&
		bad="exit $RC: $ERR"
	[ "$ms" -gt "$LIMIT_MS" ] && bad="took $ms ms (timeout 2 s)"
	if [ "$RC" -ne 0 ] && [[ "$ERR" != "tpmbox ${a%%-*}: "* ]]; then
		bad="exit $RC without a message: '$ERR'"
	fi
	if [ -n "$OUT" ]; then
		if [ "$RC" -ne 0 ] && [ -e "$OUT" ]; then
			bad="exit $RC left $OUT"
		fi
		if [ "$RC" -eq 0 ] && ! eval "$CHECK" >/dev/null 2>&1; then
			bad="exit 0 with a bad $OUT"
		fi
		if compgen -G "$OUT.tmp.*" >/dev/null; then
			bad="temp file left"
		fi
	fi
	if [ -n "$bad" ]; then
		echo "$a/$m run $n seed $FAULT_SEED ($(tail -1 "$FD/stats" \
			2>/dev/null)): $bad" >> "$FD/fail"
	fi
	echo "$RC" >> "$FD/rcs"
}

fail_report() {
	if [ -s "$FD/fail" ]; then
		head -30 "$FD/fail"
		echo "($(wc -l < "$FD/fail") failures)"
		return 1
	fi
}

@test "fault: every applet has a fault recipe" {
	local a missing=""
	for a in $(applets); do
		recipe "$a" || [ $? -eq 2 ] || missing="$missing $a"
	done
	[ -z "$missing" ] || { echo "no recipe in tests/fault.bats for:$missing"; false; }
}

@test "fault: proxy in pass mode is transparent (baseline exit codes, command counts)" {
	prep_state
	local a
	rm -f "$FD/fail"
	for a in $(applets); do
		recipe "$a" || continue
		proxy_start pass 1 "$FD/stats"
		# Twice: a first run may send more commands than every later
		# one (takeown creates the SRK once), and the later runs are
		# the ones damaged.
		one_run "$a" pass 1
		[[ " $PASSRC " == *" $RC "* ]] ||
			echo "$a: pass mode exit $RC: $ERR" >> "$FD/fail"
		one_run "$a" pass 2
		proxy_stop
		[[ " $PASSRC " == *" $RC "* ]] ||
			echo "$a: pass mode exit $RC (second run): $ERR" >> "$FD/fail"
		# Commands per run (the second): damaging response (rand % K)
		# then always hits one.
		sed -n 's/.* cmds=\([0-9]*\) .*/\1/p' "$FD/stats" | tail -1 \
			> "$FD/cmds.$a"
		[ "$(cat "$FD/cmds.$a")" -ge 1 ] ||
			echo "$a: no command reached the proxy" >> "$FD/fail"
		rm -f "$FD/stats"
	done
	fail_report
}

@test "fault: damaged responses ($QUICK_MODES): no crash, no hang, documented exit, no partial file" {
	prep_state
	local a m i k total=0 line conn=0
	rm -f "$FD/fail"
	for a in $(applets); do
		recipe "$a" || continue
		k=$(cat "$FD/cmds.$a" 2>/dev/null || echo 1)
		: > "$FD/rcs"
		for m in $QUICK_MODES; do
			rm -f "$FD/stats"
			# Connections numbered on from the last proxy's: each
			# run draws its own damage.  (Numbered from 0 each
			# time, every applet met the same draws: at stop 31 CI
			# saw seal, quote and three more exit 0 in all 16
			# runs, and nvlist, whose list can be one shorter than
			# in pass mode, damaged in none.)  The stats line's
			# conn= replays a run (-c).
			proxy_start "$m" "$k" "$FD/stats" "$conn"
			conn=$((conn + FAULT_ITER))
			for i in $(seq 1 "$FAULT_ITER"); do
				one_run "$a" "$m" "$i"
			done
			proxy_stop
			# (none: the total below says so, naming the applet)
			{ grep -c 'mutated=[1-9]' "$FD/stats" || true; } \
				>> "$FD/mut.$a"
		done
		total=$(paste -sd+ "$FD/mut.$a" | bc)
		line="$a: $total damaged responses, exits $(sort -n "$FD/rcs" | uniq -c | awk '{printf "%s:%s ", $2, $1}')"
		echo "$line" >> "$FD/summary"
		echo "# $line" >&3
		# Every run damaged one response: the count proves it.
		[ "$total" -ge "$FAULT_ITER" ] ||
			echo "$a: only $total damaged responses" >> "$FD/fail"
		rm -f "$FD/mut.$a"
	done
	fail_report
}

@test "fault: RETRY/YIELDED on every other command is retried and succeeds" {
	prep_state
	local a i
	rm -f "$FD/fail"
	for a in $(applets); do
		recipe "$a" || continue
		proxy_start retry 1 "$FD/stats"
		for i in 1 2; do
			one_run "$a" retry "$i"
			[[ " $PASSRC " == *" $RC "* ]] ||
				echo "$a: exit $RC under retry: $ERR" >> "$FD/fail"
			if [ "$RC" -eq 0 ] && [ -n "$OUT" ] &&
			   [ "$OUTFILE" = 1 ] && [ ! -e "$OUT" ]; then
				echo "$a: no output under retry" >> "$FD/fail"
			fi
		done
		proxy_stop
		grep -q 'mutated=[1-9]' "$FD/stats" ||
			echo "$a: the proxy answered no RETRY" >> "$FD/fail"
		rm -f "$FD/stats"
	done
	fail_report
}

# slow_one APPLET MODE WANT_RC WANT_MSG: one run through its own proxy
# (own socket, own output path), so every applet waits out its timeout at
# the same time.  Prints a failure line, or nothing.
slow_one() {
	local a=$1 m=$2 want=$3 msg=$4 d="$SOCKD/$1.$2" pid t0 t1 ms rc err=""
	local args=() x
	recipe "$a"
	[ -z "$FAILRC" ] || want=$FAILRC
	mkdir -p "$d"
	for x in "${ARGS[@]}"; do
		[ -n "$OUT" ] && [ "$x" = "$OUT" ] && x=$d/out
		args+=("$x")
	done
	"$PROXY" -l "$d/p.sock" -t "$SWTPM_DIR/sock" -m "$m" -k 1 \
		-s "$FAULT_SEED" -F >/dev/null 2>&1 3>&- &
	pid=$!
	for _ in $(seq 1 100); do [ -S "$d/p.sock" ] && break; sleep 0.01; done
	t0=$EPOCHREALTIME
	timeout -s KILL 10 "$TPMBOX" --timeout 2 -T "swtpm:path=$d/p.sock" \
		"${args[@]}" >/dev/null 2>"$d/stderr" && rc=0 || rc=$?
	t1=$EPOCHREALTIME
	kill "$pid" 2>/dev/null
	IFS= read -r err < "$d/stderr" || true
	ms=$(( (10#${t1/./} - 10#${t0/./}) / 1000 ))
	if [ "$rc" -ne "$want" ] || [[ "$err" != "tpmbox ${a%%-*}: "*"$msg"* ]]; then
		echo "$a/$m: exit $rc (want $want): $err"
	elif [ "$ms" -gt "$LIMIT_MS" ]; then
		echo "$a/$m: took $ms ms (timeout 2 s)"
	elif [ -e "$d/out" ] || compgen -G "$d/out.tmp.*" >/dev/null; then
		echo "$a/$m: left an output file"
	fi
}

slow_all() {	# MODE WANT_RC WANT_MSG
	local a
	rm -f "$FD/fail"
	for a in $(applets); do
		recipe "$a" || continue
		slow_one "$a" "$@" >> "$FD/fail" &
	done
	wait
	[ -s "$FD/fail" ] || rm -f "$FD/fail"
	fail_report
}

@test "fault: RETRY forever gives up within the timeout, exit 1" {
	prep_state
	slow_all retryall 1 TPM_RC_RETRY
}

@test "fault: a TPM that never answers times out, exit 3" {
	prep_state
	slow_all stall 3 "did not answer within 2 s"
}

@test "fault: after a timeout the cleanup gets 1 s in all, not another timeout per flush" {
	# On a fresh TPM (no SRK persisted), seed 2 with -k 4 stalls seal's
	# 4th command, StartAuthSession after the CreatePrimary of the SRK;
	# the transient SRK's FlushContext follows.  Before, that flush waited
	# another full --timeout: 4 s in all.
	local d=$SOCKD/cleanup t0 t1 rc sp pp
	mkdir -p "$d/tpm"
	swtpm socket --tpm2 --server type=unixio,path="$d/sock" \
		--ctrl type=unixio,path="$d/ctrl" --tpmstate dir="$d/tpm" \
		--flags not-need-init,startup-clear >/dev/null 2>&1 &
	sp=$!
	for _ in $(seq 1 100); do [ -S "$d/sock" ] && break; sleep 0.01; done
	"$PROXY" -l "$d/p.sock" -t "$d/sock" -m stall -k 4 -s 2 -F >/dev/null 2>&1 3>&- &
	pp=$!
	for _ in $(seq 1 100); do [ -S "$d/p.sock" ] && break; sleep 0.01; done
	t0=$EPOCHREALTIME
	"$TPMBOX" --timeout 2 --trace -T "swtpm:path=$d/p.sock" seal -o "$d/b" \
		"$FD/data32" >/dev/null 2>"$d/err" && rc=0 || rc=$?
	t1=$EPOCHREALTIME
	kill "$pp" "$sp" 2>/dev/null || true
	[ "$rc" = 3 ]
	grep -q "TPM2_StartAuthSession: .* did not answer within 2 s" "$d/err"
	# the flush was tried after the stalled command (else the seed no
	# longer hits this spot: pick another)
	sed -n '/> TPM2_StartAuthSession/,$p' "$d/err" | grep -q "> TPM2_FlushContext"
	ms=$(( (10#${t1/./} - 10#${t0/./}) / 1000 ))
	echo "# took $ms ms" >&3
	[ "$ms" -lt 3600 ]
	[ ! -e "$d/b" ]
}

@test "fault: a TPM that stops mid-response times out, exit 3" {
	prep_state
	slow_all stallmid 3 "did not answer within 2 s"
}

@test "fault: the proxy really damages (a check that can fail)" {
	# The same run passes in pass mode; closing mid-response must fail
	# every time, with exit 3 and nothing written.  Else the suite
	# proves nothing.
	recipe getrandom
	rm -f "$FD/fail" "$FD/stats"
	proxy_start close 1 "$FD/stats"
	: > "$FD/rcs"
	for i in 1 2 3 4 5; do one_run getrandom close "$i"; done
	proxy_stop
	fail_report
	[ "$(sort -u "$FD/rcs")" = 3 ]
	[ "$(grep -c 'mutated=1' "$FD/stats")" = 5 ]
}

@test "fault: a forged TPM 1.2 answer to a 2.0 blob's first command is asked again: exit 3, the answers inconsistent, not 'sealed on a TPM 2.0'" {
	TPMBOX_TCTI=$REAL_TCTI "$TPMBOX" seal -o "$FD/fam.blob" "$FD/data32"
	# answer 0 (unseal's first command) gets a TPM 1.2's tag
	rm -f "$SOCKD/p.sock"
	"$PROXY" -l "$SOCKD/p.sock" -t "$SWTPM_DIR/sock" -m set -k 1 \
		-e 0:0:0x00:0xc4 -s 1 -o "$FD/fam.st" -F >/dev/null 2>&1 3>&- &
	PP=$!
	for _ in $(seq 1 300); do [ -S "$SOCKD/p.sock" ] && break; sleep 0.01; done
	run "$TPMBOX" -T "swtpm:path=$SOCKD/p.sock" unseal "$FD/fam.blob"
	proxy_stop
	assert_failure 3
	assert_output --partial "the TPM's answers are inconsistent: it answered as a TPM 1.2, then as a TPM 2.0"
	refute_output --partial "sealed on a TPM 2.0"
	grep -q 'mutated=1' "$FD/fam.st"
	# undamaged, the same blob unseals
	TPMBOX_TCTI=$REAL_TCTI "$TPMBOX" unseal "$FD/fam.blob" | cmp - "$FD/data32"
}
