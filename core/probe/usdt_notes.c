#include "core/probe/usdt_notes.h"

#include "core/base/untrusted_file.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NT_STAPSDT 3

/* One note's description: pc, base, semaphore (address-sized), then provider\0name\0args\0. */
static int add_probe(const char *desc, size_t size, size_t addr_size, const struct stk_name_match *provider,
		     const struct stk_name_match *name, struct stk_name_list *out)
{
	const char *prov, *probe, *end = desc + size;
	char both[512];

	if (size < 3 * addr_size)
		return 0;
	prov = desc + 3 * addr_size;
	probe = memchr(prov, '\0', (size_t)(end - prov));
	if (!probe || ++probe >= end || !memchr(probe, '\0', (size_t)(end - probe)))
		return 0;
	if ((provider && !stk_name_matches(provider, prov)) || !stk_name_matches(name, probe))
		return 0;
	snprintf(both, sizeof(both), "%s:%s", prov, probe);
	return stk_name_list_add(out, both, (size_t)-1);
}

static int scan(Elf *e, const struct stk_name_match *provider, const struct stk_name_match *name,
		struct stk_name_list *out)
{
	size_t shstrndx, addr_size = gelf_getclass(e) == ELFCLASS32 ? 4 : 8;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;
		Elf_Data *d;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt") != 0 || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const char *base = d->d_buf;
			if (nh.n_type == NT_STAPSDT && nh.n_namesz == 8 && memcmp(base + name_off, "stapsdt", 8) == 0 &&
			    add_probe(base + desc_off, nh.n_descsz, addr_size, provider, name, out))
				return -1;
			off = next;
		}
	}
	return 0;
}

int stk_usdt_probes(const char *path, const struct stk_name_match *provider, const struct stk_name_match *name,
		    struct stk_name_list *out, char *err, size_t len)
{
	int fd = stk_untrusted_open(path, NULL), ret;
	Elf *e;

	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, stk_untrusted_strerror(fd));
		return -1;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, len, "%s: not an ELF file", path);
		if (e)
			elf_end(e);
		close(fd);
		return -1;
	}
	ret = scan(e, provider, name, out);
	if (ret)
		snprintf(err, len, "%s: reading its USDT notes failed", path);
	elf_end(e);
	close(fd);
	stk_name_list_sort_unique(out);
	return ret;
}
