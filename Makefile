# shcard: one GNU Makefile, no recursive make.  See README.md.
#
#   make            build ./shcard (never runs re2c or bison: gen/ is committed)
#   make test       install what is missing, build, run every suite, print "N passed, N failed"
#   make asan       the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make run        the demo on the bundled examples
#   make gen        regenerate gen/ from grammar/ (re2c 3.0, bison 3.8.2)
#   make check-gen  fail when gen/ does not match grammar/
#   make bench      benchmarks (ratios against anchors measured in the same run)
#   make fuzz       libFuzzer builds of fuzz/*.c (clang)
#   make deps       install the Debian packages the project needs

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
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
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
LDFLAGS_ALL = -pie -Wl,-z,relro,-z,now $(LDSAN)

# src/ is one folder per subsystem (ARCHITECTURE.md); includes are written from src/
# ("base/arena.h"), the public header is include/shcard.h.  Every src/*/*.c except the CLI's
# main.c is the library; gen/*.c are the generated lexer and parser.
SRC_DIRS := base shell classify exec agent acp model cli
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

.PHONY: all shcard build-tests test asan check run gen check-gen bench fuzz fuzz-safety deps npm-deps clean format format-check

all: shcard

shcard: $(BIN)
	@cp $(BIN) shcard

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

build-tests: $(BIN) $(TEST_BIN) $(THELP_BIN) $(FUZZ_STANDALONE)
	@cp $(BIN) shcard

# `make test`: every suite through tests/run.sh, which prints one "N passed, N failed" line.
test: deps npm-deps
	@$(MAKE) --no-print-directory build-tests
	@BUILD=$(BUILD) SAN=$(SAN) bash tests/run.sh

asan:
	@$(MAKE) --no-print-directory test SAN=address,undefined

check: check-gen test

# ---------------------------------------------------------------- demo
run: deps
	@$(MAKE) --no-print-directory shcard
	@bash examples/demo.sh

# ---------------------------------------------------------------- generated code
RE2C_FLAGS  := -W -Werror --no-generation-date --no-version -i
BISON_FLAGS := -Wall -Werror -Wcounterexamples -l

gen:
	bison $(BISON_FLAGS) -o gen/shc_parser.c --header=gen/shc_parser.h grammar/shc_parser.y
	re2c $(RE2C_FLAGS) -o gen/shc_lexer.c grammar/shc_lexer.re
	@printf 're2c %s\nbison %s\n' "$$(re2c --version | awk '{print $$2}')" \
	    "$$(bison --version | head -n1 | awk '{print $$4}')" > gen/TOOLS

check-gen:
	@bash tests/check-gen.sh

# ---------------------------------------------------------------- bench and fuzz
bench: deps
	@$(MAKE) --no-print-directory shcard $(BENCH_BIN) OPT="-O2 -g"
	@BUILD=$(BUILD) bash bench/run.sh

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

fuzz-safety: shcard $(BUILD)/tests/helpers/word_dump
	@bash tests/fuzz-safety.sh --long

# ---------------------------------------------------------------- dependencies
# Debian packages: build tools, libraries, the programs the classifier's allowlist names (so the
# safety oracle runs them for real), and what the executor and bridge tests use.
DEB_PKGS := re2c bison pkg-config gcc clang make libjansson-dev libcmocka-dev libcurl4-openssl-dev \
            strace bubblewrap ripgrep fd-find bat tree silversearcher-ag ack git python3 \
            util-linux procps bsdextrautils curl
deps:
	@bash tests/install-deps.sh $(DEB_PKGS)

# npm packages for the end-to-end tests against real ACP clients (pinned in tests/e2e: exact
# versions in package.json, the tree in package-lock.json).  `npm install --no-save` follows the
# lock file; `npm ci` refuses it because a dependency lists optional per-platform packages that
# the registry does not serve.
npm-deps:
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
