/*
 * One user address to a frame: the mapping holding it, the file's symbol
 * (or its CFI function start, or the perf map's name for JIT code), inlined
 * functions and the source line from DWARF, C++ names demangled.
 */
#include "core/sym/sym_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sym/dwarf_lines.h"
#include "core/sym/sym_demangle.h"

static const char *display_name(struct stk_symbolizer *s, struct stk_elf_file *f, size_t i)
{
	const char *raw = f->names + f->syms[i].name;
	char *d;

	if (s->opts.demangle == STK_DEMANGLE_NONE)
		return raw;
	if (!f->display && !(f->display = calloc(f->n_syms, sizeof(*f->display))))
		return raw;
	if (!f->display[i]) {
		d = stk_demangle(raw, s->opts.demangle);
		f->display[i] = d ? d : raw;
	}
	return f->display[i];
}

/*
 * No symbol covers vaddr: name it after its function's start from CFI,
 * "module+0xSTART" (an ELF address, the same in every run and process), so
 * distinct unnamed functions stay distinct.
 */
static void name_from_cfi(struct sym_file *f, const struct stk_mapping *m, uint64_t vaddr, struct stk_frame *frame)
{
	long i = stk_cfi_ranges_lookup(&f->elf.cfi, vaddr);
	char path[4096], *name;
	const char *base;
	size_t len;
	int deleted;

	if (i < 0)
		return;
	if (!f->cfi_names && !(f->cfi_names = calloc(f->elf.cfi.n, sizeof(*f->cfi_names))))
		return;
	if (!f->cfi_names[i]) {
		sym_strip_deleted(m->path, path, sizeof(path), &deleted);
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		len = strlen(base) + 24;
		if (!(name = malloc(len)))
			return;
		snprintf(name, len, "%s+0x%" PRIx64, base, f->elf.cfi.ranges[i].start);
		f->cfi_names[i] = name;
	}
	frame->symbol = f->cfi_names[i];
	frame->symbol_offset = vaddr - f->elf.cfi.ranges[i].start;
	frame->synthetic = true;
}

/*
 * Inlined functions and source lines at vaddr from f's DWARF. A return
 * address points past its call: the line asked about is then vaddr - 1's, so
 * a caller's frame shows the call (and the inlined functions around it), not
 * the statement after it.
 */
/* f's DWARF opened, once (module: how frames name f). */
static void open_dwarf(struct stk_symbolizer *s, struct sym_file *f, const char *module)
{
	char why[160];

	if (f->dwarf || f->dwarf_tried || !f->has_dwarf_fd)
		return;
	f->dwarf_tried = true;
	f->has_dwarf_fd = false; /* handed over: closed by stk_dwarf_lines_* */
	f->dwarf = stk_dwarf_lines_open(f->dwarf_fd, why, sizeof(why));
	if (!f->dwarf) {
		s->stats.dwarf_failed++;
		sym_note_failure(s, "%s: %s (no source lines or inlined frames from it)", module, why);
		if (s->opts.verbose)
			fprintf(stderr, "stk: symbolizer: %s\n", s->stats.last_failure);
	}
}

void stk_symbolizer_open_debug(struct stk_symbolizer *s, pid_t pid)
{
	struct stk_process *p = stk_symbolizer_process(s, pid);

	for (size_t i = 0; p && i < p->n_maps && !sym_stopped(s); i++)
		if (p->maps[i].file && !p->maps[i].gone)
			open_dwarf(s, sym_file_of(p->maps[i].file), p->maps[i].path);
}

static void add_source_lines(struct stk_symbolizer *s, struct sym_file *f, uint64_t vaddr, bool return_address,
			     struct stk_frame *frame)
{
	struct stk_src_info info;

	open_dwarf(s, f, frame->module);
	if (!f->dwarf)
		return;
	if (stk_dwarf_lines_lookup(f->dwarf, return_address && vaddr ? vaddr - 1 : vaddr, &info)) {
		const char *err = stk_dwarf_lines_error(f->dwarf);

		if (err && !f->dwarf_error_noted) {
			f->dwarf_error_noted = true;
			s->stats.dwarf_failed++;
			sym_note_failure(s, "%s: %s (no source lines or inlined frames from it)", frame->module, err);
			if (s->opts.verbose) /* resolution runs after the capture's summary: say it now */
				fprintf(stderr, "stk: symbolizer: %s\n", s->stats.last_failure);
		}
		return;
	}
	if (!s->opts.no_inline) {
		frame->inlined = info.inlined;
		frame->n_inlined = info.n_inlined;
	}
	frame->file = info.file;
	frame->line = info.line;
}

static void resolve_in_file(struct stk_symbolizer *s, struct sym_file *f, const struct stk_mapping *m,
			    uint64_t addr, bool return_address, struct stk_frame *frame)
{
	uint64_t vaddr;
	long i;

	if (!f)
		return;
	if (f->remote_name)
		sym_fetch_remote_debuginfo(s, f);
	frame->build_id = f->elf.build_id[0] ? f->elf.build_id : NULL;
	/* mapping -> file offset -> ELF vaddr through the PT_LOAD holding that offset. */
	if (stk_elf_offset_to_vaddr(&f->elf, addr - m->start + m->offset, &vaddr))
		return;
	i = stk_elf_lookup(&f->elf, vaddr);
	if (i < 0) {
		name_from_cfi(f, m, vaddr, frame);
		return;
	}
	frame->symbol = display_name(s, &f->elf, (size_t)i);
	frame->symbol_offset = vaddr - f->elf.syms[i].addr;
	add_source_lines(s, f, vaddr, return_address, frame);
}

void sym_resolve_user(struct stk_symbolizer *s, pid_t pid, uint64_t addr, bool return_address,
			   struct stk_frame *frame)
{
	struct sym_proc *p;
	const struct stk_mapping *m;
	const char *name;
	uint64_t off;

	p = sym_get_proc(s, pid);
	if (p && !p->err && sym_frame_cached(s, pid, p->proc.generation, addr, return_address, frame))
		return;
	memset(frame, 0, sizeof(*frame));
	frame->address = addr;
	if (!p || p->err)
		return;
	m = sym_proc_map_at(s, p, addr);
	if (!m)
		return;
	frame->module = m->path;
	frame->map_start = m->start;
	frame->map_end = m->end;
	frame->map_offset = m->offset;
	frame->main_exe = m->exe;
	switch (m->kind) {
	case STK_MAPPING_FILE:
	case STK_MAPPING_VDSO:
		resolve_in_file(s, sym_file_of(m->file), m, addr, return_address, frame);
		break;
	case STK_MAPPING_ANON:
		frame->module = "[anon]";
		if (sym_proc_perf_name(s, p, addr, &name, &off, &frame->module))
			return;
		frame->symbol = name;
		frame->symbol_offset = off;
		return; /* a JIT may put other code there: not kept */
	case STK_MAPPING_SPECIAL:
		break;
	}
	sym_frame_keep(s, pid, p->proc.generation, addr, return_address, frame);
}
