# tpmbox: one static binary.  make | make check | make demo | make bench
CC ?= cc
VERSION := 0.1
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build

HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(HARDEN) -Iinclude \
	-I$(BUILD) -DTPMBOX_VERSION='"$(VERSION)"' $(CFLAGS)
STATIC ?= -static
LDLIBS := -lmbedx509 -lmbedcrypto

# OMIT_APPLETS: applets a build leaves out (the small build's TINY_OMIT).
APPLET_SRC := $(filter-out $(OMIT_APPLETS:%=applets/%.c),\
	$(sort $(wildcard applets/*.c)))
APPLETS := $(basename $(notdir $(APPLET_SRC)))
LIB_SRC := $(sort $(wildcard lib/*/*.c))
# EXTRA_SRC: generated sources a build adds (the small build's packed help).
SRC := main.c applet.c $(APPLET_SRC) $(LIB_SRC) $(EXTRA_SRC)
OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SRC))
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))

BIN ?= tpmbox

all: $(BIN)

$(BIN): $(OBJ)
	$(CC) $(ALL_CFLAGS) $(STATIC) -o $@ $(OBJ) $(LDFLAGS) $(LDLIBS)

# The applet table, generated from the file names in applets/ (every
# run; replaced only when the list changed, OMIT_APPLETS included).
$(BUILD)/applets.h: FORCE
	@mkdir -p $(BUILD)
	@{ printf '#define APPLET_EXTERNS'; \
	   for a in $(APPLETS); do printf ' extern const struct applet applet_%s;' $$a; done; \
	   printf '\n#define APPLET_TABLE'; \
	   for a in $(APPLETS); do printf ' &applet_%s,' $$a; done; \
	   printf '\n'; } > $@.tmp && \
	 { cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }
FORCE:

$(BUILD)/main.o: $(BUILD)/applets.h

$(BUILD)/%.o: %.c $(wildcard include/*.h include/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/unit/%: tests/unit/%.c $(LIB_OBJ) tests/unit/unit.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIB_OBJ) $(LDLIBS)

unit-bin: $(UNIT_BIN)

unit: $(UNIT_BIN)
	@fail=0; for t in $(UNIT_BIN); do $$t || fail=1; done; exit $$fail

# The small static build: musl-gcc and an mbedTLS of tpmbox's own
# configuration (tiny/mbedtls-config.h) built from Debian's mbedtls source
# package (tiny/mbedtls.sh), -Os, one section per function, unused ones
# dropped by the linker, stripped.  The glibc build above stays the
# default.  make check runs every bats suite on it too.
# ARCH=arm64|armhf|s390x|riscv64 (issue 28): the same small build for a
# board's CPU, by a cross compiler (install-deps.sh cross), into names and
# build directories of its own (tpmbox-tiny-ARCH, build/tiny-ARCH); make
# check runs them under qemu-user (tests/cross.bats).  musl for arm64,
# armhf and s390x (big-endian); Debian 12 has no riscv64 musl, so that
# one is a static glibc build.  Without ARCH: this machine's (x86-64).
ARCH ?=
CROSS_ARCHES := arm64 armhf s390x riscv64
CROSS_CC_arm64 := aarch64-linux-musl-gcc
CROSS_CC_armhf := arm-linux-musleabihf-gcc
CROSS_CC_s390x := s390x-linux-musl-gcc
CROSS_CC_riscv64 := riscv64-linux-gnu-gcc
# the cross binutils' archiver with the LTO plugin of that gcc
CROSS_AR_arm64 := aarch64-linux-gnu-gcc-ar
CROSS_AR_armhf := arm-linux-gnueabihf-gcc-ar
CROSS_AR_s390x := s390x-linux-gnu-gcc-ar
CROSS_AR_riscv64 := riscv64-linux-gnu-gcc-ar
ifneq ($(ARCH),)
ifeq ($(filter $(ARCH),$(CROSS_ARCHES)),)
$(error ARCH=$(ARCH): one of $(CROSS_ARCHES), or none for this machine's)
endif
endif
ARCH_SUFFIX := $(if $(ARCH),-$(ARCH))
TINY_BUILD ?= $(BUILD)/tiny$(ARCH_SUFFIX)
TINY_BIN ?= tpmbox-tiny$(ARCH_SUFFIX)
TINY_CC ?= $(if $(ARCH),$(CROSS_CC_$(ARCH)),musl-gcc)
TINY_AR ?= $(if $(ARCH),$(CROSS_AR_$(ARCH)),gcc-ar)
# One mbedTLS source tree (Debian's, fetched once) for every ARCH's build.
TINY_MBEDTLS_SRC ?= $(BUILD)/tiny/mbedtls/src
# -z norelro: musl's static start-up never makes the RELRO pages read-only
# (measured: they stay rw-p), so the segment's page alignment buys nothing.
TINY_MBEDTLS ?= $(TINY_BUILD)/mbedtls
TINY_LDFLAGS ?= -Wl,--gc-sections -s -Wl,-z,noseparate-code -flto=auto -flto-partition=one -Oz \
	-Wl,--build-id=none -Wl,-z,norelro -L$(TINY_MBEDTLS)
TINY_CFLAGS ?= -Oz -ffunction-sections -fdata-sections \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -flto=auto
# Applets the small build leaves out, whose size would pass the guard in
# tests/dispatch.bats (docs/tiny.md); their suites skip there: policysign
# and pcrpredict, host-side work that runs where the signing key or the
# new boot files are, not in an initramfs; and ppi (about 10 KiB, past
# the guard), whose requests the firmware runs at the next boot, so a
# full system can send them; and ekcert, whose X.509 path validation is
# mbedTLS's X.509 layer, which tiny/mbedtls-config.h leaves out (the
# small build links libmbedcrypto only): a verifier checks the EK
# certificate, not the initramfs; and the keys in the TPM (keyimport,
# keycreate, sign, decrypt, bind, unbind), run on a full system, never at
# boot; and luks (issue 27): its list is for a full system for now, and
# the LUKS2 readers cost about 26 KiB here, past the guard; unlock will
# go into the initramfs profile when it exists (docs/tiny.md).
# shutdown and lockdown (issue 29, the hand-off): past the guard (1.4 KiB
# and 6.5 KiB here); shutdown costs the initramfs profile 4.1 KiB.
TINY_OMIT ?= policysign pcrpredict ppi ekcert keyimport keycreate sign decrypt bind unbind luks shutdown lockdown totp
# The SPI and I2C transports (-T spi:, -T i2c:; lib/tpm/tis.c, spi.c,
# i2c.c: 8.7 KiB here) would pass the guard: the small build leaves
# them out unless TINY_TIS=1 (docs/tiny.md, "A TPM on SPI or I2C").
TINY_NO_TIS := $(if $(TINY_TIS),,-DTPMBOX_NO_TIS)
# The small build keeps the applets' --help texts packed (about 42 KiB of
# text in 12 KiB, tiny/packhelp.c): taken from the default build's
# output, so `tpmbox-tiny A --help` prints the very same bytes.
# (TINY_HELP_FROM: the default build, also inside the inner make below,
# where BIN is the small one)
TINY_HELP := $(TINY_BUILD)/help/packed.c
TINY_HELP_FROM ?= $(BIN)
$(TINY_HELP): $(TINY_HELP_FROM) tiny/packhelp.c
	@mkdir -p $(dir $@)
	@cc -O2 -o $(TINY_BUILD)/help/packhelp tiny/packhelp.c
	@for a in $$(./$(TINY_HELP_FROM) --list | awk '{print $$1}'); do \
		case " $(TINY_OMIT) " in *" $$a "*) continue ;; esac; \
		printf '%s\0' "$$a"; ./$(TINY_HELP_FROM) "$$a" --help || exit 1; printf '\0'; \
	 done > $(TINY_BUILD)/help/plain
	@$(TINY_BUILD)/help/packhelp < $(TINY_BUILD)/help/plain > $@.tmp && mv $@.tmp $@

tiny:
	@command -v $(TINY_CC) >/dev/null && [ -e /usr/include/mbedtls/version.h ] || \
		sh tests/helpers/install-deps.sh $(if $(ARCH),cross,tiny)
	@$(MAKE) --no-print-directory $(TINY_HELP)
	@TINY_AR=$(TINY_AR) MBEDTLS_SRC=$(abspath $(TINY_MBEDTLS_SRC)) \
		sh tiny/mbedtls.sh $(TINY_MBEDTLS) $(TINY_CC) $(TINY_CFLAGS)
	@[ ! $(TINY_BIN) -ot $(TINY_MBEDTLS)/libmbedcrypto.a ] || rm -f $(TINY_BIN)
	@# TINY_TIS changed since the last build: transport.c is built again
	@echo "$(TINY_NO_TIS)" | cmp -s - $(TINY_BUILD)/tis.flag || { mkdir -p $(TINY_BUILD) && \
		rm -f $(TINY_BUILD)/obj/lib/tpm/transport.o && echo "$(TINY_NO_TIS)" > $(TINY_BUILD)/tis.flag; }
	@$(MAKE) --no-print-directory BUILD=$(TINY_BUILD)/obj BIN=$(TINY_BIN) \
		TINY_HELP_FROM=$(BIN) CC=$(TINY_CC) LDFLAGS="$(TINY_LDFLAGS)" LDLIBS=-lmbedcrypto \
		OMIT_APPLETS="$(TINY_OMIT)" \
		EXTRA_SRC=$(TINY_HELP) \
		CFLAGS="$(TINY_CFLAGS) -I$(TINY_MBEDTLS_SRC)/include -Itiny $(TINY_NO_TIS) \
		-DTPMBOX_PACKED_HELP -DMBEDTLS_CONFIG_FILE='\"mbedtls-config.h\"'" $(TINY_BIN)
	@echo "$(TINY_BIN): $$(stat -c %s $(TINY_BIN)) bytes"

# The initramfs profile: the small build with only what the unlock
# keyscript runs (unseal, recover, extend; initramfs/tpmbox-unlock) and
# two readers for a rescue shell (pcrread, getrandom), for an image where
# every KiB counts (docs/tiny.md: issue 13's 256 KiB).  Same mbedTLS and
# flags as make tiny; the other applets are left out.
INITRAMFS_APPLETS ?= unseal recover extend pcrread getrandom
INITRAMFS_BIN ?= tpmbox-initramfs$(ARCH_SUFFIX)
tiny-initramfs: $(BIN)
	@$(MAKE) --no-print-directory tiny TINY_BUILD=$(BUILD)/tiny-initramfs$(ARCH_SUFFIX) \
		TINY_MBEDTLS=$(TINY_BUILD)/mbedtls TINY_BIN=$(INITRAMFS_BIN) \
		TINY_OMIT="$$(./$(BIN) --list | awk '{print $$1}' | \
			grep -vxF $(INITRAMFS_APPLETS:%=-e %) | tr '\n' ' ')"

# Missing Debian packages are installed when root, else named (exit 1).
deps:
	@sh tests/helpers/install-deps.sh check

demo-deps:
	@sh tests/helpers/install-deps.sh demo

check: deps
	@$(MAKE) --no-print-directory $(BIN) unit-bin tiny
	@$(MAKE) --no-print-directory tiny-initramfs
	@# the builds for boards' CPUs, run under qemu-user (tests/run-all.sh)
	@[ -n "$$CHECK_QUICK" ] && [ -z "$$CHECK_CROSS" ] || \
	 for a in $(CROSS_ARCHES); do \
		$(MAKE) --no-print-directory tiny tiny-initramfs ARCH=$$a || exit 1; \
	 done
	@TPMBOX=$(abspath $(BIN)) TPMBOX_TINY=$(abspath $(TINY_BIN)) \
		TPMBOX_INITRAMFS=$(abspath $(INITRAMFS_BIN)) \
		BUILD=$(BUILD) bash tests/run-all.sh

demo: demo-deps
	@$(MAKE) --no-print-directory $(BIN)
	@TPMBOX=$(abspath $(BIN)) bash tests/helpers/demo.sh

# The README's two commands on a fresh Debian 12 minbase root (debootstrap,
# chroot; root only).  Not part of check: it takes as long again.
freshcheck:
	@bash tests/helpers/freshcheck.sh

# (and the builds for boards' CPUs: their sizes and cost under qemu-user)
bench: $(BIN) tiny
	@$(MAKE) --no-print-directory tiny-initramfs
	@for a in $(CROSS_ARCHES); do \
		$(MAKE) --no-print-directory tiny tiny-initramfs ARCH=$$a || exit 1; \
	 done
	@TPMBOX=$(abspath $(BIN)) TPMBOX_TINY=$(abspath $(TINY_BIN)) \
		TPMBOX_INITRAMFS=$(abspath $(INITRAMFS_BIN)) TPMBOX_CROSS_DIR=$(CURDIR) \
		bash bench/bench.sh

# The binary goes on PATH; the applet links go to a libexec directory of
# their own, where no name can replace another package's file (GNU info's
# /usr/bin/info); `tpmbox --install DIR` puts them on PATH for those who
# want them there.  Man pages are tpmbox-APPLET(1).
LIBEXECDIR ?= $(PREFIX)/libexec/tpmbox
# The initramfs integration (docs/initramfs.md): where initramfs-tools,
# cryptsetup's keyscripts and dracut look, whatever PREFIX is.
INITRAMFS_TOOLS_DIR ?= /usr/share/initramfs-tools
KEYSCRIPT_DIR ?= /lib/cryptsetup/scripts
DRACUT_MODULES_DIR ?= /usr/lib/dracut/modules.d
SYSCONFDIR ?= /etc
install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBEXECDIR) \
		$(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tpmbox
	# the links of the applets the binary has (make tiny leaves some out)
	for a in $$($(abspath $(BIN)) --list | awk '{print $$1}'); do \
		ln -sf $(PREFIX)/bin/tpmbox $(DESTDIR)$(LIBEXECDIR)/$$a; done
	install -m 0644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 completions/tpmbox.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/tpmbox
	install -d $(DESTDIR)$(INITRAMFS_TOOLS_DIR)/hooks $(DESTDIR)$(KEYSCRIPT_DIR) \
		$(DESTDIR)$(DRACUT_MODULES_DIR)/90tpmbox $(DESTDIR)$(SYSCONFDIR)/tpmbox \
		$(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 initramfs/initramfs-tools/tpmbox \
		$(DESTDIR)$(INITRAMFS_TOOLS_DIR)/hooks/tpmbox
	install -m 0755 initramfs/tpmbox-unlock $(DESTDIR)$(KEYSCRIPT_DIR)/tpmbox-unlock
	install -m 0755 initramfs/tpmbox-unlock initramfs/dracut/90tpmbox/*.sh \
		$(DESTDIR)$(DRACUT_MODULES_DIR)/90tpmbox/
	[ -e $(DESTDIR)$(SYSCONFDIR)/tpmbox/initramfs.conf ] || install -m 0644 \
		initramfs/initramfs.conf $(DESTDIR)$(SYSCONFDIR)/tpmbox/initramfs.conf
	install -m 0644 man/*.8 $(DESTDIR)$(PREFIX)/share/man/man8/

# Fuzzing and sanitizers (issue 5; see docs/hardening.md).
FUZZ_SECONDS ?= 10
fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run.sh

fuzz-coverage:
	@bash tests/fuzz/run.sh --coverage

asan:
	@bash tests/asan.sh

static:
	@bash tests/static.sh

# A real kernel (Debian's, under QEMU/TCG with OVMF and swtpm; issue 13):
# see docs/vmtest.md.  Also a step of make check.
vmtest: deps $(BIN) tiny-initramfs
	@TPMBOX=$(abspath $(BIN)) TPMBOX_INITRAMFS=$(abspath $(INITRAMFS_BIN)) \
		VM_DIR=$(BUILD)/vm bash tests/vm/run.sh

# Regenerate the bash completion from the applets' --help.
completion: $(BIN)
	bash completions/gen.sh ./$(BIN) > completions/tpmbox.bash.tmp
	mv completions/tpmbox.bash.tmp completions/tpmbox.bash

clean:
	rm -rf $(BUILD) $(BIN) $(TINY_BIN) $(INITRAMFS_BIN) \
		$(CROSS_ARCHES:%=tpmbox-tiny-%) $(CROSS_ARCHES:%=tpmbox-initramfs-%)

.PHONY: FORCE all fuzz fuzz-coverage asan static vmtest completion unit unit-bin deps demo-deps check demo freshcheck tiny tiny-initramfs bench install clean
