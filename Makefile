# vmpressure-ctl: top-level targets. See README.md.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=

# Lanes that make check boots; make check-matrix (and .ci/run) every lane.
# ALONE_LANES: those whose file says alone=yes (scripts/check-parts).
TIER1_LANES := 6.1 6.1-service 6.12
ALONE_LANES := $(notdir $(shell grep -lx 'alone=yes' tests/vm/lanes/*))
DEBUG_LANES := 6.1-debug
TIER2_LANES := $(DEBUG_LANES) \
	$(filter-out $(TIER1_LANES) $(DEBUG_LANES),$(notdir $(wildcard tests/vm/lanes/*)))
DEMO_LANE := 6.1

# The dkms package: its name and version come from dkms.conf, its source is
# dkms.conf and the module's sources (never in-tree build output), under
# /usr/src where dkms looks whatever PREFIX is.
DKMS_NAME := $(shell sed -n 's/^PACKAGE_NAME="\(.*\)"$$/\1/p' dkms.conf)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_SOURCE_DIR := /usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
MODULE_SOURCES := module/Kbuild module/probe.sh \
	$(filter-out module/vmpc_config.h module/%.mod.c,$(wildcard module/*.[chS]))
# The module's man page, vmpressure_ctl(4), where make install puts it.
MODULE_MAN_PAGE = $(PREFIX)/share/man/man4/vmpressure_ctl.4
# Kernels make install builds the module for with dkms.
DKMS_KERNELS ?= $(shell uname -r)

# Copies the tree to directory $(1): what git tracks or would track (no
# build output), or, outside a git checkout, everything but build/.
copy_tree = mkdir -p $(1) && \
	if git rev-parse --git-dir >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t $(1); \
	else \
		tar -c --exclude=./build . | tar -x -C $(1); \
	fi

.PHONY: all module tools deps check lint unit check-harness check-build check-pkg check-pkg-vm \
	check-trixie check-vm check-tier2 check-hooks check-fleet check-matrix check-fresh debug-kernel demo demo-v2 bench deb \
	install-module-source install uninstall clean

all: module tools

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

tools:
	$(MAKE) -C tools

deps:
	scripts/deps build unit lint dkms vm workloads deb pkg chroot secureboot fleet $(if $(CHECK_TIER2),cross debug-kernel)

# make check's parts, run two at a time by scripts/check-parts, and unit or
# check-trixie, which mostly wait, in a third slot (longest chain first,
# builds niced, each to its end even when another failed; logs in
# build/check/), each lane a part of its own (lane-LANE). Each part
# installs its own scripts/deps groups: on a fresh machine apt's work then
# overlaps the other part's instead of holding every part back. With CHECK_TIER2=yes (.ci/run, make check-matrix) the same
# run takes the tier-2 lanes, the debug kernel's build before its lane,
# check-hooks and check-fleet (after check-pkg's packages; its two guests
# fill both slots).
CHECK_PARTS := lint unit check-harness check-build check-pkg check-pkg-vm:check-pkg check-trixie \
	$(addprefix lane-,$(TIER1_LANES))
TIER2_PARTS := debug-kernel $(foreach lane,$(TIER2_LANES),lane-$(lane)$(if $(filter $(lane),$(DEBUG_LANES)),:debug-kernel)) \
	check-hooks check-fleet:check-pkg
check:
	scripts/check-parts $(CHECK_PARTS) $(if $(CHECK_TIER2),$(TIER2_PARTS))

lint:
	scripts/deps lint build
	scripts/lint

# Unit and host tests built with ASan and UBSan (-O2, -Werror): they fail
# on whatever the plain build's run fails on, and on memory errors too. The
# plain build's run is check-trixie's, with Debian 13's compiler and
# libraries: the suite runs once per build, not twice on this host. The
# statistical calibrations and the Ansible play run in the plain build only
# (PLAIN_ONLY in tests/unit/Makefile).
unit:
	scripts/deps unit
	$(MAKE) -C tests/unit run SANITIZE=1

# The VM harness's own tests, on the host: verdict fixtures, policies.
check-harness:
	scripts/deps vm chroot
	tests/vm/check-harness

# module/ built for two kernels in one tree without a clean.
check-build:
	scripts/deps lint
	tests/build/run

# The packages: debian/tests/control's dkms stanza against autodep8's,
# lintian, their contents, make install/uninstall against a DESTDIR, then
# the real dpkg and dkms: install, kernel upgrade, signature, remove and
# purge; then their autopkgtests. The package build skips the unit tests:
# check runs them.
check-pkg: export DEB_BUILD_OPTIONS = nocheck
check-pkg: deb
	scripts/deps pkg
	tests/pkg/autodep8
	lintian --fail-on error,warning --info build/deb/*.deb
	tests/pkg/contents build/deb
	tests/pkg/make-install
	rm -rf build/pkg/vm
	tests/pkg/lifecycle build/deb build/pkg/vm
	tests/pkg/autopkgtest build/deb

# The package's VM lanes (tests/pkg/vm-lanes): one boot of each suite's
# kernel (PKG_VM_SUITES, SUITE:LANE) with Secure Boot on and
# module.sig_enforce=1 runs the boot-time default's tests and Secure Boot's,
# on the module dkms built for it: the machine's suite's by check-pkg
# (build/pkg/vm), the other's by that suite's dkms in a chroot, from the
# dkms package built there from a copy of the tree (tests/pkg/dkms-suite):
# make deb's depends on the host suite's dkms. Then make deb's arm64 vmpctl
# on the 6.12-arm64 lane.
PKG_VM_SUITES := bookworm:6.1 trixie:tests/pkg/vm/lanes/trixie
check-pkg-vm:
	scripts/deps vm pkg secureboot chroot cross
	host=$$(. /etc/os-release && echo "$$VERSION_CODENAME"); pairs=; \
	for suite_lane in $(PKG_VM_SUITES); do \
		suite=$${suite_lane%%:*} lane=$${suite_lane#*:} dir=build/pkg/vm; \
		if [ "$$suite" != "$$host" ]; then \
			dir=build/pkg/vm-$$suite; rm -rf $$dir.deb; \
			$(call copy_tree,$$dir.deb/$(DKMS_NAME)-$(DKMS_VERSION)) && \
			tests/pkg/dkms-suite "$$lane" $$dir.deb/$(DKMS_NAME)-$(DKMS_VERSION) "$$dir" || exit 1; \
		fi; \
		pairs="$$pairs $$lane=$$dir"; \
	done; \
	tests/pkg/vm-lanes $$pairs
	tests/pkg/vmpctl-deb build/deb arm64 6.12-arm64

# Debian 13 hosts: dependencies, the tool, the unit tests and the packages
# in a trixie chroot.
check-trixie:
	scripts/deps chroot
	rm -rf build/trixie
	$(call copy_tree,build/trixie)
	tests/pkg/trixie build/trixie

check-vm:
	tests/vm/run $(filter-out $(ALONE_LANES),$(TIER1_LANES))
	tests/vm/run --jobs 1 $(filter $(ALONE_LANES),$(TIER1_LANES))

# One lane on one CPU (a part of make check), with the packages its lane
# file asks for: cross for arm64, lint for lint=yes, chroot for newer suites,
# workloads for a profile with the workloads, presets or service group (they
# run Debian's fio, sysbench, iperf3, stress-ng and PostgreSQL, copied from
# the host).
lane_profile = $(or $(shell sed -n 's/^profile=//p' tests/vm/lanes/$(1)),full)
lane_groups = $(shell sed -n 's/^$(call lane_profile,$(1)) //p' tests/vm/profiles)
lane-%:
	scripts/deps vm chroot $(if $(filter workloads presets service,$(call lane_groups,$*)),workloads) $(shell sed -n 's/^arch=arm64$$/cross/p; s/^lint=yes$$/lint/p' tests/vm/lanes/$*)
	tests/vm/run --jobs 1 $*

# The debug lane's kernel (tests/vm/debug/build-kernel, cached).
debug-kernel:
	scripts/deps debug-kernel
	tests/vm/debug/build-kernel >/dev/null

check-tier2:
	scripts/deps vm cross chroot lint debug-kernel
	tests/vm/run $(TIER2_LANES)

# One boot proving the hooks other drivers use (kernel_build=, VMPCTL_VM_*).
check-hooks:
	scripts/deps vm
	tests/vm/check-hooks

# The fleet lane (tests/fleet/run): contrib/ansible/fleet-ab.yml, unmodified,
# over SSH against two booted Debian 12 guests with the stock kernel, on
# make deb's packages (build/deb, so in make check it waits for check-pkg).
check-fleet:
	scripts/deps vm chroot fleet
	tests/fleet/run build/deb

check-matrix:
	$(MAKE) check CHECK_TIER2=yes

# Each demo keeps its A/B's --save file in build/demo/ and draws it with
# the host's vmpctl (scripts/demo): the build group is for that build.
demo:
	scripts/deps vm build
	scripts/demo $(DEMO_LANE) tests/vm/guest/demo.sh

# The cgroup-v2 story on Debian 13's 7.3 (sock_throttled): tests/vm/guest/demo-v2.sh.
demo-v2:
	scripts/deps vm build chroot workloads
	scripts/demo 7.3 tests/vm/guest/demo-v2.sh

# A newcomer's first run (tests/fresh/run): the README's commands (make deb,
# installing the packages, make demo, make check, then make demo-v2) in a
# fresh debootstrap chroot of Debian 12 and of Debian 13, base system and
# empty cache, in a git clone of HEAD (what is committed). FRESH_COMMANDS
# (each quoted) runs others instead. Not part of make check: each suite
# takes most of an hour.
FRESH_SUITES ?= bookworm trixie
FRESH_COMMANDS ?=
check-fresh:
	scripts/deps chroot
	rm -rf build/fresh
	if git rev-parse --git-dir >/dev/null 2>&1; then git clone -q . build/fresh/src; \
	else $(call copy_tree,build/fresh/src); fi
	status=0; for suite in $(FRESH_SUITES); do \
		tests/fresh/run $$suite build/fresh/src build/fresh $(FRESH_COMMANDS) || status=1; \
	done; exit $$status

bench:
	scripts/deps vm bench
	bench/run

# build/deb/: vmpressure-ctl-dkms and vmpctl .debs, built by debhelper from
# a copy of the tree without build output or anything git ignores; and
# vmpctl for each of DEB_CROSS_ARCHES, cross-built (scripts/cross-deb)
# beside the native build (it is mostly its chroot's downloads), in a copy
# of the tree of its own.
DEB_CROSS_ARCHES ?= arm64
deb:
	scripts/deps deb $(if $(DEB_CROSS_ARCHES),chroot)
	rm -rf build/deb
	$(call copy_tree,build/deb/$(DKMS_NAME)-$(DKMS_VERSION))
	status=0 pids=; for arch in $(DEB_CROSS_ARCHES); do \
		mkdir -p build/deb/$$arch && cp -a build/deb/$(DKMS_NAME)-$(DKMS_VERSION) build/deb/$$arch/ || exit 1; \
		scripts/cross-deb build/deb/$$arch/$(DKMS_NAME)-$(DKMS_VERSION) $$arch & pids="$$pids $$!"; \
	done; \
	(cd build/deb/$(DKMS_NAME)-$(DKMS_VERSION) && dpkg-buildpackage -jauto -b -us -uc >../build.log 2>&1) || \
		{ status=1; tail -n 30 build/deb/build.log; echo "make deb: dpkg-buildpackage failed (build/deb/build.log)"; }; \
	for pid in $$pids; do wait $$pid || status=1; done; \
	for arch in $(DEB_CROSS_ARCHES); do mv build/deb/$$arch/*.deb build/deb/ && rm -rf build/deb/$$arch || status=1; done; \
	exit $$status
	rm -rf build/deb/$(DKMS_NAME)-$(DKMS_VERSION)
	ls build/deb/*.deb

# The module's dkms source, to DESTDIR/usr/src/NAME-VERSION.
install-module-source:
	install -d $(DESTDIR)$(DKMS_SOURCE_DIR)/module
	install -m 0644 dkms.conf $(DESTDIR)$(DKMS_SOURCE_DIR)/
	install -m 0644 $(filter-out module/probe.sh,$(MODULE_SOURCES)) $(DESTDIR)$(DKMS_SOURCE_DIR)/module/
	install -m 0755 module/probe.sh $(DESTDIR)$(DKMS_SOURCE_DIR)/module/

# The tool, its man page and completion, and the module's man page under
# PREFIX, and the module's source for dkms; without DESTDIR, dkms (when
# installed) builds and installs the module for DKMS_KERNELS, replacing an
# earlier registration. Refuses to overwrite what the $(DKMS_NAME)-dkms
# package installed.
install: tools
ifeq ($(DESTDIR),)
	@if command -v dpkg-query >/dev/null && \
		dpkg-query -W -f='$${db:Status-Abbrev}' $(DKMS_NAME)-dkms 2>/dev/null | grep -q '^.i'; then \
		echo "install: the $(DKMS_NAME)-dkms package is installed; remove it first, or use it" >&2; \
		exit 1; \
	fi
endif
	$(MAKE) -C tools install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -D -m 0644 man/vmpressure_ctl.4 $(DESTDIR)$(MODULE_MAN_PAGE)
	$(MAKE) install-module-source DESTDIR=$(DESTDIR)
ifeq ($(DESTDIR),)
	@if ! command -v dkms >/dev/null; then \
		echo "install: dkms not found: the module's source is in $(DKMS_SOURCE_DIR); build it by hand (docs/install.md)"; \
	else \
		if [ -n "$$(dkms status -m $(DKMS_NAME) -v $(DKMS_VERSION))" ]; then \
			dkms remove $(DKMS_NAME)/$(DKMS_VERSION) --all; \
		fi && \
		dkms add $(DKMS_NAME)/$(DKMS_VERSION) && \
		for kernel in $(DKMS_KERNELS); do \
			dkms install $(DKMS_NAME)/$(DKMS_VERSION) -k $$kernel || exit; \
		done; \
	fi
endif

# Removes what install put under DESTDIR and PREFIX: the tool's files, the
# module's man page, the module's source and, without DESTDIR, its dkms
# registration. Directories that held them stay.
uninstall:
ifeq ($(DESTDIR),)
	@if command -v dkms >/dev/null && [ -n "$$(dkms status -m $(DKMS_NAME) -v $(DKMS_VERSION))" ]; then \
		dkms remove $(DKMS_NAME)/$(DKMS_VERSION) --all; \
	fi
endif
	rm -rf $(DESTDIR)$(DKMS_SOURCE_DIR)
	rm -f $(DESTDIR)$(MODULE_MAN_PAGE)
	$(MAKE) -C tools uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/module clean 2>/dev/null
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	rm -rf build
