/*
 * CPython behind the runtime interface (runtime_class.h). An interpreter is
 * a file (python3.x, or libpython3.x.so in an embedding program) exporting
 * _PyRuntime, _PyEval_EvalFrameDefault and, from 3.11, Py_Version; its
 * threads are the interpreters' lists of thread states, each with its id;
 * a thread's frames run from its current frame (3.11: its _PyCFrame's) back
 * through each frame's previous one. Each run of the eval loop (one native
 * frame of it) ends at a frame that says so, and leaves a mark on the C
 * stack of the native frame that ran it: 3.11 sets is_entry on the first
 * frame it ran, its mark the run's _PyCFrame (each pointing at the one
 * before); later versions push an entry frame of their own on that stack
 * (owner at or above the layout's boundary), which is the mark. Frames from
 * 3.11 on: earlier ones are another structure, named in -v and skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime/python.h"
#include "core/runtime/python_lines.h"

/* Interpreters and threads of a process walked at most. */
#define MAX_INTERPRETERS 64
#define MAX_THREADS 16384
/* Line tables read at most (bytes). */
#define MAX_LINE_TABLE (256u << 10)

_Static_assert(STK_PY_TEXT_MAX <= STK_RT_NAME_MAX, "a name fits the runtime's buffers");

/* What of a file the other steps need: ELF addresses. */
struct py_file {
	uint64_t runtime;       /* _PyRuntime */
	uint64_t eval, eval_size; /* _PyEval_EvalFrameDefault */
	uint64_t code_type;     /* PyCode_Type (0: not exported) */
	uint32_t version;       /* Py_Version's value (0: none, before 3.11) */
	bool debug_build;       /* exports _Py_RefTotal (Py_DEBUG) */
};

struct py_proc {
	struct stk_py_layout l;
	uint64_t runtime;   /* _PyRuntime's runtime address */
	uint64_t code_type; /* PyCode_Type's (0: not checked) */
};

enum wanted { W_RUNTIME, W_EVAL, W_VERSION, W_CODE_TYPE, W_REFTOTAL, W_COUNT };
static const char *const wanted_names[W_COUNT] = {
	"_PyRuntime", "_PyEval_EvalFrameDefault", "Py_Version", "PyCode_Type", "_Py_RefTotal",
};

struct found_syms {
	GElf_Sym sym[W_COUNT];
	bool have[W_COUNT];
};

/* The defined symbols wanted of one symbol table. */
static void scan_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct found_syms *fs)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (!data || n > (1u << 24))
		return;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_name)
			continue;
		if (!(name = elf_strptr(elf, sh->sh_link, s.st_name)) || (name[0] != '_' && name[0] != 'P'))
			continue;
		for (int w = 0; w < W_COUNT; w++)
			if (!fs->have[w] && strcmp(name, wanted_names[w]) == 0) {
				fs->sym[w] = s;
				fs->have[w] = true;
			}
	}
}

/* Py_Version's value from its section's bytes (a const unsigned long). */
static uint32_t read_version(Elf *elf, const GElf_Sym *s)
{
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	GElf_Shdr sh;
	Elf_Data *d;
	uint64_t off;
	uint32_t v = 0;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) ||
	    s->st_value < sh.sh_addr)
		return 0;
	off = s->st_value - sh.sh_addr;
	if (off > d->d_size || d->d_size - off < 4 || !d->d_buf)
		return 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | ((const uint8_t *)d->d_buf)[off + (unsigned)i];
	return v;
}

static void *scan_file(Elf *elf)
{
	struct found_syms fs = { 0 };
	Elf_Scn *scn = NULL, *symtab = NULL;
	GElf_Shdr sh, symtab_sh;
	size_t shstrndx;
	bool has_runtime_section = false;
	struct py_file *f;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM)
			scan_symtab(elf, scn, &sh, &fs);
		else if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symtab_sh = sh;
		} else if ((name = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(name, ".PyRuntime") == 0)
			has_runtime_section = true;
	}
	/* a static interpreter without exported symbols: its full table, only when it is one */
	if ((!fs.have[W_RUNTIME] || !fs.have[W_EVAL]) && has_runtime_section && symtab)
		scan_symtab(elf, symtab, &symtab_sh, &fs);
	if (!fs.have[W_RUNTIME] || !fs.have[W_EVAL] || !fs.sym[W_EVAL].st_size)
		return NULL;
	if (!(f = calloc(1, sizeof(*f))))
		return NULL;
	f->runtime = fs.sym[W_RUNTIME].st_value;
	f->eval = fs.sym[W_EVAL].st_value;
	f->eval_size = fs.sym[W_EVAL].st_size;
	f->code_type = fs.have[W_CODE_TYPE] ? fs.sym[W_CODE_TYPE].st_value : 0;
	f->version = fs.have[W_VERSION] ? read_version(elf, &fs.sym[W_VERSION]) : 0;
	f->debug_build = fs.have[W_REFTOTAL];
	return f;
}

static void free_file(void *f)
{
	free(f);
}

static const char *file_version(const void *file, char *buf)
{
	const struct py_file *f = file;

	return f->version ? stk_py_version_text(f->version, buf) : "before 3.11";
}

static void *find(const void *file, uint64_t bias, struct stk_mem *mem, char *why, size_t len)
{
	const struct py_file *f = file;
	struct py_proc *p;
	struct stk_py_layout l;
	char v[16];

	if (!f->version) {
		snprintf(why, len, "python before 3.11 (no Py_Version): its frames are another structure, not read");
		return NULL;
	}
	if (stk_py_layout_published(f->version)) {
		uint8_t offsets[STK_PY_DEBUG_OFFSETS_MAX];

		stk_mem_budget(mem, sizeof(offsets));
		if (stk_mem_read(mem, f->runtime + bias, offsets, sizeof(offsets))) {
			snprintf(why, len, "python %s: its _PyRuntime could not be read", stk_py_version_text(f->version, v));
			return NULL;
		}
		if (stk_py_layout_published_read(offsets, sizeof(offsets), f->version, &l, why, len))
			return NULL;
	} else {
		if (stk_py_layout_table(f->version, &l, why, len))
			return NULL;
		if (f->debug_build) {
			snprintf(why, len, "python %s: a debug build (Py_DEBUG), not the layout of the table",
				 stk_py_version_text(f->version, v));
			return NULL;
		}
	}
	if (!(p = stk_python_proc(&l, f->runtime + bias, f->code_type ? f->code_type + bias : 0)))
		snprintf(why, len, "out of memory");
	return p;
}

void *stk_python_proc(const struct stk_py_layout *l, uint64_t runtime, uint64_t code_type)
{
	struct py_proc *p = calloc(1, sizeof(*p));

	if (p) {
		p->l = *l;
		p->runtime = runtime;
		p->code_type = code_type;
	}
	return p;
}

static void free_proc(void *p)
{
	free(p);
}

static int kernel_layout(const void *proc, struct stk_rt_proc *out)
{
	const struct stk_py_layout *l = &((const struct py_proc *)proc)->l;
	const uint32_t used[] = { l->ts_frame, l->ts_native_tid, l->fr_code, l->fr_previous, l->fr_instr, l->fr_owner,
				  l->co_code, l->co_linetable };

	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if (used[i] >= STK_RT_NONE)
			return -1;
	/* the walk reads a frame's pointers 8-aligned inside what it read, its bytes anywhere inside */
	if (l->fr_read > STK_PY_FRAME_READ_MAX ||
	    (l->cf_frame != STK_PY_NONE && (l->cf_frame >= STK_RT_NONE || l->cf_previous >= STK_RT_NONE)) ||
	    (l->fr_code | l->fr_previous | l->fr_instr) & 7 || l->fr_code + 8 > l->fr_read ||
	    l->fr_previous + 8 > l->fr_read || l->fr_instr + 8 > l->fr_read || l->fr_owner >= l->fr_read ||
	    (l->fr_entry != STK_PY_NONE && l->fr_entry >= l->fr_read))
		return -1;
	*out = (struct stk_rt_proc){
		.kind = STK_RT_PYTHON,
		.ts_frame = (uint16_t)l->ts_frame,
		.cf_frame = l->cf_frame == STK_PY_NONE ? STK_RT_NONE : (uint16_t)l->cf_frame,
		.cf_previous = l->cf_frame == STK_PY_NONE ? STK_RT_NONE : (uint16_t)l->cf_previous,
		.ts_tid = (uint16_t)l->ts_native_tid,
		.fr_code = (uint16_t)l->fr_code, .fr_previous = (uint16_t)l->fr_previous,
		.fr_instr = (uint16_t)l->fr_instr, .fr_owner = (uint16_t)l->fr_owner,
		.fr_entry = l->fr_entry == STK_PY_NONE ? STK_RT_NONE : (uint16_t)l->fr_entry,
		.fr_read = (uint16_t)l->fr_read,
		.co_code = (uint16_t)l->co_code, .co_check = (uint16_t)l->co_linetable,
		.owner_boundary = l->owner_boundary,
	};
	/* a thread new since user space read the list: the walk looks for it there itself */
	if (l->is_threads_head < STK_RT_NONE && l->ts_next < STK_RT_NONE) {
		out->interps = ((const struct py_proc *)proc)->runtime + l->rt_interp_head;
		out->is_threads = (uint16_t)l->is_threads_head;
		out->ts_next = (uint16_t)l->ts_next;
	}
	return 0;
}

static int threads(const void *proc, struct stk_mem *mem, bool (*fn)(void *ctx, uint32_t ns_tid, uint64_t state),
		   void *ctx)
{
	const struct py_proc *p = proc;
	const struct stk_py_layout *l = &p->l;
	struct stk_rt_cursor interps = { 0 };
	uint64_t is, ts, tid;

	stk_mem_budget(mem, (MAX_INTERPRETERS + MAX_THREADS) * 24);
	if (stk_mem_word(mem, p->runtime + l->rt_interp_head, &is))
		return -1;
	for (int i = 0; is && i < MAX_INTERPRETERS && !stk_rt_cursor_cycle(&interps, is); i++) {
		struct stk_rt_cursor states = { 0 };

		if (stk_mem_word(mem, is + l->is_threads_head, &ts))
			return -1;
		for (int t = 0; ts && t < MAX_THREADS && !stk_rt_cursor_cycle(&states, ts); t++) {
			if (stk_mem_word(mem, ts + l->ts_native_tid, &tid))
				return -1;
			if (tid && tid <= UINT32_MAX && fn(ctx, (uint32_t)tid, ts))
				return 0;
			if (stk_mem_word(mem, ts + l->ts_next, &ts))
				return -1;
		}
		if (stk_mem_word(mem, is + l->is_next, &is))
			return -1;
	}
	return 0;
}

static uint64_t field_word(const uint8_t *b, uint32_t off)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[off + (unsigned)i];
	return v;
}

/* The aux word's instruction: code units from the code object's first (STK_RT_NO_INSTR when not inside). */
static uint32_t instruction(const struct stk_py_layout *l, uint64_t code, uint64_t instr)
{
	uint64_t first = code + l->co_code;

	if (instr < first || (instr - first) / 2 >= STK_RT_NO_INSTR)
		return STK_RT_NO_INSTR;
	return (uint32_t)((instr - first) / 2);
}

static size_t walk_run(const void *proc, struct stk_mem *mem, struct stk_rt_cursor *c, uint64_t *out, size_t room,
		       uint64_t *mark)
{
	const struct stk_py_layout *l = &((const struct py_proc *)proc)->l;
	uint8_t f[STK_PY_FRAME_READ_MAX + 8] = { 0 };
	size_t n = 0;

	if (!c->started) {
		c->started = true;
		if (stk_mem_word(mem, c->state + l->ts_frame, &c->frame) ||
		    (l->cf_frame != STK_PY_NONE && (c->cframe = c->frame) && stk_mem_word(mem, c->frame + l->cf_frame, &c->frame))) {
			c->stop = "the thread state could not be read";
			c->frame = 0;
			*mark = 0;
			return 0;
		}
	}
	/* 3.11: the run's _PyCFrame is its mark, known from its start (a run cut short keeps it) */
	*mark = l->cf_frame != STK_PY_NONE ? c->cframe : 0;
	while (c->frame) {
		uint64_t frame = c->frame, code, check = 0;
		uint8_t owner, entry;

		if (++c->read > STK_RT_SCAN_MAX) {
			c->stop = "a run's frames go on past what one walk reads";
			c->frame = 0;
			return n;
		}
		if (stk_rt_cursor_cycle(c, frame)) {
			c->stop = "the frames run in a cycle";
			c->frame = 0;
			return n;
		}
		if (stk_mem_read(mem, frame, f, l->fr_read)) {
			c->stop = "a frame could not be read";
			c->frame = 0;
			return n;
		}
		/* 3.14 keeps tag bits in a stack reference's low bits; a code object is 8-aligned in all */
		code = field_word(f, l->fr_code) & ~(uint64_t)7;
		owner = f[l->fr_owner];
		entry = l->fr_entry != STK_PY_NONE ? f[l->fr_entry] : 0;
		uint64_t instr = field_word(f, l->fr_instr);
		c->frame = field_word(f, l->fr_previous);
		if (l->owner_boundary && owner >= l->owner_boundary) {
			*mark = frame; /* this run's own entry frame, on its eval loop's stack */
			return n;
		}
		if (!code || code > STK_RT_ADDR_MASK) {
			c->stop = "a frame without a code object";
			c->frame = 0;
			return n;
		}
		/* past the room the frames are read on (the run's end is its mark), not kept */
		if (room - n >= 2) {
			stk_mem_word(mem, code + l->co_linetable, &check);
			out[n++] = stk_rt_frame_word(STK_RT_PYTHON, code);
			out[n++] = stk_rt_aux_word(instruction(l, code, instr), (uint32_t)check);
		}
		if (entry) {
			/* 3.11: the one before the run's _PyCFrame is the next run's */
			if (!c->cframe || stk_mem_word(mem, c->cframe + l->cf_previous, &c->cframe))
				c->cframe = 0;
			return n;
		}
	}
	return n;
}

static int name(const void *proc, struct stk_mem *mem, uint64_t code, uint32_t check, char *qual, char *file,
		struct stk_rt_code *out, const char **why)
{
	const struct py_proc *p = proc;
	const struct stk_py_layout *l = &p->l;
	uint64_t type, table, qualname, filename, table_len;
	int32_t first_line;

	stk_mem_budget(mem, 4 * STK_PY_TEXT_MAX_CHARS * 4 + MAX_LINE_TABLE + 256);
	if (stk_mem_word(mem, code + l->ob_type, &type) || stk_mem_word(mem, code + l->co_linetable, &table) ||
	    stk_mem_word(mem, code + l->co_qualname, &qualname) || stk_mem_word(mem, code + l->co_filename, &filename) ||
	    stk_mem_read(mem, code + l->co_firstlineno, &first_line, sizeof(first_line))) {
		*why = "its code object could not be read (freed, or the process exited)";
		return -1;
	}
	if (p->code_type && type != p->code_type) {
		*why = "no code object there any more";
		return -1;
	}
	if ((uint32_t)table != check) {
		*why = "another code object there now";
		return -1;
	}
	if (stk_python_str(mem, &l->str, qualname, qual, STK_RT_NAME_MAX)) {
		*why = "its name could not be read";
		return -1;
	}
	if (stk_python_str(mem, &l->str, filename, file, STK_RT_NAME_MAX))
		file[0] = '\0';
	out->first_line = first_line;
	out->instr_base = code + l->co_code;
	out->table = NULL;
	out->table_len = 0;
	if (table && !stk_mem_word(mem, table + l->bytes_size, &table_len) && table_len && table_len <= MAX_LINE_TABLE &&
	    (out->table = malloc(table_len))) {
		if (stk_mem_read(mem, table + l->bytes_data, out->table, table_len)) {
			free(out->table);
			out->table = NULL;
		} else {
			out->table_len = table_len;
		}
	}
	return 0;
}

static uint32_t line(const struct stk_rt_code *code, uint32_t instr)
{
	if (instr == STK_RT_NO_INSTR)
		return code->first_line > 0 ? (uint32_t)code->first_line : 0;
	return stk_python_line(code->table, code->table_len, code->first_line, instr);
}

static uint64_t instr_address(const struct stk_rt_code *code, uint32_t instr)
{
	return code->instr_base + (instr == STK_RT_NO_INSTR ? 0 : (uint64_t)instr * 2);
}

const struct stk_runtime_class stk_runtime_python = {
	.name = "python",
	.unnamed = "[python]",
	.kind = STK_RT_PYTHON,
	.scan_file = scan_file,
	.free_file = free_file,
	.file_version = file_version,
	.find = find,
	.free_proc = free_proc,
	.kernel_layout = kernel_layout,
	.threads = threads,
	.walk_run = walk_run,
	.name_code = name,
	.line = line,
	.instr_address = instr_address,
};
