/*
 * ELF function symbols via libelf: .symtab when present, else .dynsym;
 * STT_FUNC and STT_GNU_IFUNC with a size, sorted by address for binary
 * search. Names are copied into one arena so the Elf handle and fd can go.
 */
#include "core/sym/elf_symbols.h"

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/floor.h"

/*
 * Read with pread (ELF_C_READ), never mmap: a file its owner truncates while
 * it is parsed would raise SIGBUS in a mapping, an error in a read.
 */
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif
#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

static void hex(const unsigned char *p, size_t n, char *out, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n && 2 * i + 2 < len; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * i] = '\0';
}

static int note_build_id(Elf_Data *data, char *out, size_t len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *base = data->d_buf;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(base + name_off, "GNU", 4) == 0 && nh.n_descsz > 0) {
			hex((const unsigned char *)base + desc_off, nh.n_descsz, out, len);
			return 0;
		}
		off = next;
	}
	return -1;
}

static void find_build_id(Elf *e, char *out, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;
	GElf_Shdr sh;

	out[0] = '\0';
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && note_build_id(d, out, len) == 0)
			return;
	}
	/* No section headers (or notes lost from them): the PT_NOTE segments. */
	if (elf_getphdrnum(e, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (d && d->d_buf && note_build_id(d, out, len) == 0)
			return;
	}
}

int stk_elf_build_id_fd(int fd, char *buf, size_t len)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);

	buf[0] = '\0';
	if (!e)
		return -1;
	if (elf_kind(e) == ELF_K_ELF)
		find_build_id(e, buf, len);
	elf_end(e);
	return 0;
}

static int sym_order(const void *a, const void *b)
{
	const struct stk_elf_sym *x = a, *y = b;
	/* Aliases at one address: GLOBAL before WEAK before LOCAL (malloc, not __libc_malloc). */
	static const int rank[] = { [STB_LOCAL] = 2, [STB_GLOBAL] = 0, [STB_WEAK] = 1 };
	int rx = x->bind <= STB_WEAK ? rank[x->bind] : 3, ry = y->bind <= STB_WEAK ? rank[y->bind] : 3;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (rx != ry)
		return rx - ry;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * Version names by version index (.gnu.version_d), for "name@@GLIBC_2.2.5"
 * names in .dynsym. Pointers into libelf's string table: valid while e is open.
 */
struct sym_versions {
	Elf_Data *versym;
	const char *names[64];
};

static void read_versions(Elf *e, struct sym_versions *v)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(v, 0, sizeof(*v));
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t off = 0;
		GElf_Verdef vd;
		GElf_Verdaux va;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_GNU_versym) {
			v->versym = elf_getdata(scn, NULL);
			continue;
		}
		if (sh.sh_type != SHT_GNU_verdef || !(d = elf_getdata(scn, NULL)))
			continue;
		/* A bounded walk: a corrupt vd_next cannot loop. */
		for (size_t n = 0; n < sh.sh_info && n < 4096; n++) {
			if (!gelf_getverdef(d, (int)off, &vd) || !gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
				break;
			if (vd.vd_ndx < sizeof(v->names) / sizeof(v->names[0]) && !(vd.vd_flags & VER_FLG_BASE))
				v->names[vd.vd_ndx] = elf_strptr(e, sh.sh_link, va.vda_name);
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
	}
}

/* "@@GLIBC_2.2.5" (default version), "@GLIBC_2.2.5" (hidden) or "" for symbol i. */
static void version_suffix(const struct sym_versions *v, size_t i, char *out, size_t len)
{
	GElf_Versym vs;
	unsigned idx;

	out[0] = '\0';
	if (!v || !v->versym || !gelf_getversym(v->versym, (int)i, &vs))
		return;
	idx = vs & 0x7fff;
	if (idx < sizeof(v->names) / sizeof(v->names[0]) && v->names[idx])
		snprintf(out, len, "%s%s", (vs & 0x8000) ? "@" : "@@", v->names[idx]);
}

static int read_symbols(Elf *e, Elf_Scn *scn, struct stk_elf_file *f, unsigned flags)
{
	GElf_Shdr sh;
	Elf_Data *d;
	size_t count, kept = 0, arena = 0;
	bool all_names = flags & STK_ELF_ALL_NAMES;
	struct sym_versions versions;

	Elf_Scn *strs;
	GElf_Shdr strsh;
	size_t sym_size = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || sh.sh_type == SHT_NOBITS || !sym_size)
		return -1;
	/* The file may be another user's: refuse tables no real program has before reading them. */
	if (sh.sh_size > STK_ELF_MAX_TABLE || !(strs = elf_getscn(e, sh.sh_link)) ||
	    !gelf_getshdr(strs, &strsh) || strsh.sh_size > STK_ELF_MAX_TABLE)
		return -1;
	d = elf_getdata(scn, NULL);
	if (!d)
		return -1;
	if (all_names && sh.sh_type == SHT_DYNSYM)
		read_versions(e, &versions);
	/* From the data's size, not sh_entsize (a forged entsize of 1 would multiply the array). */
	count = d->d_size / sym_size;
	f->syms = calloc(count ? count : 1, sizeof(*f->syms));
	if (!f->syms)
		return -1;
	/* Two passes: size the name arena exactly, then copy. */
	for (int pass = 0; pass < 2; pass++) {
		kept = 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			char version[128] = "";
			int type;
			size_t nl;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_size || !sym.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name || *name == '@')
				continue;
			if (all_names) {
				/* Keep "name@@GLIBC_2.2.5" whole; .dynsym names get theirs from .gnu.version. */
				if (sh.sh_type == SHT_DYNSYM && !strchr(name, '@'))
					version_suffix(&versions, i, version, sizeof(version));
				nl = strlen(name) + strlen(version) + 1;
			} else {
				/* "clock_nanosleep@GLIBC_2.2.5" (versioned .symtab names): the version is noise. */
				nl = strcspn(name, "@") + 1;
			}
			if (pass == 0) {
				arena += nl;
				continue;
			}
			f->syms[kept].addr = sym.st_value;
			f->syms[kept].size = sym.st_size;
			f->syms[kept].bind = (uint8_t)GELF_ST_BIND(sym.st_info);
			f->syms[kept].name = (uint32_t)f->names_len;
			snprintf(f->names + f->names_len, nl, "%s%s", name, version);
			f->names_len += nl;
			kept++;
		}
		if (pass == 0) {
			f->names = malloc(arena ? arena : 1);
			if (!f->names)
				return -1;
		}
	}
	qsort(f->syms, kept, sizeof(*f->syms), sym_order);
	f->n_syms = kept;
	if (all_names)
		return 0;
	/* Keep one symbol per address: the best-ranked alias sorts first. */
	f->n_syms = 0;
	for (size_t i = 0; i < kept; i++)
		if (!f->n_syms || f->syms[f->n_syms - 1].addr != f->syms[i].addr)
			f->syms[f->n_syms++] = f->syms[i];
	return 0;
}

static int read_loads(Elf *e, struct stk_elf_file *f)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return 0; /* a debug file without program headers is still useful */
	f->loads = calloc(n ? n : 1, sizeof(*f->loads));
	if (!f->loads)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->n_loads].offset = ph.p_offset;
		f->loads[f->n_loads].vaddr = ph.p_vaddr;
		f->loads[f->n_loads].filesz = ph.p_filesz;
		f->n_loads++;
	}
	return 0;
}

static void read_debuglink(Elf_Scn *scn, struct stk_elf_file *f)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *p;
	size_t nl;
	uint32_t crc;

	if (!d || !d->d_buf || d->d_size < 8)
		return;
	p = d->d_buf;
	nl = strnlen(p, d->d_size);
	/* name, NUL, pad to 4, then the CRC32 (same byte order as this host's ELF files). */
	if (nl == 0 || nl >= sizeof(f->debuglink) || ((nl + 4) & ~(size_t)3) + 4 > d->d_size)
		return;
	memcpy(&crc, p + ((nl + 4) & ~(size_t)3), 4);
	memcpy(f->debuglink, p, nl + 1);
	f->debuglink_crc = crc;
}

static int from_elf(Elf *e, struct stk_elf_file *f, unsigned flags, char *why, size_t len)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	size_t shstrndx = 0;
	GElf_Shdr sh;

	memset(f, 0, sizeof(*f));
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(why, len, "not an ELF file: %s", elf_errmsg(-1));
		return -1;
	}
	if (read_loads(e, f))
		goto nomem;
	find_build_id(e, f->build_id, sizeof(f->build_id));
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *name = NULL;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		else if (shstrndx && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
			 strcmp(name, ".gnu_debuglink") == 0)
			read_debuglink(scn, f);
		else if (name && sh.sh_type != SHT_NOBITS && sh.sh_size && strcmp(name, ".debug_info") == 0)
			f->has_dwarf = 1;
	}
	if (symtab && read_symbols(e, symtab, f, flags) == 0 && f->n_syms) {
		f->has_symtab = 1;
		return 0;
	}
	free(f->syms);
	free(f->names);
	f->syms = NULL;
	f->names = NULL;
	f->n_syms = f->names_len = 0;
	if (dynsym && read_symbols(e, dynsym, f, flags))
		goto nomem;
	/* Stripped: the functions .dynsym does not name still have their CFI. */
	if (!(flags & STK_ELF_ALL_NAMES) && stk_cfi_ranges_read(e, &f->cfi))
		goto nomem;
	return 0;
nomem:
	snprintf(why, len, "out of memory reading symbols");
	stk_elf_file_release(f);
	return -1;
}

int stk_elf_file_from_fd(int fd, struct stk_elf_file *f, char *why, size_t len)
{
	return stk_elf_file_from_fd_flags(fd, f, 0, why, len);
}

int stk_elf_file_from_fd_flags(int fd, struct stk_elf_file *f, unsigned flags, char *why, size_t len)
{
	/* pread, not mmap: a file truncated by its owner meanwhile cannot crash stk */
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int ret = from_elf(e, f, flags, why, len);

	elf_end(e);
	return ret;
}

int stk_elf_file_from_memory(const void *image, size_t size, struct stk_elf_file *f, char *why,
			     size_t len)
{
	/* libelf only reads the image here; it wants a non-const pointer. */
	Elf *e = elf_memory((char *)(uintptr_t)image, size);
	int ret = from_elf(e, f, 0, why, len);

	elf_end(e);
	return ret;
}

static void release_display(struct stk_elf_file *f)
{
	if (!f->display)
		return;
	for (size_t i = 0; i < f->n_syms; i++)
		if (f->display[i] && f->display[i] != f->names + f->syms[i].name)
			free((void *)(uintptr_t)f->display[i]);
	free(f->display);
	f->display = NULL;
}

void stk_elf_file_take_symbols(struct stk_elf_file *f, struct stk_elf_file *other)
{
	release_display(f); /* names made for the old table */
	free(f->syms);
	free(f->names);
	f->syms = other->syms;
	f->n_syms = other->n_syms;
	f->names = other->names;
	f->names_len = other->names_len;
	f->has_symtab = other->has_symtab;
	other->syms = NULL;
	other->names = NULL;
	other->n_syms = other->names_len = 0;
}

void stk_elf_file_release(struct stk_elf_file *f)
{
	release_display(f);
	free(f->syms);
	free(f->names);
	free(f->loads);
	stk_cfi_ranges_free(&f->cfi);
	memset(f, 0, sizeof(*f));
}

int stk_elf_offset_to_vaddr(const struct stk_elf_file *f, uint64_t file_offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->n_loads; i++) {
		const struct stk_elf_load *l = &f->loads[i];

		if (file_offset >= l->offset && file_offset < l->offset + l->filesz) {
			*vaddr = file_offset - l->offset + l->vaddr;
			return 0;
		}
	}
	return -1;
}

long stk_elf_lookup(const struct stk_elf_file *f, uint64_t vaddr)
{
	size_t at, lo;

	STK_FLOOR(at, f->n_syms, i, f->syms[i].addr <= vaddr);
	if (!at)
		return -1;
	lo = at - 1;
	/* The nearest start may be a small symbol nested after a bigger one that holds vaddr. */
	for (size_t back = 0; back < 8; back++, lo--) {
		if (vaddr - f->syms[lo].addr < f->syms[lo].size)
			return (long)lo;
		if (lo == 0)
			break;
	}
	return -1;
}
