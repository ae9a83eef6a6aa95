# ossa — entry point for users and CI.
#
# A fresh Debian 12 with only `make` is enough: `make deps` installs the
# compiler, cmake and libraries with apt-get, and every other target runs it
# first. The real build description is CMakeLists.txt; this file only picks
# build directories and flags.

SHELL := /bin/sh
# cmake --build runs make too; its "Entering directory" lines are noise.
MAKEFLAGS += --no-print-directory
.DEFAULT_GOAL := build

JOBS     ?= 2
PREFIX   ?= /usr/local
FUZZ_TIME ?= 20

# `make sanitize CC=clang` builds with clang; left alone, the sanitizer build
# uses gcc (make's built-in default "cc" would hide which compiler ran).
ifeq ($(origin CC),default)
CC := gcc
endif
CC_NAME := $(notdir $(CC))
# The default build passes CC to cmake only when the caller chose one.
CC_ARG := $(if $(filter command line environment,$(origin CC)),-DCMAKE_C_COMPILER=$(CC))

BUILD      := build
ASAN_BUILD := build-asan$(if $(filter gcc,$(CC_NAME)),,-$(CC_NAME))
CLANG_BUILD := build-clang
FUZZ_BUILD := build-fuzz

# g++ compiles the public headers as C++ (tests/cli_libraries.sh);
# libc6-dev is listed because gcc only recommends it and we install without
# recommends; bash runs the shell tests, python3 checks their JSON output and
# generates the benchmark's large input; locales holds the sources from which
# test_gltf_locale makes de_DE.UTF-8 (a decimal comma) with localedef;
# `ossa render` reads and writes PNG through libpng, reads JPEG textures
# through libjpeg and writes GIF through giflib. The Python package's tests
# run on Debian's numpy and pytest, and install it with pip and setuptools.
DEPS       := gcc g++ libc6-dev make cmake pkg-config bash python3 libcmocka-dev libcjson-dev zlib1g-dev locales \
              libpng-dev libjpeg-dev libgif-dev python3-numpy python3-pytest python3-pip python3-setuptools
CLANG_DEPS := clang libclang-rt-14-dev

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_ENV   := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

CTEST := ctest --output-on-failure -j$(JOBS) --test-dir

# Installs the Debian packages in $(1) that are not installed yet. apt-get
# update runs only when something is missing, so a ready machine stays
# offline. Written for dash.
define apt_install
@missing=; \
	if ! command -v dpkg >/dev/null 2>&1; then \
	  echo "make deps: no dpkg here; install these yourself: $(1)"; exit 0; \
	fi; \
	for p in $(1); do \
	  dpkg -s "$$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	sudo=; \
	if [ "$$(id -u)" != 0 ]; then \
	  if command -v sudo >/dev/null 2>&1; then sudo=sudo; else \
	    echo "make deps: missing Debian packages:$$missing" >&2; \
	    echo "make deps: run as root: apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi; \
	echo "make deps: installing$$missing"; \
	$$sudo apt-get update && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing
endef

.PHONY: build deps deps-clang deps-node configure demo test bench install sanitize clang fuzz clean check-layout check-blender update-ref blender-addon

deps:
	$(call apt_install,$(DEPS))

deps-clang:
	$(call apt_install,$(CLANG_DEPS))

# The Khronos glTF validator (npm package gltf-validator) checks every glTF
# file the tests write. It goes into $(NODE_DIR), shared by every build;
# tests/CMakeLists.txt looks for it there. Node and npm come from Debian
# when missing. Without network access the install fails and the
# validation tests print SKIP; nothing else depends on it.
NODE_DIR := build-node
deps-node:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory deps-node-apt; fi
	@[ -f $(NODE_DIR)/node_modules/gltf-validator/package.json ] || \
	  { command -v npm >/dev/null 2>&1 && \
	    npm install --prefix $(NODE_DIR) --no-audit --no-fund --loglevel=error gltf-validator; } || \
	  echo "make deps-node: could not install gltf-validator; glTF validation tests will be skipped"

.PHONY: deps-node-apt
deps-node-apt:
	$(call apt_install,nodejs npm)

# Configure every time: it takes a second and picks up changed options.
configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CC_ARG)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# Only the library and the command-line tool: the tests and benchmarks
# are not needed to draw the demo character.
demo: configure
	cmake --build $(BUILD) -j$(JOBS) --target ossa
	./$(BUILD)/ossa demo -o demo

# Tests that skip checks (no ../shared, no validator) are reported as
# skipped by ctest; the last line says which and why.
test: build deps-node
	@rm -rf $(BUILD)/test-tmp/skipped
	@$(CTEST) $(BUILD); rc=$$?; sh tests/tools/skip_summary.sh $(BUILD)/test-tmp/skipped; exit $$rc

# The layers (base < math, text < core < formats; runtime on base and math;
# render on top through public APIs): no folder includes or calls one above
# it, no format module another, no two source files depend on each other
# (includes, and calls read from the built objects), and no function is
# over 150 lines. Only the library's objects are needed (not the tests,
# benchmarks or CLI).
check-layout: configure
	cmake --build $(BUILD) -j$(JOBS) --target ossa_all
	python3 tests/tools/check_layout.py . $(BUILD)

# Rewrites tests/ref/*.txt (the reference dumps of every sample model) from
# the current build; review the diff before committing it. Samples of a
# format this build cannot read are skipped (status 77), not an error.
update-ref: build
	OSSA_UPDATE_REF=1 OSSA_CLI=$(BUILD)/ossa OSSA_SHARED_DIR=$(CURDIR)/../shared \
	  OSSA_TEST_TMP=$(BUILD)/test-tmp bash tests/ref_dumps.sh || [ $$? -eq 77 ]
	@git status --short tests/ref 2>/dev/null | head -20 || true

bench: build
	cmake --build $(BUILD) --target bench

# Agreement with Blender 3.4's importers and the add-on's checks
# (tests/blender/check_*.sh). Installs Blender and numpy from Debian first
# when they are missing (large: only this target does); each script skips
# with a message where Blender still cannot run.
check-blender: build
	$(call apt_install,blender python3-numpy)
	@st=0; for s in tests/blender/check_*.sh; do bash "$$s" $(BUILD) || st=1; done; exit $$st

# The Blender add-on (blender/): $(BUILD)/ossa_blender.zip holds it, the
# Python package and the three shared libraries; Blender's add-on installer
# takes it as it is.
blender-addon: configure
	cmake --build $(BUILD) -j$(JOBS) --target ossa_runtime_shared ossa_shared ossa_render_shared
	python3 blender/make_zip.py $(BUILD) $(BUILD)/ossa_blender.zip

# DESTDIR is read by cmake --install from the environment.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# Debug build under ASan+UBSan; any report fails the test that caused it.
sanitize: deps deps-node $(if $(findstring clang,$(CC_NAME)),deps-clang)
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=$(CC) \
	  -DOSSA_BENCH=OFF \
	  -DCMAKE_C_FLAGS="$(SAN_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="$(SAN_FLAGS)" \
	  -DCMAKE_SHARED_LINKER_FLAGS="$(SAN_FLAGS)"
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	$(SAN_ENV) $(CTEST) $(ASAN_BUILD)

# A second compiler finds other warnings; OSSA_WERROR makes them fatal.
clang: deps deps-clang deps-node
	cmake -S . -B $(CLANG_BUILD) -DCMAKE_C_COMPILER=clang -DOSSA_WERROR=ON
	cmake --build $(CLANG_BUILD) -j$(JOBS)
	$(CTEST) $(CLANG_BUILD)

# libFuzzer: each fuzz/fuzz_NAME.c runs FUZZ_TIME seconds. New inputs go to
# $(FUZZ_BUILD)/corpus/NAME so the seeds in fuzz/corpus/NAME stay as
# committed; crashes land in $(FUZZ_BUILD)/artifacts/.
fuzz: deps deps-clang
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DOSSA_FUZZ=ON \
	  -DOSSA_TESTS=OFF -DOSSA_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j$(JOBS)
	@mkdir -p $(FUZZ_BUILD)/artifacts; \
	found=; \
	for bin in $(FUZZ_BUILD)/fuzz/fuzz_*; do \
	  [ -x "$$bin" ] || continue; found=1; \
	  name=$${bin##*/fuzz_}; \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$name; \
	  seeds=; [ -d fuzz/corpus/$$name ] && seeds=fuzz/corpus/$$name; \
	  dict=; [ -f fuzz/$$name.dict ] && dict=-dict=fuzz/$$name.dict; \
	  echo "== fuzz $$name ($(FUZZ_TIME)s)"; \
	  "$$bin" -max_total_time=$(FUZZ_TIME) -print_final_stats=1 $$dict \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$name- \
	    $(FUZZ_BUILD)/corpus/$$name $$seeds || exit 1; \
	done; \
	[ -n "$$found" ] || { echo "make fuzz: no fuzz/fuzz_*.c targets" >&2; exit 1; }

clean:
	rm -rf $(BUILD) build-asan build-asan-* $(CLANG_BUILD) $(FUZZ_BUILD) $(NODE_DIR) demo
