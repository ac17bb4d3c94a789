# stk: build the static binary, its BPF object, and run the tests.
#   make            build/stk (installs build tools with apt when root, builds deps once)
#   make check      unit tests, ASan+UBSan unit tests, integration tests (root)
#   make clean      remove build outputs but keep the cached dependencies
#   make distclean  remove everything under build/

BUILD   ?= build
DEPS    := $(BUILD)/deps
UAPI    := $(BUILD)/uapi-include
SDTINC  := $(BUILD)/sdt-include
GEN     := $(BUILD)/gen
OBJ     := $(BUILD)/obj
MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CC_MUSL := musl-gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
STK_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -I$(GEN) -I$(DEPS)/include -I$(DEPS)/include/libiberty \
	      -isystem $(UAPI) -isystem $(SDTINC)
BPF_CFLAGS := -target bpf -g -O2 -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-parameter -Wno-sign-compare -I$(DEPS)/include -isystem $(UAPI)

CORE_SRCS := $(wildcard core/*.c)
CMD_SRCS  := $(wildcard cmd/*.c)
BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
STK_OBJS  := $(patsubst %.c,$(OBJ)/%.o,$(CORE_SRCS) $(CMD_SRCS))

# Core files that need neither libbpf nor the skeleton: unit-tested, also under ASan.
# Every other core file is one; list here the ones that use libbpf.
CORE_NEEDS_LIBBPF := core/features.c core/bpf_object.c core/log.c
UNIT_CORE := $(filter-out $(CORE_NEEDS_LIBBPF),$(CORE_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
# The suite table is generated from the "const struct test_case NAME[]" in each test file.
UNIT_SUITES_H := $(GEN)/unit_suites.h
UNIT_LIBS_MUSL := -L$(DEPS)/lib -lelf -liberty -lz
UNIT_LIBS_ASAN := -lelf -liberty -lz
ASAN_CC   ?= clang
ASAN_FLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -fno-omit-frame-pointer \
	      -fsanitize=address,undefined -fno-sanitize-recover=all

TOOLS_STAMP := $(BUILD)/.tools-stamp
DEPS_STAMP  := $(DEPS)/.stamp

.PHONY: all deps check unit clean distclean FORCE
all: $(BUILD)/stk

$(TOOLS_STAMP): ci/install-build-tools.sh
	@mkdir -p $(BUILD)
	@bash ci/install-build-tools.sh
	@touch $@

$(DEPS_STAMP): ci/build-deps.sh | $(TOOLS_STAMP)
	@BUILD=$(abspath $(BUILD)) bash ci/build-deps.sh

deps: $(DEPS_STAMP)

$(SDTINC)/sys/sdt.h: | $(TOOLS_STAMP)
	@mkdir -p $(SDTINC)/sys
	@ln -sfn /usr/include/$(MULTIARCH)/sys/sdt.h $(SDTINC)/sys/sdt.h
	@ln -sfn /usr/include/$(MULTIARCH)/sys/sdt-config.h $(SDTINC)/sys/sdt-config.h

# --- BPF: every bpf/*.bpf.c, linked into one object, embedded as a skeleton ---
$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  BPF      $<"
	@$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/stk.bpf.o: $(BPF_OBJS)
	@echo "  LINK     $@"
	@$(BPFTOOL) gen object $@ $^

$(GEN)/stk.skel.h: $(BUILD)/bpf/stk.bpf.o
	@mkdir -p $(@D)
	@echo "  SKEL     $@"
	@$(BPFTOOL) gen skeleton $< name stk_bpf > $@.tmp && mv $@.tmp $@

# Rewritten only when its content changes, so unchanged builds relink nothing.
$(GEN)/build_info.h: FORCE $(DEPS_STAMP)
	@mkdir -p $(@D)
	@{ \
	echo '#define STK_VERSION "$(shell cat VERSION)"'; \
	echo '#define STK_GIT_DESCRIBE "$(shell git describe --always --dirty 2>/dev/null || echo no-git)"'; \
	echo '#define STK_LIBELF_VERSION "$(shell sed -n 's/^elfutils-/libelf /p' $(DEPS)/VERSIONS)"'; \
	echo '#define STK_CC_VERSION "$(shell $(CC_MUSL) -dumpfullversion 2>/dev/null | sed 's/^/gcc /')"'; \
	echo '#define STK_BUILD_DATE "$(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} +%Y-%m-%d)"'; \
	} > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# --- the static binary ---
$(OBJ)/%.o: %.c $(GEN)/stk.skel.h $(GEN)/build_info.h $(SDTINC)/sys/sdt.h $(wildcard core/*.h cmd/*.h bpf/*.h)
	@mkdir -p $(@D)
	@echo "  CC       $<"
	@$(CC_MUSL) $(STK_CFLAGS) -c $< -o $@

$(BUILD)/stk: $(STK_OBJS) $(DEPS_STAMP)
	@echo "  LD       $@"
	@$(CC_MUSL) -static -o $@.unstripped $(STK_OBJS) -L$(DEPS)/lib -lbpf -lelf -liberty -lz
	@strip -o $@ $@.unstripped
	@echo "  SIZE     $@: $$(stat -c %s $@) bytes stripped (static, musl)"

# --- tests ---
$(UNIT_SUITES_H): $(UNIT_SRCS)
	@mkdir -p $(@D)
	@sed -n 's/^const struct test_case \([a-z0-9_]*\)\[\] = {/\1/p' $(UNIT_SRCS) | sort > $@.names
	@{ sed 's/.*/extern const struct test_case &[];/' $@.names; \
	   echo '#define STK_UNIT_SUITES \'; sed 's/.*/\t&, \\/' $@.names; echo; } > $@.tmp
	@rm -f $@.names
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

$(BUILD)/tests/unit: $(UNIT_SRCS) $(UNIT_CORE) $(UNIT_SUITES_H) $(wildcard tests/unit/*.h core/*.h) $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC       $@"
	@$(CC_MUSL) -static $(STK_CFLAGS) -I$(DEPS)/include/libiberty -o $@ $(UNIT_SRCS) $(UNIT_CORE) $(UNIT_LIBS_MUSL)

$(BUILD)/tests/unit-asan: $(UNIT_SRCS) $(UNIT_CORE) $(UNIT_SUITES_H) $(wildcard tests/unit/*.h core/*.h)
	@mkdir -p $(@D)
	@echo "  CC       $@ (ASan+UBSan)"
	@$(ASAN_CC) $(ASAN_FLAGS) -I$(GEN) -I/usr/include/libiberty -o $@ $(UNIT_SRCS) $(UNIT_CORE) $(UNIT_LIBS_ASAN)

WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/tests/workloads/%,$(wildcard tests/workloads/*.c))
$(BUILD)/tests/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	@$(CC_MUSL) -static -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -fno-omit-frame-pointer -o $@ $<

unit: $(BUILD)/tests/unit $(BUILD)/tests/unit-asan

check: all unit $(WORKLOADS)
	@BUILD=$(abspath $(BUILD)) bash tests/run.sh

clean:
	rm -rf $(OBJ) $(GEN) $(BUILD)/bpf $(BUILD)/tests $(BUILD)/stk $(BUILD)/stk.unstripped

distclean:
	rm -rf $(BUILD)
