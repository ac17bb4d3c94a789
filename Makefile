# stk: build the static binary, its BPF object, and run the tests.
#   make            build/stk (installs build tools with apt when root, builds deps once)
#   make check      unit tests, ASan+UBSan unit tests, integration tests (root)
#   make check-build  what make check runs, built without running it
#   make clean      remove build outputs but keep the cached dependencies
#   make distclean  remove everything under build/
#   make ARCH=arm64 cross-builds a static aarch64 stk into build/arm64/ (the
#   same targets: all, deb, rpm, vmtest); the host's build stays in build/.

# The target architecture, in the kernel's names (x86, arm64): it picks the
# BPF object's __TARGET_ARCH, the UAPI headers, the compiler and the build dir.
HOST_ARCH := $(shell uname -m | sed -e 's/^x86_64$$/x86/' -e 's/^aarch64$$/arm64/')
override ARCH := $(patsubst aarch64,arm64,$(patsubst x86_64,x86,$(or $(ARCH),$(HOST_ARCH))))
ifeq ($(ARCH),$(HOST_ARCH))
BUILD   ?= build
CROSS   :=
else ifeq ($(ARCH),arm64)
BUILD   ?= build/arm64
CROSS   := aarch64-linux-gnu-
else
$(error ARCH=$(ARCH): stk builds for x86 and arm64)
endif
DEPS    := $(BUILD)/deps
UAPI    := $(BUILD)/uapi-include
SDTINC  := $(BUILD)/sdt-include
GEN     := $(BUILD)/gen
OBJ     := $(BUILD)/obj
MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

# Cross builds use the musl-gcc wrapper ci/build-deps.sh makes for the target.
CC_MUSL := $(if $(CROSS),$(abspath $(DEPS))/bin/musl-gcc,musl-gcc)
STRIP   := $(CROSS)strip
CLANG   ?= clang
BPFTOOL ?= bpftool
WARN    := -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
STK_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -I. -I$(GEN) -I$(DEPS)/include -I$(DEPS)/include/libiberty \
	      -isystem $(UAPI) -isystem $(SDTINC)
BPF_CFLAGS := -target bpf -g -O2 -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-parameter -Wno-sign-compare -I$(DEPS)/include -isystem $(UAPI)

# Every .c under core/ (folders by concern, see ARCHITECTURE.md) and cmd/.
CORE_SRCS := $(sort $(wildcard core/*.c core/*/*.c core/*/*/*.c))
CORE_HDRS := $(sort $(wildcard core/*.h core/*/*.h core/*/*/*.h))
CMD_SRCS  := $(wildcard cmd/*.c)
# bpf/unwind.bpf.c, bpf/event_log.bpf.c and bpf/stack_maps.bpf.c define the maps others declare extern:
# the linker needs the definition before the externs, so they are linked first.
# Likewise bpf/resources.bpf.c before resources_*.bpf.c, which sorting gives.
BPF_FIRST := bpf/unwind.bpf.c bpf/event_log.bpf.c bpf/stack_maps.bpf.c
BPF_SRCS  := $(BPF_FIRST) $(filter-out $(BPF_FIRST),$(sort $(wildcard bpf/*.bpf.c)))
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
# The embedded BTF archive (btf/) is linked in as one more object.
STK_OBJS  := $(patsubst %.c,$(OBJ)/%.o,$(CORE_SRCS) $(CMD_SRCS)) $(OBJ)/btf_archive.o

# The unit-test build (no root, also under ASan) holds every core file outside
# the folders that talk to the kernel through libbpf: core/bpf/, core/attach/,
# core/session/, core/threads/bpf/ and core/snapshot/bpf/ (ARCHITECTURE.md says what each owns),
# and core/terminal/, which draws through ncurses (the model it draws, core/view/, is tested here).
KERNEL_DIRS := core/bpf/ core/attach/ core/session/ core/threads/bpf/ core/snapshot/bpf/
UNIT_CORE := $(filter-out $(addsuffix %,$(KERNEL_DIRS) core/terminal/),$(CORE_SRCS)) btf/btf_archive_pack.c
UNIT_SRCS := $(wildcard tests/unit/*.c)
# The suite table is generated from the "const struct test_case NAME[]" in each test file.
UNIT_SUITES_H := $(GEN)/unit_suites.h
UNIT_LIBS_MUSL := -L$(DEPS)/lib -ldw -lelf -liberty -lcurl -lbearssl -lz -lm
UNIT_LIBS_ASAN := -ldw -lelf -liberty -lcurl -lz -lm
ASAN_CC   ?= clang
ASAN_FLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -fno-omit-frame-pointer \
	      -fsanitize=address,undefined -fno-sanitize-recover=all

TOOLS_STAMP := $(BUILD)/.tools-stamp
DEPS_STAMP  := $(DEPS)/.stamp
NCURSES_LIB := $(DEPS)/lib/libncursesw.a
# What every static link of stk's objects takes.
STK_LIBS    := -L$(DEPS)/lib -lbpf -ldw -lelf -liberty -lcurl -lbearssl -lz -lncursesw -lm

.PHONY: all deps check unit workloads vm-workloads bench vmtest clean distclean FORCE
all: $(BUILD)/stk

$(TOOLS_STAMP): ci/install-build-tools.sh
	@mkdir -p $(BUILD)
	@bash ci/install-build-tools.sh
	@touch $@

$(DEPS_STAMP): ci/build-deps.sh | $(TOOLS_STAMP)
	@BUILD=$(abspath $(BUILD)) ARCH=$(ARCH) bash ci/build-deps.sh

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
	echo '#define STK_MACHINE "$(shell $(CC_MUSL) -dumpmachine 2>/dev/null | cut -d- -f1)"'; \
	echo '#define STK_BUILD_DATE "$(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} +%Y-%m-%d)"'; \
	} > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# threadstate's syscall names, from the UAPI headers stk is built with:
# asm/unistd_64.h (x86_64), or asm-generic/unistd.h (arm64 and other new arches).
SYSCALL_NAMES_H := $(GEN)/syscall_names.h
$(SYSCALL_NAMES_H): $(DEPS_STAMP) Makefile
	@mkdir -p $(@D)
	@{ cat $(UAPI)/asm/unistd_64.h 2>/dev/null || cat $(UAPI)/asm-generic/unistd.h; } | \
		sed -n -e 's/^#define __NR_\([a-z0-9_]*\)[[:space:]]\{1,\}\([0-9]\{1,\}\)$$/\tSTK_SYSCALL(\2, "\1")/p' \
		       -e 's/^#define __NR3264_\([a-z0-9_]*\)[[:space:]]\{1,\}\([0-9]\{1,\}\)$$/\tSTK_SYSCALL(\2, "\1")/p' | \
		awk -F'[(,]' '!seen[$$2]++' > $@.tmp
	@test -s $@.tmp && mv $@.tmp $@

# --- the static binary ---
# Header dependencies come from the compiler (-MMD); generated headers are
# order-only so that the first build has them.
$(OBJ)/%.o: %.c | $(GEN)/stk.skel.h $(GEN)/build_info.h $(SYSCALL_NAMES_H) $(SDTINC)/sys/sdt.h $(NCURSES_LIB)
	@mkdir -p $(@D)
	@echo "  CC       $<"
	@$(CC_MUSL) $(STK_CFLAGS) -MMD -MP -c $< -o $@
-include $(patsubst %.o,%.d,$(STK_OBJS))

# The allocator stk links in place of musl's (ci/build-mimalloc.sh says why).
ALLOC_OBJ := $(DEPS)/lib/mimalloc.o
$(ALLOC_OBJ): ci/build-mimalloc.sh $(DEPS_STAMP)
	@echo "  CC       $@ (mimalloc, Debian's source)"
	@BUILD=$(abspath $(BUILD)) CC_MUSL=$(CC_MUSL) bash ci/build-mimalloc.sh $@

# ncursesw for `stk top`'s full-screen view, with compiled-in terminal
# descriptions for hosts without a terminfo database (ci/build-ncurses.sh).
# Headers: #include <ncursesw/curses.h>.
$(NCURSES_LIB): ci/build-ncurses.sh $(DEPS_STAMP)
	@BUILD=$(abspath $(BUILD)) ARCH=$(ARCH) CC_MUSL=$(CC_MUSL) bash ci/build-ncurses.sh $@

$(BUILD)/stk: $(STK_OBJS) $(ALLOC_OBJ) $(NCURSES_LIB) $(DEPS_STAMP)
	@echo "  LD       $@"
	@$(CC_MUSL) -static -o $@.unstripped $(STK_OBJS) $(ALLOC_OBJ) $(STK_LIBS)
	@$(STRIP) -R .comment -o $@ $@.unstripped
	@echo "  SIZE     $@: $$(stat -c %s $@) bytes stripped (static, musl)"

# --- embedded BTF archive (begin) ---
# make BTF_ARCHIVE=DIR embeds the minimized BTF of every kernel under DIR
# (btfhub-archive layout, see btf/README.md); without it the archive is empty
# and `stk --version` says so. Rebuilt when DIR's file list, the BPF object
# or the pipeline changes; the build prints the sizes per kernel.
BTF_ARCHIVE ?=
BTFB     := $(BUILD)/btf
BTF_PACK := $(BTFB)/stk-btf-pack
BTF_OUT  := $(BTFB)/archive.stkbtf

$(BTF_PACK): btf/pack.c btf/btf_archive_pack.c core/btf/btf_archive.c core/base/grow.c btf/btf_archive_pack.h \
	     core/btf/btf_archive.h | $(TOOLS_STAMP)
	@mkdir -p $(@D)
	@echo "  HOSTCC   $@"
	@gcc -std=c11 -D_GNU_SOURCE $(WARN) -O2 -I. -o $@ $(filter %.c,$^) -lz

# Which input and what is in it: rewritten only when that changes.
$(BTFB)/input.list: FORCE
	@mkdir -p $(@D)
	@{ echo "BTF_ARCHIVE=$(BTF_ARCHIVE)"; [ -z "$(BTF_ARCHIVE)" ] || \
	   find -L "$(BTF_ARCHIVE)/" -type f -printf '%P %s %T@\n' | LC_ALL=C sort; } > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

$(BTF_OUT): $(BTFB)/input.list $(BUILD)/bpf/stk.bpf.o $(BTF_PACK) btf/build-archive.sh
	@echo "  BTF      $@ from $(or $(BTF_ARCHIVE),nothing: no BTF_ARCHIVE=DIR given)"
	@BPFTOOL=$(BPFTOOL) bash btf/build-archive.sh "$(BTF_ARCHIVE)" $(BUILD)/bpf/stk.bpf.o $(BTF_PACK) $@

$(OBJ)/btf_archive.o: $(BTF_OUT) btf/embed.sh $(DEPS_STAMP)
	@mkdir -p $(@D)
	@bash btf/embed.sh $(BTF_OUT) $@ $(CC_MUSL)

# stk linked with the archive of another tree, for tests:
# $(call stk_with_btf,TREE,WORKDIR,OUT) packs TREE into WORKDIR and links OUT.
STK_OBJS_NO_BTF := $(filter-out $(OBJ)/btf_archive.o,$(STK_OBJS))
STK_WITH_BTF_DEPS := $(STK_OBJS_NO_BTF) $(ALLOC_OBJ) $(NCURSES_LIB) $(BTF_PACK) $(BUILD)/bpf/stk.bpf.o btf/build-archive.sh btf/embed.sh $(DEPS_STAMP)
define stk_with_btf
	BPFTOOL=$(BPFTOOL) bash btf/build-archive.sh $(1) $(BUILD)/bpf/stk.bpf.o $(BTF_PACK) $(2)/archive.stkbtf \
	    > $(2)/sizes.txt && \
	bash btf/embed.sh $(2)/archive.stkbtf $(2)/archive.o $(CC_MUSL) && \
	echo "  LD       $(3) (embedded BTF: $$(tail -1 $(2)/sizes.txt | sed 's/^ *total: //'))" && \
	$(CC_MUSL) -static -o $(3) $(STK_OBJS_NO_BTF) $(2)/archive.o $(ALLOC_OBJ) $(STK_LIBS) && \
	$(STRIP) -R .comment $(3)
endef

# For tests/integration/test_info.sh: this host's own kernel BTF under its
# os-release key (from /sys/kernel/btf/vmlinux), so the embedded path runs
# here with sysfs hidden. Skipped without sysfs BTF.
HOSTBTF := $(BUILD)/tests/btf-host
$(BUILD)/tests/stk-hostbtf: $(STK_WITH_BTF_DEPS)
	@if [ -r /sys/kernel/btf/vmlinux ]; then \
	    rm -rf $(HOSTBTF) && . /etc/os-release && \
	    d=$(HOSTBTF)/tree/$$ID/$${VERSION_ID:--}/$$(uname -m | sed 's/^aarch64$$/arm64/') && mkdir -p $$d && \
	    cp /sys/kernel/btf/vmlinux $$d/$$(uname -r).btf && \
	    $(call stk_with_btf,$(HOSTBTF)/tree,$(HOSTBTF),$@); \
	else echo "  SKIP     $@: no /sys/kernel/btf/vmlinux on this host"; fi
check-build: $(BUILD)/tests/stk-hostbtf

# Start-up cost of each BTF source (sysfs, --btf FILE, embedded); part of make bench.
.PHONY: bench-btf
bench-btf: all workloads $(BUILD)/tests/stk-hostbtf
	@BUILD=$(abspath $(BUILD)) bash bench/btf.sh
bench: bench-btf

# For the kernel matrix (tests/vm/run.sh): stk with the BTF of the fetched
# Debian kernels (btf/make-fixture.sh writes STK_VM_BTF_TREE).
STK_VM_BTF_TREE ?= /var/cache/stk-vm/btf-fixture$(if $(CROSS),-$(ARCH))
VMBTF := $(BUILD)/tests/btf-vm
$(VMBTF)/input.list: FORCE
	@mkdir -p $(@D)
	@{ echo "$(STK_VM_BTF_TREE)"; find "$(STK_VM_BTF_TREE)/" -type f -printf '%P %s %T@\n' 2>/dev/null | \
	   LC_ALL=C sort; } > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
$(BUILD)/tests/stk-vm: $(VMBTF)/input.list $(STK_WITH_BTF_DEPS)
	@$(call stk_with_btf,$(STK_VM_BTF_TREE),$(VMBTF),$@)
	@cat $(VMBTF)/sizes.txt
# --- embedded BTF archive (end) ---

# --- tests ---
# FORCE: a suite file deleted must leave the list too; an unchanged list keeps its time.
$(UNIT_SUITES_H): $(UNIT_SRCS) FORCE
	@mkdir -p $(@D)
	@sed -n 's/^const struct test_case \([a-z0-9_]*\)\[\] = {/\1/p' $(UNIT_SRCS) | sort > $@.names
	@{ sed 's/.*/extern const struct test_case &[];/' $@.names; \
	   echo '#define STK_UNIT_SUITES \'; sed 's/.*/\t&, \\/' $@.names; echo; } > $@.tmp
	@rm -f $@.names
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

$(BUILD)/tests/unit: $(UNIT_SRCS) $(UNIT_CORE) $(UNIT_SUITES_H) $(SYSCALL_NAMES_H) $(wildcard tests/unit/*.h tests/fuzz/*.h) $(CORE_HDRS) btf/btf_archive_pack.h $(DEPS_STAMP) \
		     $(ALLOC_OBJ) | $(SDTINC)/sys/sdt.h
	@mkdir -p $(@D)
	@echo "  CC       $@"
	@$(CC_MUSL) -static $(STK_CFLAGS) -I$(DEPS)/include/libiberty -o $@ $(UNIT_SRCS) $(UNIT_CORE) $(ALLOC_OBJ) $(UNIT_LIBS_MUSL)

$(BUILD)/tests/unit-asan: $(UNIT_SRCS) $(UNIT_CORE) $(UNIT_SUITES_H) $(SYSCALL_NAMES_H) $(wildcard tests/unit/*.h tests/fuzz/*.h) $(CORE_HDRS) btf/btf_archive_pack.h
	@mkdir -p $(@D)
	@echo "  CC       $@ (ASan+UBSan)"
	@$(ASAN_CC) $(ASAN_FLAGS) -I. -I$(GEN) -I/usr/include/libiberty -o $@ $(UNIT_SRCS) $(UNIT_CORE) $(UNIT_LIBS_ASAN)

# Workloads with known stacks for the integration tests (frame pointers on).
W := $(BUILD)/tests/workloads
# -O0: gcc 12 drops the frame of leaf functions at -O1 even with -mno-omit-leaf-frame-pointer.
WL_CFLAGS := -O0 -g -fno-omit-frame-pointer -Wall -Wextra -Werror
# aarch64 gcc omits leaf functions' frame records by default: their callers
# would vanish from frame-pointer stacks (the return address stays in x30).
ifeq ($(ARCH),arm64)
WL_CFLAGS += -mno-omit-leaf-frame-pointer
endif
WORKLOADS := $(W)/burn_static $(W)/burn_nopie $(W)/burn_pie $(W)/burn_stripped $(W)/burn_cxx \
	     $(W)/burn_shlib $(W)/libstkburn.so $(W)/offcpu $(W)/offcpu_alternate $(W)/offcpu_jit $(W)/napper $(W)/offcpu_pingpong $(W)/offcpu_static \
	     $(W)/readloop $(W)/readloop_static \
	     $(W)/threads $(W)/threads_static $(W)/jit_spin \
	     $(W)/nofp $(W)/nofp_static $(W)/nofp_cxx $(W)/nofp_noeh $(W)/deep $(W)/deep_static \
	     $(W)/bad_stack $(W)/remap $(W)/libstkremap.so \
	     $(W)/burn_nodebug $(W)/manystacks $(W)/manystacks_stripped $(W)/inline_chain $(W)/hostile_cfi \
	     $(W)/pmp_threads $(W)/pmp_threads_static \
	     $(W)/resources $(W)/resources_static \
	     $(W)/phases $(W)/phases_static \
	     $(W)/fake_python $(W)/fake_python312 $(W)/fake_python313 $(W)/fake_python_static

$(W)/burn_static: tests/workloads/burn.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC_MUSL) -static $(WL_CFLAGS) -o $@ $<
$(W)/burn_nopie: tests/workloads/burn.c
	@mkdir -p $(@D)
	@gcc -no-pie -fno-pie $(WL_CFLAGS) -o $@ $<
$(W)/burn_pie: tests/workloads/burn.c
	@mkdir -p $(@D)
	@gcc -pie -fPIE $(WL_CFLAGS) -o $@ $<
# Stripped of every symbol; its symbols live only in the .debug file it links to.
$(W)/burn_stripped: $(W)/burn_pie
	@objcopy --only-keep-debug $< $@.debug
	@objcopy --strip-all --add-gnu-debuglink=$@.debug $< $@
# Stripped of every symbol, no debuglink: its debug file exists only in tests/debugstore
# (for PPROF_BINARY_PATH and a test debuginfod server), nowhere the symbolizer looks.
$(W)/burn_nodebug $(BUILD)/tests/debugstore/burn_nodebug &: $(W)/burn_pie
	@mkdir -p $(BUILD)/tests/debugstore
	@objcopy --only-keep-debug $< $(BUILD)/tests/debugstore/burn_nodebug
	@objcopy --strip-all $< $(W)/burn_nodebug
# 4,096 distinct stacks through static functions; stripped, only CFI knows where functions start
# (the unstripped twin names them for the test).
$(W)/manystacks: bench/manystacks.c
	@mkdir -p $(@D)
	@gcc -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $<
$(W)/manystacks_stripped: $(W)/manystacks
	@strip --strip-all -o $@ $<
# outer -> two always_inline functions: only DWARF names them (-O2, frame pointers kept).
$(W)/inline_chain: tests/workloads/inline_chain.c
	@mkdir -p $(@D)
	@gcc -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $<
$(W)/burn_cxx: tests/workloads/burn_cxx.cpp
	@mkdir -p $(@D)
	@g++ -O0 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $<
$(W)/libstkburn.so: tests/workloads/burn_lib.c
	@mkdir -p $(@D)
	@gcc -shared -fPIC $(WL_CFLAGS) -o $@ $<
$(W)/burn_shlib: tests/workloads/burn_shlib.c $(W)/libstkburn.so
	@gcc $(WL_CFLAGS) -o $@ $< -L$(W) -lstkburn -Wl,-rpath,'$$ORIGIN'
# Threads that block in known ways (offcputime), and a pipe ping-pong for its bench.
$(W)/offcpu: tests/workloads/offcpu.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -pthread -o $@ $<
# One thread blocking at one place from two callers in turn (the kernel walk's kept walks).
$(W)/offcpu_alternate: tests/workloads/offcpu_alternate.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -o $@ $<
# Blocking from code without CFI whose frame pointer is data (the kept walks' failed guesses).
$(W)/offcpu_jit: tests/workloads/offcpu_jit.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -o $@ $<
# Threads napping many times, saying how long they were off CPU (sampled off-CPU time against the truth).
$(W)/napper: tests/workloads/napper.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -pthread -o $@ $<
# Static (musl) build for the kernel-matrix initramfs, which has no libc.
$(W)/offcpu_static: tests/workloads/offcpu.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC_MUSL) -static $(WL_CFLAGS) -o $@ $< -lpthread
# Threads in known states (threadstate); the static one runs in the kernel matrix.
$(W)/threads: tests/workloads/threads.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -pthread -o $@ $<
$(W)/threads_static: tests/workloads/threads.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC_MUSL) -static $(WL_CFLAGS) -o $@ $< -lpthread
# Spins in anonymous executable memory, as JIT code does (tests/integration/test_hardening.sh).
$(W)/jit_spin: tests/workloads/jit_spin.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -o $@ $<
# CFI that would cost libdw minutes and a gigabyte per lookup (test_hardening.sh), beside a normal thread.
$(W)/hostile_cfi: tests/workloads/hostile_cfi.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -pthread -o $@ $<
$(W)/offcpu_pingpong: tests/workloads/offcpu_pingpong.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -pthread -o $@ $<

# Known call counts on known paths, with USDT probes (stackcount); static for the kernel matrix.
$(W)/readloop: tests/workloads/readloop.c $(SDTINC)/sys/sdt.h
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -isystem $(SDTINC) -o $@ $<
$(W)/readloop_static: tests/workloads/readloop.c $(SDTINC)/sys/sdt.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC_MUSL) -static $(WL_CFLAGS) -isystem $(SDTINC) -o $@ $<

# No frame pointers (gcc's -O2 default, made explicit): only CFI unwinding finds the callers.
NOFP_CFLAGS := -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror
$(W)/nofp: tests/workloads/nofp.c
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -pthread -o $@ $<
# Static with glibc (for the kernel matrix's initramfs): glibc has CFI everywhere, as
# distribution libcs do; Debian's musl is built without unwind tables.
$(W)/nofp_static: tests/workloads/nofp.c
	@mkdir -p $(@D)
	@$(CROSS)gcc -static $(NOFP_CFLAGS) -pthread -o $@ $<
$(W)/nofp_cxx: tests/workloads/nofp_cxx.cpp
	@mkdir -p $(@D)
	@g++ $(NOFP_CFLAGS) -o $@ $<
# Threads blocked in known functions, and one spinning (stk pmp); static with glibc as nofp_static.
$(W)/pmp_threads: tests/workloads/pmp_threads.c
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -pthread -o $@ $<
$(W)/pmp_threads_static: tests/workloads/pmp_threads.c
	@mkdir -p $(@D)
	@$(CROSS)gcc -static $(NOFP_CFLAGS) -pthread -o $@ $<
# Phases at known times and requests with known ids, no frame pointers, USDT around each request
# (the event log's tests); static with glibc for the kernel matrix, as nofp_static.
$(W)/phases: tests/workloads/phases.c $(SDTINC)/sys/sdt.h
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -isystem $(SDTINC) -o $@ $<
$(W)/phases_static: tests/workloads/phases.c $(SDTINC)/sys/sdt.h
	@mkdir -p $(@D)
	@$(CROSS)gcc -static $(NOFP_CFLAGS) -isystem $(SDTINC) -o $@ $<
# 49 levels of 700-byte frames without frame pointers: deeper than a stack copy reaches.
$(W)/deep: tests/workloads/deep.c
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -o $@ $<
$(W)/deep_static: tests/workloads/deep.c
	@mkdir -p $(@D)
	@$(CROSS)gcc -static $(NOFP_CFLAGS) -o $@ $<
# Stacks that are wrong or endless to walk (hand-written assembly and CFI).
$(W)/bad_stack: tests/workloads/bad_stack.c
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -o $@ $<
# A library loaded and unloaded at changing addresses, without frame pointers.
$(W)/libstkremap.so: tests/workloads/burn_lib.c
	@mkdir -p $(@D)
	@gcc -shared -fPIC $(NOFP_CFLAGS) -o $@ $<
$(W)/remap: tests/workloads/remap.c
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -o $@ $< -ldl
# Known bytes of memory, disk and network per function (stk resources), without frame pointers;
# static with glibc for the kernel matrix, as nofp_static.
$(W)/resources: tests/workloads/resources.c
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -pthread -o $@ $<
$(W)/resources_static: tests/workloads/resources.c
	@mkdir -p $(@D)
	@$(CROSS)gcc -static $(NOFP_CFLAGS) -pthread -o $@ $<
# A hostile "Python" (tests/integration/test_python.sh): 3.11's shape, and claiming 3.12 and 3.13.
$(W)/fake_python: tests/workloads/fake_python.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -rdynamic -pthread -o $@ $<
$(W)/fake_python312: tests/workloads/fake_python.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -DVERSION=0x030c01f0 -rdynamic -pthread -o $@ $<
$(W)/fake_python313: tests/workloads/fake_python.c
	@mkdir -p $(@D)
	@gcc $(WL_CFLAGS) -DVERSION=0x030d00f0 -rdynamic -pthread -o $@ $<
# static for the kernel matrix: its symbols in .symtab (the interpreter is found by its .PyRuntime section)
$(W)/fake_python_static: tests/workloads/fake_python.c
	@mkdir -p $(@D)
	@$(CROSS)gcc -static $(WL_CFLAGS) -pthread -o $@ $<
# No .eh_frame at all (and no .debug_frame): unwinding must stop with a reason, not crash.
$(W)/nofp_noeh: tests/workloads/nofp.c
	@mkdir -p $(@D)
	@gcc $(NOFP_CFLAGS) -g0 -fno-asynchronous-unwind-tables -fno-unwind-tables -pthread -o $@.tmp $<
	@objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr $@.tmp $@ && rm -f $@.tmp

workloads: $(WORKLOADS)
# The musl-static ones, which the kernel matrix's initramfs holds (any ARCH).
VM_WORKLOADS := $(filter %_static,$(WORKLOADS))
vm-workloads: $(VM_WORKLOADS)

unit: $(BUILD)/tests/unit $(BUILD)/tests/unit-asan

# check-build: everything make check runs, built without running it (.ci/run builds it two
# jobs at a time first); each part below adds itself as a prerequisite.
.PHONY: check-build
check-build: all unit $(WORKLOADS)
check: check-build
	@BUILD=$(abspath $(BUILD)) bash tests/run.sh

# On an x86_64 host, make check also cross-builds the arm64 stk and the
# static workloads of its kernel matrix into $(BUILD)/arm64 (tests/run.sh
# checks the binary under qemu-aarch64-static and boots the arm64 matrix).
ifeq ($(HOST_ARCH)$(ARCH),x86x86)
.PHONY: cross-arm64
cross-arm64:
	@$(MAKE) --no-print-directory ARCH=arm64 BUILD=$(BUILD)/arm64 all vm-workloads
check-build: cross-arm64
endif

# The kernel matrix alone (also part of check): Debian kernels under qemu;
# ARCH=arm64 boots the arm64 kernels with the arm64 stk (qemu-system-aarch64).
vmtest: all vm-workloads
	@BUILD=$(abspath $(BUILD)) ARCH=$(ARCH) bash tests/vm/run.sh

# Benchmarks against bpftrace and perf (root; installs them with apt). Not part of check.
bench: all workloads
	@BUILD=$(abspath $(BUILD)) bash bench/profile.sh
	@BUILD=$(abspath $(BUILD)) bash bench/unwind.sh
	@BUILD=$(abspath $(BUILD)) bash bench/offcputime.sh
	@BUILD=$(abspath $(BUILD)) bash bench/resources.sh
	@BUILD=$(abspath $(BUILD)) bash bench/stackcount.sh
	@BUILD=$(abspath $(BUILD)) bash bench/threadstate.sh
	@BUILD=$(abspath $(BUILD)) bash bench/symbols.sh

clean:
	rm -rf $(OBJ) $(GEN) $(BUILD)/bpf $(BUILD)/tests $(BUILD)/stk $(BUILD)/stk.unstripped $(BUILD)/btf $(BUILD)/bench

distclean:
	rm -rf $(BUILD)

# --- symbolizer fixtures (begin) ---
# Programs with known function names, built every way the symbolizer must
# handle; tests/unit/test_symbolize*.c run them and resolve their addresses.
FIX       := $(BUILD)/tests/fixtures
FIX_SRC   := tests/fixtures/sym_fixture.c
FIX_FLAGS := -std=c11 -O1 -g $(WARN)
FIXTURES  := $(FIX)/sym_nopie $(FIX)/sym_pie $(FIX)/libstkfix.so $(FIX)/sym_uselib \
	     $(FIX)/sym_stripped $(FIX)/sym_stripped.debug $(FIX)/sym_dynsym_only \
	     $(FIX)/sym_cxx $(FIX)/sym_lld $(FIX)/libstkweak.so

$(FIX)/sym_nopie: $(FIX_SRC)
	@mkdir -p $(@D)
	@echo "  FIXTURE  $@"
	@gcc $(FIX_FLAGS) -fno-pie -no-pie -o $@ $<
$(FIX)/sym_pie: $(FIX_SRC)
	@mkdir -p $(@D)
	@echo "  FIXTURE  $@"
	@gcc $(FIX_FLAGS) -fPIE -pie -o $@ $<
$(FIX)/libstkfix.so: tests/fixtures/sym_fixture_lib.c
	@mkdir -p $(@D)
	@echo "  FIXTURE  $@"
	@gcc $(FIX_FLAGS) -fPIC -shared -o $@ $<
$(FIX)/sym_uselib: $(FIX_SRC) $(FIX)/libstkfix.so
	@echo "  FIXTURE  $@"
	@gcc $(FIX_FLAGS) -DWITH_LIB -fPIE -pie -o $@ $< -L$(FIX) -lstkfix -Wl,-rpath,'$$ORIGIN'
# Stripped, symbols only in the separate debug file found through .gnu_debuglink.
$(FIX)/sym_stripped $(FIX)/sym_stripped.debug &: $(FIX_SRC)
	@mkdir -p $(@D)
	@echo "  FIXTURE  $(FIX)/sym_stripped (+ .debug)"
	@gcc $(FIX_FLAGS) -fPIE -pie -o $(FIX)/sym_stripped.full $<
	@objcopy --only-keep-debug $(FIX)/sym_stripped.full $(FIX)/sym_stripped.debug
	@strip --strip-debug --strip-unneeded -o $(FIX)/sym_stripped $(FIX)/sym_stripped.full
	@cd $(FIX) && objcopy --add-gnu-debuglink=sym_stripped.debug sym_stripped
	@rm -f $(FIX)/sym_stripped.full
# Stripped with no debug file: only the exported (-rdynamic) functions remain, in .dynsym.
$(FIX)/sym_dynsym_only: $(FIX_SRC)
	@mkdir -p $(@D)
	@echo "  FIXTURE  $@"
	@gcc $(FIX_FLAGS) -fPIE -pie -rdynamic -Wl,--build-id=none -s -o $@ $<
$(FIX)/sym_cxx: tests/fixtures/sym_fixture_cxx.cpp
	@mkdir -p $(@D)
	@echo "  FIXTURE  $@"
	@g++ -std=c++17 -O1 -g $(WARN) -fPIE -pie -o $@ $<
# lld packs segments so the text segment's p_vaddr != p_offset: non-trivial PT_LOAD math.
$(FIX)/sym_lld: $(FIX_SRC)
	@mkdir -p $(@D)
	@echo "  FIXTURE  $@"
	@gcc $(FIX_FLAGS) -fPIE -pie -fuse-ld=lld -o $@ $<
# Weak aliases and versioned names (glibc's nanosleep shape), stripped: .dynsym + .gnu.version only.
$(FIX)/libstkweak.so: tests/fixtures/sym_weak_lib.c tests/fixtures/sym_weak_lib.map
	@mkdir -p $(@D)
	@echo "  FIXTURE  $@"
	@gcc $(FIX_FLAGS) -fPIC -shared -s -Wl,--version-script=tests/fixtures/sym_weak_lib.map -o $@ $<
$(BUILD)/tests/unit $(BUILD)/tests/unit-asan: $(FIXTURES)
# --- symbolizer fixtures (end) ---

# --- Parquet drivers (begin) ---
# pq_sample writes Parquet files with known rows, which
# tests/integration/test_parquet.sh reads back with DuckDB and with stk's
# reader; parquet_bench times the writer (bench/parquet.sh, make bench-parquet).
# Both link core/parquet/ and what it needs, nothing else.
PQ_SRCS := $(wildcard core/parquet/*.c) core/base/grow.c core/base/byte_buf.c core/base/gzip.c core/base/key_index.c tests/parquet/event_stream.c tests/parquet/bench_common.c
PQ_HDRS := $(wildcard core/parquet/*.h tests/parquet/*.h)
$(BUILD)/tests/pq_sample: tests/parquet/pq_sample.c $(PQ_SRCS) $(PQ_HDRS) $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC       $@"
	@$(CC_MUSL) -static $(STK_CFLAGS) -o $@ $< $(PQ_SRCS) -L$(DEPS)/lib -lz -lm
$(BUILD)/bench/parquet_bench: bench/parquet_bench.c $(PQ_SRCS) $(PQ_HDRS) $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC       $@"
	@$(CC_MUSL) -static $(STK_CFLAGS) -o $@ $< $(PQ_SRCS) -L$(DEPS)/lib -lz -lm
# eventlog_bench times the event log's writer (bench/eventlog.sh, make bench-eventlog).
EVLOG_SRCS := core/eventlog/event_writer.c core/eventlog/event_schema.c core/eventlog/frames_codec.c core/eventlog/frame_lines.c \
	core/threads/syscall_table.c
$(BUILD)/bench/eventlog_bench: bench/eventlog_bench.c $(PQ_SRCS) $(EVLOG_SRCS) $(PQ_HDRS) $(wildcard core/eventlog/*.h) $(DEPS_STAMP) \
				$(SYSCALL_NAMES_H)
	@mkdir -p $(@D)
	@echo "  CC       $@"
	@$(CC_MUSL) -static $(STK_CFLAGS) -o $@ $< $(PQ_SRCS) $(EVLOG_SRCS) -L$(DEPS)/lib -lz -lm
# bench/allocator.sh: the same stk linked with musl's own allocator, for comparison.
$(BUILD)/bench/stk-musl-malloc: $(STK_OBJS) $(NCURSES_LIB) $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  LD       $@"
	@$(CC_MUSL) -static -o $@ $(STK_OBJS) $(STK_LIBS)
	@$(STRIP) $@
.PHONY: bench-allocator
bench-allocator: all workloads $(BUILD)/bench/stk-musl-malloc
	@BUILD=$(abspath $(BUILD)) bash bench/allocator.sh
bench: bench-allocator
check-build: $(BUILD)/tests/pq_sample
# python_layout_dwarf checks core/runtime's CPython 3.11 layout against the DWARF of Debian's python3.11-dbg
# (tests/integration/test_python.sh): the layout table and libdw, nothing else.
$(BUILD)/tests/python_layout_dwarf: tests/integration/python_layout_dwarf.c core/runtime/python_layout.c \
				    core/runtime/python_layout.h $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC       $@"
	@$(CC_MUSL) -static $(STK_CFLAGS) -o $@ $< core/runtime/python_layout.c -L$(DEPS)/lib -ldw -lelf -lz
check-build: $(BUILD)/tests/python_layout_dwarf
.PHONY: bench-parquet
bench-parquet: $(BUILD)/bench/parquet_bench
	@BUILD=$(abspath $(BUILD)) bash bench/parquet.sh
bench: bench-parquet
.PHONY: bench-eventlog
bench-eventlog: all $(BUILD)/bench/eventlog_bench
	@BUILD=$(abspath $(BUILD)) bash bench/eventlog.sh
# --- Parquet drivers (end) ---

# --- fuzzing (begin) ---
# libFuzzer targets: tests/fuzz/fuzz_NAME.c, one per parser of outside data,
# seeds in tests/fuzz/corpus/NAME/. A new target is one more fuzz_NAME.c file.
#   make fuzz            fuzz each for FUZZ_SECONDS (new inputs: build/fuzz/corpus/NAME)
#   make check           runs each over its seed corpus (tests/fuzz/run.sh regress)
FUZZ_SECONDS ?= 60
FUZZ := $(BUILD)/fuzz
FUZZ_BINS := $(patsubst tests/fuzz/fuzz_%.c,$(FUZZ)/fuzz_%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_FLAGS := $(ASAN_FLAGS) -I. -I$(GEN) -I/usr/include/libiberty
FUZZ_OBJS := $(patsubst %.c,$(FUZZ)/obj/%.o,$(filter core/%,$(UNIT_CORE)))
.PHONY: fuzz fuzz-build
$(FUZZ)/obj/%.o: %.c | $(TOOLS_STAMP) $(SYSCALL_NAMES_H)
	@mkdir -p $(@D)
	@$(ASAN_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
-include $(FUZZ_OBJS:.o=.d)
$(FUZZ)/libstk-fuzz.a: $(FUZZ_OBJS)
	@rm -f $@
	@ar rcs $@ $^
$(FUZZ)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FUZZ)/libstk-fuzz.a
	@echo "  FUZZ     $@"
	@$(ASAN_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ)/libstk-fuzz.a $(UNIT_LIBS_ASAN)
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	@BUILD=$(abspath $(BUILD)) bash tests/fuzz/run.sh fuzz $(FUZZ_SECONDS)
check-build: fuzz-build
# --- fuzzing (end) ---

# --- packaging (begin) ---
# make man: build/packaging/stk.8 (version and date filled in)
# make deb: build/packaging/stk_VERSION_ARCH.deb (dpkg-deb, from a staged tree)
# make rpm: build/packaging/stk-VERSION-1.ARCH.rpm (rpmbuild, _topdir under build/)
# Both packages hold the tree packaging/stage.sh stages from build/stk.
PKG := $(BUILD)/packaging
.PHONY: deb rpm man

man: $(PKG)/stk.8
# FORCE: the date comes from the last commit; build.sh keeps an unchanged file.
$(PKG)/stk.8: packaging/man/stk.8.in packaging/man/build.sh VERSION FORCE
	@bash packaging/man/build.sh $@

# Restaged on every run (a fraction of a second): the changelog follows git.
$(PKG)/.stage-stamp: $(BUILD)/stk $(PKG)/stk.8 FORCE
	@echo "  STAGE    $(PKG)/stage"
	@bash packaging/stage.sh $(BUILD)/stk $(PKG)/stk.8 $(PKG)/stage
	@touch $@

# The target's names: Debian's (amd64, arm64) and rpm's (x86_64, aarch64).
DEB_ARCH := $(if $(filter arm64,$(ARCH)),arm64,amd64)
RPM_ARCH := $(if $(filter arm64,$(ARCH)),aarch64,x86_64)
deb: $(PKG)/.stage-stamp
	@rm -f $(PKG)/stk_*.deb
	@out=$$(DEB_ARCH=$(DEB_ARCH) bash packaging/deb/build.sh $(PKG)/stage $(PKG)) && echo "  DEB      $$out"

rpm: $(PKG)/.stage-stamp
	@rm -f $(PKG)/stk-*.rpm
	@out=$$(RPM_ARCH=$(RPM_ARCH) bash packaging/rpm/build.sh $(PKG)/stage $(PKG)/rpmbuild $(PKG)) && echo "  RPM      $$out"
# --- packaging (end) ---
