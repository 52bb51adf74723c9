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
LDLIBS := -lmbedcrypto

APPLET_SRC := $(sort $(wildcard applets/*.c))
APPLETS := $(basename $(notdir $(APPLET_SRC)))
LIB_SRC := $(sort $(wildcard lib/*.c lib/*/*.c))
SRC := main.c $(APPLET_SRC) $(LIB_SRC)
OBJ := $(patsubst %.c,$(BUILD)/%.o,$(SRC))
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRC))

BIN ?= tpmbox

all: $(BIN)

$(BIN): $(OBJ)
	$(CC) $(ALL_CFLAGS) $(STATIC) -o $@ $(OBJ) $(LDFLAGS) $(LDLIBS)

# The applet table, generated from the file names in applets/.
$(BUILD)/applets.h: $(APPLET_SRC) Makefile
	@mkdir -p $(BUILD)
	@{ printf '#define APPLET_EXTERNS'; \
	   for a in $(APPLETS); do printf ' extern const struct applet applet_%s;' $$a; done; \
	   printf '\n#define APPLET_TABLE'; \
	   for a in $(APPLETS); do printf ' &applet_%s,' $$a; done; \
	   printf '\n'; } > $@.tmp && mv $@.tmp $@

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

deps:
	@sh tests/helpers/install-deps.sh

check: deps
	@$(MAKE) --no-print-directory $(BIN) unit-bin
	@TPMBOX=$(abspath $(BIN)) BUILD=$(BUILD) bash tests/run-all.sh

demo: $(BIN)
	@TPMBOX=$(abspath $(BIN)) bash tests/helpers/demo.sh

bench: $(BIN)
	@TPMBOX=$(abspath $(BIN)) bash bench/bench.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tpmbox
	for a in $(APPLETS); do ln -sf tpmbox $(DESTDIR)$(PREFIX)/bin/$$a; done
	install -m 0644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 completions/tpmbox.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/tpmbox
	for a in $(APPLETS); do ln -sf tpmbox \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$a; done

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
vmtest: deps $(BIN)
	@TPMBOX=$(abspath $(BIN)) VM_DIR=$(BUILD)/vm bash tests/vm/run.sh

# Regenerate the bash completion from the applets' --help.
completion: $(BIN)
	bash completions/gen.sh ./$(BIN) > completions/tpmbox.bash.tmp
	mv completions/tpmbox.bash.tmp completions/tpmbox.bash

clean:
	rm -rf $(BUILD) $(BIN)

.PHONY: all fuzz fuzz-coverage asan static vmtest completion unit unit-bin deps check demo bench install clean
