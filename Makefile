# vmpressure-ctl: top-level targets. See README.md.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=

# Lanes that make check boots; make check-matrix boots every lane.
TIER1_LANES := 6.1 6.12
TIER2_LANES := $(filter-out $(TIER1_LANES),$(notdir $(wildcard tests/vm/lanes/*)))
DEMO_LANE := 6.1

.PHONY: all module tools deps check lint unit check-dkms check-vm check-tier2 check-matrix \
	demo bench install clean

all: module tools

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

tools:
	$(MAKE) -C tools

deps:
	scripts/deps build unit lint dkms vm

check: deps lint unit check-dkms check-vm

lint:
	scripts/lint

# Unit and host tests, then once more built with ASan and UBSan.
unit:
	$(MAKE) -C tests/unit run
	$(MAKE) -C tests/unit run SANITIZE=1

check-dkms:
	tests/dkms/run

check-vm:
	tests/vm/run $(TIER1_LANES)

check-tier2:
	scripts/deps vm cross chroot
	tests/vm/run $(TIER2_LANES)

check-matrix: check check-tier2

demo:
	scripts/deps vm
	tests/vm/run --demo $(DEMO_LANE)

bench:
	scripts/deps vm bench
	bench/run

install: tools
	$(MAKE) -C tools install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/module clean 2>/dev/null
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	rm -rf build
