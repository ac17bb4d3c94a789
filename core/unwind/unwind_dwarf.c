#include "core/unwind/unwind_dwarf.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf/user_regs.h"
#include "core/base/clock.h"
#include "core/base/grow.h"
#include "core/unwind/cfi_guard.h"

#define MAX_REASONS 64

#define STR_(x) #x
#define STR(x) STR_(x)
static const char over_time[] = "unwinding stopped: over " STR(STK_UNWIND_MAX_SAMPLE_MS) " ms of CPU for this sample";
static const char unchecked[] = "CFI refused: the module's CFI was not checked";
static const char unknown_cfa_reg[] = "the CFA there needs a register whose value was not read (only some were)";

/* The sample being unwound: what libdwfl's callbacks read from. */
struct current {
	const struct stk_unwind_input *in;
	int read_outside; /* a read fell outside the copied stack (and the reader had nothing there) */
	struct stk_unwind_result *r;
	bool want_how;
	bool records_after_guess; /* aarch64: see walk_frame_records() */
	const char *stop;         /* set where stk, not libdwfl, ended the chain */
	int64_t mono_start, cpu_start; /* the sample's unwinding began (CLOCK_MONOTONIC, thread CPU) */
	uint64_t *sps;            /* each frame's stack pointer (the source's interpreted frames need them), or NULL */
};

/* aarch64 DWARF numbers of the frame pointer and the link register. */
#define AARCH64_FP 29
#define AARCH64_LR 30

/* A reported module's file and guard: libdwfl's userdata for it. */
struct module_ref {
	Elf *elf;
	const struct stk_cfi_guard *guard;
};

/* A process's session, kept in its entry of the process table (struct stk_process's unwinder). */
struct stk_unwinder_proc {
	pid_t pid;
	uint64_t generation; /* of the mappings it was made from */
	const struct stk_unwinder *owner; /* libdwfl calls back into its unwinder: another one makes its own */
	Dwfl *dwfl; /* NULL: nothing to unwind with (reason in why) */
	const char *why;
	bool aarch64; /* its executable is aarch64 code */
	struct module_ref **refs; /* one per reported module, for as long as dwfl */
	size_t n_refs, cap_refs;
};

struct stk_unwinder {
	struct stk_unwind_source src;
	struct current cur;
	char *reasons[MAX_REASONS]; /* interned stop reasons from libdwfl */
	size_t n_reasons;
	uint64_t *sps; /* each frame's stack pointer, for the source's interpreted frames */
	size_t cap_sps;
};

const char *stk_unwind_how_name(enum stk_unwind_how how)
{
	switch (how) {
	case STK_FRAME_BY_REGS: return "regs";
	case STK_FRAME_BY_CFI: return "cfi";
	case STK_FRAME_BY_FP: return "fp";
	case STK_FRAME_BY_INTERPRETER: return "interpreter";
	}
	return "?";
}

static const char *intern_reason(struct stk_unwinder *u, const char *msg)
{
	for (size_t i = 0; i < u->n_reasons; i++)
		if (strcmp(u->reasons[i], msg) == 0)
			return u->reasons[i];
	if (u->n_reasons == MAX_REASONS || !(u->reasons[u->n_reasons] = strdup(msg)))
		return "unwinding failed";
	return u->reasons[u->n_reasons++];
}

/* ---- libdwfl callbacks ---- */

/* The module's ELF is the source's: hand libdwfl a counted reference to it. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
		    Elf **elfp)
{
	const struct module_ref *ref = *userdata;

	(void)mod, (void)name, (void)base, (void)file_name;
	*elfp = ref ? elf_begin(-1, ELF_C_READ_MMAP, ref->elf) : NULL;
	return -1;
}

/* No separate debug files: .eh_frame (and .debug_frame when the file has it) suffice. */
static int find_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			     const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			     char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct current *c = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = c;
	return c->in->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the copied stack; false outside it. */
static bool copied_word(const struct stk_unwind_input *in, Dwarf_Addr addr, Dwarf_Word *result)
{
	if (addr < in->sp || addr - in->sp > in->stack_len || in->stack_len - (addr - in->sp) < sizeof(*result))
		return false;
	memcpy(result, in->stack + (addr - in->sp), sizeof(*result));
	return true;
}

/* A stack word from the copy, else from the input's reader; false when neither has it. */
static bool stack_word(struct current *c, Dwarf_Addr addr, Dwarf_Word *result)
{
	uint64_t w;

	if (copied_word(c->in, addr, result))
		return true;
	if (!c->in->read_more || !c->in->read_more(c->in->read_ctx, addr, &w)) {
		c->read_outside = 1;
		return false;
	}
	*result = w;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	return stack_word(arg, addr, result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct current *c = arg;
	const struct stk_unwind_input *in = c->in;
	uint64_t pc = in->regs[in->n_regs - 1];

	if (!in->regs_known)
		return dwfl_thread_state_registers(thread, 0, (unsigned)in->n_regs, in->regs) &&
		       (dwfl_thread_state_register_pc(thread, pc), true);
	/* Only some are known (a /proc snapshot has sp and pc): the others stay undefined for libdw. */
	for (unsigned i = 0; i + 1 < in->n_regs && i < 64; i++)
		if (((in->regs_known >> i) & 1) && !dwfl_thread_state_registers(thread, (int)i, 1, &in->regs[i]))
			return false;
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- per-process sessions ---- */

struct report_ctx {
	Dwfl *dwfl;
	struct stk_unwinder_proc *p;
	Elf *first;
	unsigned reported;
};

/*
 * Reports one mapping as a module spanning from its ELF's first PT_LOAD to
 * the mapping's end, so libdwfl's load bias (low address - first PT_LOAD's
 * aligned vaddr) equals the real one: mapping start - vaddr of its offset.
 */
static void report_module(struct report_ctx *rc, const struct stk_mapping *m, Elf *elf,
			  const struct stk_cfi_guard *guard)
{
	struct stk_unwinder_proc *p = rc->p;
	struct module_ref *ref;
	uint64_t bias = 0, first_vaddr = 0;
	int have_bias = 0, have_first = 0;
	size_t phnum;
	GElf_Ehdr eh;
	Dwfl_Module *mod;
	void **userdata;

	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum))
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!have_first) {
			first_vaddr = ph.p_align ? ph.p_vaddr & -ph.p_align : ph.p_vaddr;
			have_first = 1;
		}
		if (!have_bias && m->offset >= ph.p_offset && m->offset < ph.p_offset + ph.p_filesz) {
			bias = m->start - (ph.p_vaddr + (m->offset - ph.p_offset));
			have_bias = 1;
		}
	}
	if (!have_bias || !have_first)
		return;
	if (eh.e_type == ET_EXEC)
		bias = 0;
	if (first_vaddr + bias >= m->end)
		return;
	if (stk_grow((void **)&p->refs, &p->cap_refs, p->n_refs + 1, sizeof(*p->refs)) ||
	    !(ref = malloc(sizeof(*ref))))
		return;
	*ref = (struct module_ref){ elf, guard };
	p->refs[p->n_refs++] = ref;
	mod = dwfl_report_module(rc->dwfl, m->path, first_vaddr + bias, m->end);
	if (!mod)
		return; /* overlaps a module already reported (a second mapping of the same file) */
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = ref;
	if (!rc->first)
		rc->first = elf;
	rc->reported++;
}

static void free_refs(struct stk_unwinder_proc *p)
{
	for (size_t i = 0; i < p->n_refs; i++)
		free(p->refs[i]);
	free(p->refs);
	p->refs = NULL;
	p->n_refs = p->cap_refs = 0;
}

/*
 * Each of proc's file mappings with a kept ELF, gone ones aside, reported as
 * a module; then each JIT range with CFI, as a module whose ELF holds that
 * CFI for code at 0 (reported as a mapping of it from offset 0: biased to the range).
 */
static void report_modules(struct report_ctx *rc, const struct stk_process *proc)
{
	for (size_t i = 0; i < proc->n_maps; i++) {
		const struct stk_mapping *m = &proc->maps[i];

		if (m->kind == STK_MAPPING_FILE && !m->gone && m->file && m->file->elf)
			report_module(rc, m, m->file->elf, stk_file_cfi_guard(m->file));
	}
	for (size_t i = 0; i < proc->n_jit && rc->first; i++) {
		const struct stk_jit_code *j = &proc->jit[i];
		struct stk_mapping m = { .start = j->start, .end = j->end, .path = "[jit]", .kind = STK_MAPPING_ANON };

		if (j->file->elf)
			report_module(rc, &m, j->file->elf, stk_file_cfi_guard(j->file));
	}
}

static void open_session(struct stk_unwinder *u, struct stk_unwinder_proc *p, const struct stk_process *proc)
{
	struct report_ctx rc = { .p = p };

	p->dwfl = NULL;
	if (!(rc.dwfl = dwfl_begin(&dwfl_callbacks))) {
		p->why = "libdwfl: out of memory";
		return;
	}
	dwfl_report_begin(rc.dwfl);
	report_modules(&rc, proc);
	dwfl_report_end(rc.dwfl, NULL, NULL);
	if (!rc.reported) {
		p->why = "no executable file mappings with readable ELF files";
		goto fail;
	}
	GElf_Ehdr eh;
	p->aarch64 = gelf_getehdr(rc.first, &eh) && eh.e_machine == EM_AARCH64;
	if (!dwfl_attach_state(rc.dwfl, rc.first, p->pid, &thread_callbacks, &u->cur)) {
		p->why = intern_reason(u, dwfl_errmsg(-1));
		goto fail;
	}
	p->dwfl = rc.dwfl;
	return;
fail:
	dwfl_end(rc.dwfl);
	free_refs(p);
}

void stk_unwinder_slot_free(struct stk_unwinder_proc *p)
{
	if (!p)
		return;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free_refs(p);
	free(p);
}

/* pid's session from its entry, made again when its mappings changed since; NULL when pid is unknown. */
static struct stk_unwinder_proc *get_proc(struct stk_unwinder *u, pid_t pid)
{
	struct stk_process *proc = u->src.process(u->src.table, pid);
	struct stk_unwinder_proc *p;

	if (!proc)
		return NULL;
	p = proc->unwinder;
	if (p && p->generation == proc->generation && p->owner == u)
		return p;
	stk_unwinder_slot_free(p);
	proc->unwinder = p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->generation = proc->generation;
	p->owner = u;
	open_session(u, p, proc);
	return p;
}

struct stk_unwinder *stk_unwinder_new(const struct stk_unwind_source *src)
{
	struct stk_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	elf_version(EV_CURRENT);
	u->src = *src;
	return u;
}

void stk_unwinder_prepare(struct stk_unwinder *u, pid_t pid)
{
	get_proc(u, pid);
}

void stk_unwinder_free(struct stk_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n_reasons; i++)
		free(u->reasons[i]);
	free(u->sps);
	free(u);
}

/* ---- unwinding ---- */

/* Why libdw must not run the CFI covering the lookup address, or NULL (also: no module there, so no CFI). */
static const char *cfi_refused(Dwfl *dwfl, Dwarf_Addr lookup)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, lookup);
	const struct module_ref *ref;
	Dwarf_Addr bias;
	void **userdata;

	if (!mod)
		return NULL;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	ref = *userdata;
	if (!ref || !ref->guard)
		return unchecked;
	/* Without its ELF libdwfl reads no CFI of the module either. */
	return dwfl_module_getelf(mod, &bias) ? stk_cfi_guard_check(ref->guard, lookup - bias) : NULL;
}

/*
 * The guard's verdict on what libdwfl runs next: the CFI of this frame's
 * lookup address, pc for the first frame, else pc - 1 (pc itself after a
 * signal frame, which the callback cannot tell apart: both are checked).
 */
static const char *next_step_refused(Dwfl *dwfl, Dwarf_Addr pc, bool first)
{
	const char *why = cfi_refused(dwfl, pc);

	return why || first ? why : cfi_refused(dwfl, pc - 1);
}

/* Whether the module at pc has CFI for it (a caller's pc points after its call) that the guard lets run. */
static bool has_cfi(Dwfl *dwfl, Dwarf_Addr pc, bool activation)
{
	Dwarf_Addr lookup = activation ? pc : pc - 1, bias;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, lookup);
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;

	if (!mod || cfi_refused(dwfl, lookup))
		return false;
	for (int kind = 0; kind < 2; kind++) {
		cfi = kind == 0 ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		if (cfi && dwarf_cfi_addrframe(cfi, lookup - bias, &frame) == 0) {
			free(frame);
			return true;
		}
	}
	return false;
}

/*
 * With registers known in part: whether the next step's CFA (the frame at
 * pc's CFI, as libdwfl reads it next) is a register this frame does not
 * know. libdwfl then ends the chain as if it were the outermost frame.
 */
static bool cfa_register_unknown(Dwfl *dwfl, Dwfl_Frame *state, Dwarf_Addr pc, bool activation)
{
	Dwarf_Addr lookup = activation ? pc : pc - 1, bias;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, lookup);
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t nops;

	if (!mod || cfi_refused(dwfl, lookup))
		return false;
	for (int kind = 0; kind < 2; kind++) {
		Dwarf_CFI *cfi = kind == 0 ? dwfl_module_dwarf_cfi(mod, &bias) : dwfl_module_eh_cfi(mod, &bias);
		bool unknown = false;
		Dwarf_Word value;

		if (!cfi || dwarf_cfi_addrframe(cfi, lookup - bias, &frame))
			continue;
		if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops >= 1) {
			if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
				unknown = dwfl_frame_reg(state, ops[0].atom - DW_OP_breg0, &value) != 0;
			else if (ops[0].atom == DW_OP_bregx)
				unknown = dwfl_frame_reg(state, (unsigned)ops[0].number, &value) != 0;
		}
		free(frame);
		return unknown;
	}
	return false;
}

/*
 * aarch64: a frame found from a frame record, because its callee had no CFI,
 * has an unknown stack pointer (a record may sit anywhere in its frame), and
 * CFI computes from the stack pointer: from there on it would read the wrong
 * slots and make up frames. So the rest of the chain follows frame records
 * only, by the rule libdwfl's own fallback uses: the next return address is
 * this frame's x30, then each record gives the caller's x29 and x30.
 */
static void walk_frame_records(struct current *c, Dwfl_Frame *state)
{
	struct stk_unwind_result *r = c->r;
	Dwarf_Word lr, fp, next_fp;

	if (dwfl_frame_reg(state, AARCH64_LR, &lr) || dwfl_frame_reg(state, AARCH64_FP, &fp)) {
		c->stop = "frame records: the link register or frame pointer is unknown";
		return;
	}
	while (r->n < r->max) {
		if (!lr) {
			c->stop = "outermost frame record (return address 0)";
			return;
		}
		r->ips[r->n] = lr;
		if (c->want_how)
			r->how[r->n] = STK_FRAME_BY_FP;
		if (c->sps)
			c->sps[r->n] = fp; /* a record sits at its frame's bottom: as near its stack pointer as known */
		r->n++;
		if (!fp) {
			c->stop = "outermost frame record (frame pointer 0)";
			return;
		}
		if (!stack_word(c, fp, &next_fp) || !stack_word(c, fp + 8, &lr)) {
			c->stop = "needed stack beyond the copied bytes (--stack-bytes)";
			return;
		}
		if (next_fp && next_fp <= fp) {
			c->stop = "the frame-record chain stopped moving up the stack";
			return;
		}
		fp = next_fp;
	}
	c->stop = "--perf-max-stack-depth reached";
}

/* Past the sample's CPU budget. Wall time first: it is cheap, and CPU time never exceeds it. */
static bool over_budget(const struct current *c)
{
	const int64_t budget = STK_UNWIND_MAX_SAMPLE_MS * 1000000LL;

	return stk_now_ns(CLOCK_MONOTONIC) - c->mono_start > budget &&
	       stk_now_ns(CLOCK_THREAD_CPUTIME_ID) - c->cpu_start > budget;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct current *c = arg;
	struct stk_unwind_result *r = c->r;
	Dwfl *dwfl = dwfl_thread_dwfl(dwfl_frame_thread(state));
	Dwarf_Addr pc;
	bool from_cfi = true;

	/* Not asking whether it is an activation: that would make libdwfl unwind it (run its CFI) now. */
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	if (r->n == r->max)
		return DWARF_CB_ABORT;
	r->ips[r->n] = pc;
	if (c->sps) {
		Dwarf_Word sp = 0;

		dwfl_frame_reg(state, STK_UREG_SP, &sp);
		c->sps[r->n] = sp;
	}
	/* A frame after the first came from the previous one's unwind info, or from its frame pointer. */
	if (r->n && (c->want_how || c->records_after_guess))
		from_cfi = has_cfi(dwfl, r->ips[r->n - 1], r->n == 1);
	if (c->want_how)
		r->how[r->n] = r->n == 0 ? STK_FRAME_BY_REGS : from_cfi ? STK_FRAME_BY_CFI : STK_FRAME_BY_FP;
	r->n++;
	/* Only reads made while unwinding past the last frame explain where the chain ends. */
	c->read_outside = 0;
	if (!from_cfi && c->records_after_guess) {
		walk_frame_records(c, state);
		return DWARF_CB_ABORT;
	}
	/* libdwfl finds the next frame with this one's CFI once this returns. */
	c->stop = next_step_refused(dwfl, pc, r->n == 1);
	if (!c->stop && c->in->regs_known && cfa_register_unknown(dwfl, state, pc, r->n == 1))
		c->stop = unknown_cfa_reg;
	if (!c->stop && over_budget(c))
		c->stop = over_time;
	return c->stop ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/* Whether pc lies in none of p's modules (or p has none to unwind with). */
static bool outside_modules(const struct stk_unwinder_proc *p, uint64_t pc)
{
	return !p || !p->dwfl || !dwfl_addrmodule(p->dwfl, pc);
}

static void walk(struct stk_unwinder *u, struct stk_unwinder_proc *p, const struct stk_unwind_input *in,
		 struct stk_unwind_result *r)
{
	int ret;

	r->n = 0;
	r->stop = NULL;
	u->cur = (struct current){ .in = in, .r = r, .want_how = r->how != NULL, .records_after_guess = p->aarch64,
				   .mono_start = stk_now_ns(CLOCK_MONOTONIC), .cpu_start = stk_now_ns(CLOCK_THREAD_CPUTIME_ID) };
	/* the stack pointers are wanted where a source splices interpreted frames in */
	if (u->src.interpreted && !stk_grow((void **)&u->sps, &u->cap_sps, r->max, sizeof(*u->sps)))
		u->cur.sps = u->sps;
	ret = dwfl_getthread_frames(p->dwfl, in->tid, frame_cb, &u->cur);
	if (u->cur.stop)
		r->stop = u->cur.stop;
	else if (r->n == r->max)
		r->stop = "--perf-max-stack-depth reached";
	else if (u->cur.read_outside && (!r->n || has_cfi(p->dwfl, r->ips[r->n - 1], r->n == 1)))
		r->stop = "needed stack beyond the copied bytes (--stack-bytes)";
	else if (r->n && !has_cfi(p->dwfl, r->ips[r->n - 1], r->n == 1))
		r->stop = "no CFI for the last frame and its frame-pointer chain led nowhere";
	else if (ret == 0)
		r->stop = "outermost frame (return address undefined)";
	else
		r->stop = intern_reason(u, dwfl_errmsg(-1));
}

void stk_unwind(struct stk_unwinder *u, const struct stk_unwind_input *in, struct stk_unwind_result *r)
{
	struct stk_unwinder_proc *p;

	r->n = 0;
	if (!in->regs || !in->n_regs) {
		r->stop = "no user registers captured";
		return;
	}
	p = get_proc(u, in->pid);
	/*
	 * A leaf outside every module known, or none known: the process exec'd
	 * or mapped a library since its mappings were read (a process is first
	 * read when it first shows up, which may be halfway through its exec).
	 */
	if (outside_modules(p, in->regs[in->n_regs - 1]) && u->src.reread(u->src.table, in->pid))
		p = get_proc(u, in->pid);
	if (!p || !p->dwfl) {
		/* The leaf is still known. */
		if (r->max) {
			r->ips[0] = in->regs[in->n_regs - 1];
			if (r->how)
				r->how[0] = STK_FRAME_BY_REGS;
			r->n = 1;
		}
		r->stop = p ? p->why : "the process's mappings are unknown (it exited before it was first seen)";
		return;
	}
	walk(u, p, in, r);
	/* The budget went on reading the modules' CFI (a process's first chains, slow or emulated CPUs): walk on. */
	for (int retry = 0, frames = -1; retry < STK_UNWIND_RETRIES && r->stop == over_time && (int)r->n > frames; retry++) {
		frames = (int)r->n;
		walk(u, p, in, r);
	}
	/*
	 * The chain walked out of the modules known (into libc, say, read
	 * before the dynamic loader mapped it): read them again, walk again.
	 */
	if (r->n > 1 && r->stop != over_time && outside_modules(p, r->ips[r->n - 1] - 1) &&
	    u->src.reread(u->src.table, in->pid) && (p = get_proc(u, in->pid)) && p->dwfl)
		walk(u, p, in, r);
	/* "outermost frame ...": the chain reached its thread's root */
	if (u->src.interpreted && r->n && u->cur.sps)
		u->src.interpreted(u->src.table, in->pid, in->tid, r, u->cur.sps,
				   r->stop && strncmp(r->stop, "outermost frame", 15) == 0);
}
