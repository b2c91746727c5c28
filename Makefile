# SPDX-License-Identifier: GPL-2.0
#
# kprint: structured kernel messages, counted per format.
#
#   make          build the module, the BPF counters and the CLI (installs deps)
#   make check    host unit tests, then every VM test (a guest per group of
#                 tests/vm/groups); each test's wall time, the total, and
#                 last "N passed, N failed" (docs/testing.md)
#   make soak     the same tests with their long loop sizes (KPRINT_SOAK=1)
#   make run      boot the guest with kprint, the exporter and a demo source,
#                 serve the exporter on http://127.0.0.1:9464 (RUN_PORT=N for
#                 another host port), show live records until Ctrl-C
#   make deps     install the Debian packages the project needs
#   make generate regenerate the wire-format code from schema/kprint.yaml
#                 (the UAPI header, kernel/kprint_genl.[ch], libkpc's tables)
#   make fuzz     libFuzzer harnesses, FUZZ_SECONDS=N each (default 60)
#   make bench    the benchmarks (tests/bench/): two guest boots, every ratio
#                 against its baseline, .output/bench/results.{json,md};
#                 BENCH_ARGS=--smoke for a quick run that only checks the suite
#   make patches  kprint as a patch series against linux-source-6.12 in
#                 .output/patches/, applied, checkpatch'ed and compiled
#                 in a prepared tree (docs/patches.md)
#   make deb      the Debian packages kprint and kprint-dkms (debian/) in
#                 .output/deb/, built from a copy of the working tree
#
# KERNELS="KVER ..." chooses the guest kernels (tests/vm/kernels): make
# builds kprint.ko and the test modules for the default kernel, Debian's 6.1
# (kernel/*.ko), unless KERNELS says more; make check (and vmtest, soak)
# builds for the three kernels scripts/deps installs (6.1, 6.12, 6.1-rt;
# the others into .output/kernel/KVER/), runs every test on the default
# and the smoke set (tests/vm/groups) on each other one.
#
# V=1 shows the commands.  Userspace output goes to .output/.

.DELETE_ON_ERROR:
SHELL := /bin/bash
OUTPUT := $(CURDIR)/.output
export V

ifeq ($(V),1)
Q =
else
Q = @
MAKEFLAGS += --no-print-directory
endif

.PHONY: all deps kernel bpf exporter problems selftest check unit vmtest soak run clean generate deb dkms-tarball

all: kernel bpf exporter problems selftest

# Recursive, so that the kernels are looked up once scripts/deps has run:
# on a fresh machine they are not installed when make reads this.
ifeq ($(origin KERNELS),undefined)
KERNELS = $(shell tests/vm/kernels default)
check vmtest soak: KERNELS = $(shell tests/vm/kernels all)
endif
export KERNELS

deps:
	$(Q)scripts/deps

# One kbuild per kernel, one after the other: kbuild itself uses the cores.
kernel: deps
	$(Q)test -n "$(strip $(KERNELS))" || { echo "make: no kernel (KERNELS)" >&2; exit 1; }
	$(Q)for k in $(KERNELS); do $(MAKE) -C kernel KVER=$$k || exit 1; done

bpf: deps
	$(Q)$(MAKE) -C bpf

exporter: deps bpf
	$(Q)$(MAKE) -C exporter

# The journal's message catalog of the problems (journalctl -x explains
# the exporter's problem entries with it), generated from
# problems/problems.yaml, the one source, and never committed; debian/rules
# runs the same script for the package.
PROBLEMS_CATALOG := $(OUTPUT)/problems/kprint-problems.catalog
problems: $(PROBLEMS_CATALOG)

$(PROBLEMS_CATALOG): problems/problems.yaml scripts/problems-catalog | deps
	$(Q)scripts/problems-catalog $< $@

# The kselftest of the in-tree series (kernel/intree/tools/testing/
# selftests/kprint/), compiled as its lib.mk Makefile compiles it but
# against this tree's UAPI header, for tests/e2e/kselftest.sh to run in the
# guest.  Its kselftest.h is read out of Debian's linux-source-6.12 tarball
# into .output/, never committed.
SELFTEST_SRC := kernel/intree/tools/testing/selftests/kprint/kprint_test.c
SELFTEST := $(OUTPUT)/selftest/kprint_test
KSFT_H := $(OUTPUT)/selftest/include/kselftest.h
LINUX_SOURCE_TAR := /usr/src/linux-source-6.12.tar.xz
selftest: deps $(SELFTEST)

$(KSFT_H): $(LINUX_SOURCE_TAR)
	$(Q)mkdir -p $(@D)
	$(Q)tar -xJOf $< linux-source-6.12/tools/testing/selftests/kselftest.h >$@.tmp
	$(Q)mv $@.tmp $@

$(SELFTEST): $(SELFTEST_SRC) include/uapi/linux/kprint.h $(KSFT_H)
	$(Q)$(CC) -Wall -O2 -D_GNU_SOURCE= -I$(dir $(KSFT_H)) -isystem include/uapi $< -o $@

# schema/gen.py writes only the files whose text changed, so an unchanged
# spec rebuilds nothing; tests/unit/generated-fresh.sh fails on stale files.
generate:
	$(Q)python3 schema/gen.py

# Each test prints TAP-style "ok"/"not ok" lines; tests/run counts them.
check: all
	$(Q)tests/run --kernels "$(KERNELS)"

unit: all
	$(Q)tests/run --unit

vmtest: all
	$(Q)tests/run --vm --kernels "$(KERNELS)"

# The long versions of the sized tests: more reload cycles, longer steady
# rates, more fuzzing; docs/testing.md has the sizes and what they gave.
soak: all
	$(Q)KPRINT_SOAK=1 tests/run --kernels "$(KERNELS)"

# The exporter's port in the guest is forwarded to the host's loopback only
# (tests/vm/run binds every forward to 127.0.0.1); RUN_PORT picks the host
# port when 9464 is taken.  No timeout: it stays up until Ctrl-C.
RUN_PORT ?= 9464
run: all
	$(Q)tests/vm/run --timeout 0 --forward $(RUN_PORT):9464 -- scripts/run-demo

# The libFuzzer harnesses of tests/fuzz/ (ASan+UBSan): replay the
# regressions and seeds, then fuzz each for FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: deps bpf
	$(Q)tests/fuzz/run --seconds $(FUZZ_SECONDS)

# Ratios of interleaved runs in one guest; see tests/bench/guest.py.
.PHONY: bench
bench: all
	$(Q)tests/bench/run $(BENCH_ARGS)

# The series is made and checked by one script, which tests/host/patches.sh
# runs too; the prepared linux-source-6.12 tree is kept in .output/linux/.
.PHONY: patches
patches: deps
	$(Q)scripts/patches/series build check

# dpkg-buildpackage in a copy of the working tree under .output/deb/, so
# that the build writes nothing here and builds what is here, committed or
# not: the files git tracks or would track (not the ignored build
# products), as they are on disk.  The packages, .buildinfo and .changes
# land in .output/deb/.
DEB_OUT := $(OUTPUT)/deb
DEB_SRC := $(DEB_OUT)/src/kprint
deb: deps
	$(Q)rm -rf $(DEB_OUT) && mkdir -p $(DEB_SRC)
	$(Q)git rev-parse --git-dir >/dev/null || { echo "make deb: needs a git checkout" >&2; exit 1; }
	$(Q)set -o pipefail; git ls-files -z --cached --others --exclude-standard | \
		while IFS= read -r -d '' f; do [ ! -e "$$f" ] || printf '%s\0' "$$f"; done | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_SRC)
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b $(if $(filter 1,$(V)),,>../build.log 2>&1) || \
		{ tail -n 40 $(DEB_OUT)/src/build.log 2>/dev/null; echo "make deb: dpkg-buildpackage failed" \
		  "(.output/deb/src/build.log)" >&2; exit 1; }
	$(Q)mv $(DEB_OUT)/src/*.deb $(DEB_OUT)/src/*.buildinfo $(DEB_OUT)/src/*.changes $(DEB_OUT)/
	$(Q)cd $(DEB_OUT) && ls -1 *.deb

# kprint.ko built by DKMS from the kprint-dkms package for every kernel of
# this machine with headers, as a DKMS tarball: build once, and a machine
# with /usr/share/kprint-dkms/kprint-VERSION.dkms.tar.gz installs
# kprint-dkms without compiling (scripts/dkms-tarball).
dkms-tarball: deb
	$(Q)v=$$(dpkg-parsechangelog -l debian/changelog -S Version) && \
		scripts/dkms-tarball $(DEB_OUT)/kprint-dkms_$${v}_all.deb $(DEB_OUT)/kprint-$$v.dkms.tar.gz

clean:
	$(Q)$(MAKE) -C kernel clean
	$(Q)rm -rf $(OUTPUT)/kernel $(OUTPUT)/problems
	$(Q)$(MAKE) -C exporter clean
	$(Q)$(MAKE) -C bpf clean
	$(Q)rm -rf $(OUTPUT)
