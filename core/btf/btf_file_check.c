#include "core/btf/btf_file_check.h"

#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/untrusted_file.h"

#define BTF_MAGIC 0xeb9f
#define BTF_HEADER_SIZE 24

static uint32_t field32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* struct btf_header: magic u16, version u8, flags u8, hdr_len, type_off, type_len, str_off, str_len. */
static int raw_btf_ok(const unsigned char *h, size_t got, uint64_t file_size)
{
	uint16_t magic;
	int swap;

	if (got < BTF_HEADER_SIZE)
		return 0;
	memcpy(&magic, h, 2);
	if (magic != BTF_MAGIC && magic != __builtin_bswap16(BTF_MAGIC))
		return 0;
	swap = magic != BTF_MAGIC;
	uint64_t hdr_len = field32(h + 4, swap), type_end = hdr_len + (uint64_t)field32(h + 8, swap) + field32(h + 12, swap),
		 str_end = hdr_len + (uint64_t)field32(h + 16, swap) + field32(h + 20, swap);
	return h[2] == 1 && hdr_len >= BTF_HEADER_SIZE && type_end <= file_size && str_end <= file_size;
}

static int elf_has_btf(int fd)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = 0;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return 0;
	if (elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name;

			found = gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
				(name = elf_strptr(e, shstrndx, sh.sh_name)) && strcmp(name, ".BTF") == 0;
		}
	}
	elf_end(e);
	return found;
}

int stk_btf_file_check(const char *path, char *why, size_t len)
{
	unsigned char head[BTF_HEADER_SIZE];
	struct stat st;
	ssize_t got;
	int fd = stk_untrusted_open(path, NULL), ok;

	if (fd < 0) {
		snprintf(why, len, "not readable: %s", stk_untrusted_strerror(fd));
		return -1;
	}
	got = stk_read_bounded(fd, head, sizeof(head), 0);
	ok = got >= 0 && fstat(fd, &st) == 0 &&
	     (raw_btf_ok(head, (size_t)got, (uint64_t)st.st_size) ||
	      (got >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0 && elf_has_btf(fd)));
	close(fd);
	if (!ok) {
		snprintf(why, len, "not a BTF file (neither raw BTF nor an ELF file with a .BTF section)");
		return -1;
	}
	return 0;
}
