# Shared by every bats suite: the binary under test, a private swtpm per
# suite, tpm2-tools pointed at the same swtpm.
#
#   setup_file()    { swtpm_start; }          # unix socket (default)
#   setup_file()    { swtpm_start tcp; }      # TCP data channel
#   teardown_file() { swtpm_stop; }
#
# After swtpm_start: $SWTPM_DIR (state, sockets), TPMBOX_TCTI and
# TPM2TOOLS_TCTI exported, $SWTPM_PORT for tcp.

bats_load_library bats-support
bats_load_library bats-assert

TPMBOX=${TPMBOX:-$(cd "$BATS_TEST_DIRNAME/.." && pwd)/tpmbox}
export TPMBOX

tb() { "$TPMBOX" "$@"; }

# shellcheck source=tests/helpers/tools.bash
. "$BATS_TEST_DIRNAME/helpers/tools.bash"

# A free TCP port pair (P, P+1) on loopback, below the kernel's ephemeral
# range: a port there can be the local end of a client's connection (or
# its TIME_WAIT) that a connect test does not see, and a server's bind
# then fails.  Suites start hundreds of servers and clients in one run.
free_port() {
	local p low
	low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	[ -n "$low" ] && [ "$low" -gt 12000 ] || low=32768
	for _ in $(seq 1 50); do
		p=$(( (RANDOM % (low - 10002)) + 10000 ))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null &&
		   ! (exec 3<>/dev/tcp/127.0.0.1/$((p+1))) 2>/dev/null; then
			echo "$p"; return 0
		fi
	done
	return 1
}

# swtpm_start [unix|tcp] [extra swtpm flags...]
swtpm_start() {
	local kind=${1:-unix}; shift || true
	SWTPM_DIR=$(mktemp -d "${BATS_FILE_TMPDIR:-/tmp}/swtpm.XXXXXX")
	export SWTPM_DIR
	# what lockdown remembers (lib/job/handoff.c), per swtpm, not /run
	export TPMBOX_RUN_DIR="$SWTPM_DIR/run"
	# swtpm_restart starts it again with the same extra flags.
	[ $# -gt 0 ] && printf '%s\n' "$@" >"$SWTPM_DIR/extra-flags"
	if [ "$kind" = tcp ]; then
		SWTPM_PORT=$(free_port)
		export SWTPM_PORT
		swtpm socket --tpm2 \
			--server type=tcp,port=$SWTPM_PORT,bindaddr=127.0.0.1 \
			--ctrl type=tcp,port=$((SWTPM_PORT+1)),bindaddr=127.0.0.1 \
			--tpmstate dir="$SWTPM_DIR" \
			--flags not-need-init,startup-clear \
			--pid file="$SWTPM_DIR/pid" "$@" \
			>"$SWTPM_DIR/swtpm.out" 2>&1 &
		export TPMBOX_TCTI="swtpm:host=127.0.0.1,port=$SWTPM_PORT"
	else
		swtpm socket --tpm2 \
			--server type=unixio,path="$SWTPM_DIR/sock" \
			--ctrl type=unixio,path="$SWTPM_DIR/sock.ctrl" \
			--tpmstate dir="$SWTPM_DIR" \
			--flags not-need-init,startup-clear \
			--pid file="$SWTPM_DIR/pid" "$@" \
			>"$SWTPM_DIR/swtpm.out" 2>&1 &
		export TPMBOX_TCTI="swtpm:path=$SWTPM_DIR/sock"
	fi
	export TPM2TOOLS_TCTI=$TPMBOX_TCTI
	swtpm_wait swtpm
}

# swtpm_wait LABEL: until the data channel accepts a command (5 s).
swtpm_wait() {
	for _ in $(seq 1 100); do
		[ -s "$SWTPM_DIR/pid" ] && "$TPMBOX" getrandom 1 >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "$1 did not start: $(cat "$SWTPM_DIR/swtpm.out")" >&2
	return 1
}

# swtpm12_start [extra swtpm flags...]: swtpm in TPM 1.2 mode on a unix
# socket, with an EK and NV locked as on a real chip (swtpm_setup
# --createek --lock-nvram, about 1 s), started with TPM_Startup(ST_CLEAR).
# swtpm_stop stops it.
swtpm12_start() {
	SWTPM_DIR=$(mktemp -d "${BATS_FILE_TMPDIR:-/tmp}/swtpm12.XXXXXX")
	export SWTPM_DIR
	# what lockdown remembers (lib/job/handoff.c), per swtpm, not /run
	export TPMBOX_RUN_DIR="$SWTPM_DIR/run"
	if ! swtpm_setup --tpm-state "$SWTPM_DIR" --createek --lock-nvram \
		>"$SWTPM_DIR/setup.out" 2>&1; then
		echo "swtpm_setup failed: $(cat "$SWTPM_DIR/setup.out")" >&2
		return 1
	fi
	swtpm socket \
		--server type=unixio,path="$SWTPM_DIR/sock" \
		--ctrl type=unixio,path="$SWTPM_DIR/sock.ctrl" \
		--tpmstate dir="$SWTPM_DIR" \
		--flags not-need-init,startup-clear \
		--pid file="$SWTPM_DIR/pid" "$@" \
		>"$SWTPM_DIR/swtpm.out" 2>&1 &
	export TPMBOX_TCTI="swtpm:path=$SWTPM_DIR/sock"
	unset TPM2TOOLS_TCTI
	swtpm_wait "swtpm 1.2"
}

# swtpm_ekcert_start: a TPM 2.0 swtpm manufactured as a vendor would
# (swtpm_setup --tpm2 --create-ek-cert, about 1.5 s): an RSA-2048 EK at
# 0x81010001 with its certificate at 0x01c00002 and a P-384 (H-3) EK at
# 0x81010016 with its certificate at 0x01c00016, signed by a swtpm-localca
# of the suite's own ($SWTPM_DIR/ca: the root swtpm-localca-rootca-cert.pem
# and the intermediate issuercert.pem; nothing in /etc or /var/lib).
# swtpm_stop stops it.
swtpm_ekcert_start() {
	SWTPM_DIR=$(mktemp -d "${BATS_FILE_TMPDIR:-/tmp}/swtpm.XXXXXX")
	export SWTPM_DIR
	# what lockdown remembers (lib/job/handoff.c), per swtpm, not /run
	export TPMBOX_RUN_DIR="$SWTPM_DIR/run"
	mkdir -p "$SWTPM_DIR/ca"
	cat >"$SWTPM_DIR/localca.conf" <<-EOF
	statedir = $SWTPM_DIR/ca
	signingkey = $SWTPM_DIR/ca/signkey.pem
	issuercert = $SWTPM_DIR/ca/issuercert.pem
	certserial = $SWTPM_DIR/ca/certserial
	EOF
	printf '%s\n' '--platform-manufacturer tpmbox' \
		'--platform-version 1.0' '--platform-model test' \
		>"$SWTPM_DIR/localca.options"
	cat >"$SWTPM_DIR/setup.conf" <<-EOF
	create_certs_tool = $(command -v swtpm_localca)
	create_certs_tool_config = $SWTPM_DIR/localca.conf
	create_certs_tool_options = $SWTPM_DIR/localca.options
	EOF
	if ! swtpm_setup --tpm2 --tpmstate "$SWTPM_DIR" --create-ek-cert \
		--config "$SWTPM_DIR/setup.conf" --overwrite \
		>"$SWTPM_DIR/setup.out" 2>&1; then
		echo "swtpm_setup failed: $(cat "$SWTPM_DIR/setup.out")" >&2
		return 1
	fi
	swtpm socket --tpm2 \
		--server type=unixio,path="$SWTPM_DIR/sock" \
		--ctrl type=unixio,path="$SWTPM_DIR/sock.ctrl" \
		--tpmstate dir="$SWTPM_DIR" \
		--flags not-need-init,startup-clear \
		--pid file="$SWTPM_DIR/pid" \
		>"$SWTPM_DIR/swtpm.out" 2>&1 &
	export TPMBOX_TCTI="swtpm:path=$SWTPM_DIR/sock"
	export TPM2TOOLS_TCTI=$TPMBOX_TCTI
	swtpm_wait "swtpm (EK certificates)"
}

swtpm_pid() { cat "$SWTPM_DIR/pid" 2>/dev/null; }

# nv_put INDEX FILE: replace an EK certificate index by one holding FILE
# (owner-defined, ownerread|authread like the vendor's).
nv_put() {
	tpm2_nvundefine -C p "$1" >/dev/null 2>&1 ||
		tpm2_nvundefine -C o "$1" >/dev/null 2>&1 || true
	tpm2_nvdefine -C o -s "$(stat -c %s "$2")" \
		-a "ownerwrite|ownerread|authread|authwrite|no_da" "$1" >/dev/null
	tpm2_nvwrite -C o -i "$2" "$1" >/dev/null
}

# faultproxy_build OUT: tests/helpers/faultproxy.c (a TPM that damages
# one answer per connection) built at OUT.
faultproxy_build() {
	cc -O2 -Wall -Wextra -Werror -o "$1" \
		"$BATS_TEST_DIRNAME/helpers/faultproxy.c" \
		"$BATS_TEST_DIRNAME/helpers/proxy.c"
}

# interposer_build OUT: tests/helpers/interposer.c (an active attacker
# on the bus) built at OUT.
interposer_build() {
	local root
	root=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror \
		-I"$root/include" -o "$1" \
		"$root/tests/helpers/interposer.c" \
		"$root/tests/helpers/proxy.c" "$root/lib/base/buf.c" \
		"$root/lib/crypto/hash.c" "$root/lib/crypto/kdf.c" \
		"$root/lib/crypto/pk.c" "$root/lib/crypto/sym.c" \
		"$root/lib/base/der.c" "$root/lib/base/pem.c" \
		"$root/lib/base/err.c" \
		-lmbedcrypto
}

swtpm_stop() {
	local pid
	pid=$(swtpm_pid)
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	for _ in $(seq 1 50); do
		[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	{ [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; } || true
	true
}

# Restart swtpm on the same state (a reboot: PCRs reset, NV kept).
swtpm_restart() {
	local kind=unix
	[ -n "${SWTPM_PORT:-}" ] && kind=tcp
	local dir=$SWTPM_DIR extra=()
	swtpm_stop
	SWTPM_DIR=$dir
	[ -s "$SWTPM_DIR/extra-flags" ] && mapfile -t extra <"$SWTPM_DIR/extra-flags"
	# reuse the directory
	if [ "$kind" = tcp ]; then
		swtpm socket --tpm2 \
			--server type=tcp,port=$SWTPM_PORT,bindaddr=127.0.0.1 \
			--ctrl type=tcp,port=$((SWTPM_PORT+1)),bindaddr=127.0.0.1 \
			--tpmstate dir="$SWTPM_DIR" \
			--flags not-need-init,startup-clear \
			--pid file="$SWTPM_DIR/pid" "${extra[@]}" \
			>>"$SWTPM_DIR/swtpm.out" 2>&1 &
	else
		rm -f "$SWTPM_DIR/sock" "$SWTPM_DIR/sock.ctrl"
		swtpm socket --tpm2 \
			--server type=unixio,path="$SWTPM_DIR/sock" \
			--ctrl type=unixio,path="$SWTPM_DIR/sock.ctrl" \
			--tpmstate dir="$SWTPM_DIR" \
			--flags not-need-init,startup-clear \
			--pid file="$SWTPM_DIR/pid" "${extra[@]}" \
			>>"$SWTPM_DIR/swtpm.out" 2>&1 &
	fi
	for _ in $(seq 1 100); do
		"$TPMBOX" getrandom 1 >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

# tpm2-tools leave objects loaded without a resource manager.
t2_flush() { tpm2_flushcontext -t >/dev/null 2>&1; tpm2_flushcontext -l >/dev/null 2>&1; tpm2_flushcontext -s >/dev/null 2>&1; true; }

# tpm2_pcrread's YAML as pcrread's text ("bank:index hex", lowercase), in
# the order tpm2_pcrread prints.  Usage: t2_pcrread_text [SELECTION]
t2_pcrread_text() {
	tpm2_pcrread "$@" | awk '
		/^  [a-z0-9_]+:[ \t]*$/ { b = $1; sub(/:$/, "", b); next }
		/^    *[0-9]+ *: *0x/ { i = $1; sub(/:.*/, "", i);
			h = $NF; sub(/^0x/, "", h);
			print b ":" i " " tolower(h) }'
}

# The allocated banks per tpm2_getcap pcrs, one per line, in TPM order.
t2_banks() {
	tpm2_getcap pcrs | awk '/^  - [a-z0-9_]+:/ { b = $2; sub(/:$/, "", b);
		if ($0 !~ /\[ *\]/) print b }'
}

# not CMD...: CMD must fail (a plain '! CMD' never fails a bats test)
not() {
	if "$@"; then
		echo "expected to fail: $*" >&2
		return 1
	fi
}

# pem_cut LABEL FILE: the PEM blocks of that label in FILE
pem_cut() {
	sed -n "/^-----BEGIN $1-----\$/,/^-----END $1-----\$/p" "$2"
}
