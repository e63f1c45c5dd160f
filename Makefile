# hetplan — capacity planner for LLM training on heterogeneous GPU clusters.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
#
#   make            build ./hetplan
#   make deps       install the missing Debian packages (tools/deps.sh)
#   make run        install missing packages, build, open the TUI
#   make check      install missing packages, build, run every test
#   make asan       the test suite under AddressSanitizer + UBSan
#   make fuzz       each libFuzzer target for FUZZ_SECONDS (clang; tests/fuzz/)
#   make bench      timings of the engine's hot paths and the TUI
#   make golden     rewrite the TUI's golden screens (tests/golden/)
#   make fields-docs  rewrite the settings tables in docs/formats.md and the man page
#   make compare-docs  rewrite docs/compare.md's Results table from test_compare
#   make install    PREFIX=/usr/local DESTDIR=

CC      ?= cc
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BUILD   ?= build

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-unused-parameter
CSTD     = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
OPT     ?= -O2 -g
INCS     = -Isrc -Iui -I$(BUILD) -I/usr/include/ncursesw
# -MMD -MP: each object's header dependencies go to a .d file next to it.
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(INCS) -MMD -MP
LDLIBS  += -lncursesw -lcurl -lcjson -lglpk -lcsv -lpthread -lm

ifneq ($(SANITIZE),)
CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif

ENGINE_SRC = $(wildcard src/*.c)
UI_SRC     = $(wildcard ui/*.c)
ENGINE_OBJ = $(ENGINE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/embed.o
UI_OBJ     = $(UI_SRC:%.c=$(BUILD)/%.o)
EMBED      = data/gpus.json data/models.json data/calibration.json $(wildcard data/prices.csv)
TEST_SRC   = $(wildcard tests/test_*.c)
TEST_BIN   = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# The program: ./hetplan, or inside the build folder for sanitizer builds so
# `make asan` never leaves an instrumented ./hetplan behind.
BIN       ?= hetplan

.PHONY: all run check test asan bench golden install uninstall clean deps deps-test fit \
	fields-docs compare-docs \
	fuzz fuzz-run

all: $(BIN)

$(BIN): $(UI_OBJ) $(BUILD)/libhetplan.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libhetplan.a: $(ENGINE_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# An object whose .d file is missing (a build from before -MMD) is rebuilt.
$(BUILD)/%.o: %.c $(BUILD)/%.d | $(BUILD)/embed.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
	@touch $@   # clang writes the .d after the .o; keep the object newer

# The catalogs are compiled into the binary so hetplan runs with no files
# installed. tools/embed.sh writes one C array per file.
$(BUILD)/embed.c: $(EMBED) tools/embed.sh
	@mkdir -p $(BUILD)
	sh tools/embed.sh $(BUILD)/embed $(EMBED)

# One recipe writes both files; the header just follows the C file, so a
# parallel make never runs the generator twice at once.
$(BUILD)/embed.h: $(BUILD)/embed.c
	@test -f $@ || { rm -f $<; $(MAKE) --no-print-directory $<; }

$(BUILD)/embed.o: $(BUILD)/embed.c
	$(CC) $(CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(BUILD)/tests/%: tests/%.c tests/t.h $(BUILD)/tests/%.d $(BUILD)/libhetplan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(BUILD)/libhetplan.a $(LDLIBS)

# The key tables of docs/formats.md and the flag and key entries of the
# man page are printed by hetplan from its settings tables (src/fields_doc.h);
# this splices them into their marked regions. tests/test_man.sh fails
# when they are not current.
fields-docs: $(BIN)
	python3 tools/fields_update.py ./$(BIN) docs/formats.md man/hetplan.1

# docs/compare.md's Results table and README's calculon sentence, from
# test_compare's output (tools/compare_update.py); rerun after a model change.
compare-docs: $(BUILD)/tests/test_compare
	$(BUILD)/tests/test_compare > $(BUILD)/compare.out
	python3 tools/compare_update.py < $(BUILD)/compare.out

# Missing build or test packages are installed with apt-get when we are root,
# otherwise the exact command is printed and make stops (tools/deps.sh).
deps:
	@sh tools/deps.sh build
deps-test:
	@sh tools/deps.sh test

run: deps
	@$(MAKE) --no-print-directory hetplan
	./hetplan

check: deps deps-test
	@$(MAKE) --no-print-directory $(BIN) $(TEST_BIN)
	@HETPLAN=./$(BIN) sh tests/run.sh $(BUILD)

test: check

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/hetplan \
		SANITIZE=address,undefined OPT="-O1 -g" check

bench: deps deps-test
	@$(MAKE) --no-print-directory hetplan $(BUILD)/tests/bench $(BUILD)/tests/bench_serve
	@$(BUILD)/tests/bench
	@$(BUILD)/tests/bench_serve
	@./hetplan tui --bench
	@sh tests/bench_tui.sh

# libFuzzer: the library and each tests/fuzz/fuzz_NAME.c built with clang
# under ASan + UBSan, then run for FUZZ_SECONDS each, starting from the
# committed seeds in tests/fuzz/corpus/NAME (new inputs go to
# build-fuzz/corpus/NAME; a crash is written to build-fuzz/crash-NAME-*:
# fix it and commit the input to tests/fuzz/corpus/NAME). 2 s per input
# is a hang.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_TARGETS  = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

fuzz:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz needs clang (apt-get install clang)" >&2; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) SANITIZE=address,undefined \
		OPT="-O1 -g -fsanitize=fuzzer-no-link" fuzz-run

fuzz-run: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/corpus/$$t; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
		$(BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=2 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=$(BUILD)/crash-$$t- \
			$(BUILD)/corpus/$$t tests/fuzz/corpus/$$t 2>&1 | \
			grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Test unit written' \
			|| true; \
	done
	@if ls $(BUILD)/crash-* >/dev/null 2>&1; then \
		echo "make fuzz: crash inputs in $(BUILD)/ (see above)" >&2; exit 1; fi

$(BUILD)/fuzz/%: tests/fuzz/fuzz_%.c $(BUILD)/libhetplan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(BUILD)/libhetplan.a $(LDLIBS)

# Read the diff before committing: a golden screen is a promise to users.
golden: deps deps-test
	@$(MAKE) --no-print-directory hetplan
	@UPDATE_GOLDEN=1 HETPLAN=./hetplan sh tests/test_tui.sh

$(BUILD)/tests/bench $(BUILD)/tests/bench_serve: $(BUILD)/tests/%: tests/%.c tests/t.h $(BUILD)/libhetplan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(BUILD)/libhetplan.a $(LDLIBS)

# Shell completions are written by the program from its own tables.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

install: hetplan
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 hetplan $(DESTDIR)$(BINDIR)/hetplan
	install -m 644 man/hetplan.1 $(DESTDIR)$(MANDIR)/man1/hetplan.1
	./hetplan completion bash >$(DESTDIR)$(BASHCOMPDIR)/hetplan
	./hetplan completion zsh >$(DESTDIR)$(ZSHCOMPDIR)/_hetplan
	./hetplan completion fish >$(DESTDIR)$(FISHCOMPDIR)/hetplan.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hetplan $(DESTDIR)$(MANDIR)/man1/hetplan.1 \
		$(DESTDIR)$(BASHCOMPDIR)/hetplan $(DESTDIR)$(ZSHCOMPDIR)/_hetplan \
		$(DESTDIR)$(FISHCOMPDIR)/hetplan.fish

clean:
	rm -rf build build-asan build-fuzz hetplan

# Refit the performance model's constants (prints them; see tools/fit.c,
# which shares the measured rows and the loss with tests/test_accuracy.c).
fit: $(BUILD)/libhetplan.a
	@mkdir -p $(BUILD)/tools
	$(CC) $(CFLAGS) -Itests -o $(BUILD)/tools/fit tools/fit.c $(BUILD)/libhetplan.a $(LDLIBS)
	$(BUILD)/tools/fit

# Header dependencies written by -MMD (absent before the first build).
# Named explicitly so that a missing one counts as out of date (a pattern
# would make them intermediate files, which never force a rebuild).
DEPFILES = $(filter-out $(BUILD)/embed.d,$(ENGINE_OBJ:.o=.d)) $(UI_OBJ:.o=.d) \
	   $(TEST_BIN:=.d)
$(DEPFILES): ;
-include $(wildcard $(BUILD)/src/*.d $(BUILD)/ui/*.d $(BUILD)/tests/*.d $(BUILD)/fuzz/*.d)
