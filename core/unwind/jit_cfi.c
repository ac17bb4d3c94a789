/* A JIT code range's .eh_frame in an ELF file libelf writes to an anonymous file, then kept in memory. */
#include "core/unwind/jit_cfi.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/base/untrusted_file.h"

static const char shstrtab[] = "\0.eh_frame\0.shstrtab";
#define NAME_EH_FRAME 1
#define NAME_SHSTRTAB 11

static Elf_Scn *add_section(Elf *e, GElf_Word name, GElf_Word type, GElf_Xword flags, GElf_Addr addr,
			    const void *bytes, size_t size, size_t align)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *data;
	GElf_Shdr sh;

	if (!scn || !(data = elf_newdata(scn)) || !gelf_getshdr(scn, &sh))
		return NULL;
	data->d_buf = (void *)bytes;
	data->d_size = size;
	data->d_type = ELF_T_BYTE;
	data->d_align = align;
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_addralign = align;
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

/* The file's bytes, written by libelf into fd. */
static int write_elf(int fd, uint16_t machine, const void *eh_frame, size_t size, uint64_t eh_addr)
{
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf_Scn *names;
	int ret = -1;

	if (!e || !gelf_newehdr(e, ELFCLASS64) || !gelf_getehdr(e, &eh))
		goto out;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_type = ET_DYN; /* placed by its load bias, one file for every range with the same CFI */
	eh.e_machine = machine;
	eh.e_version = EV_CURRENT;
	if (!add_section(e, NAME_EH_FRAME, SHT_PROGBITS, SHF_ALLOC, eh_addr, eh_frame, size, 8) ||
	    !(names = add_section(e, NAME_SHSTRTAB, SHT_STRTAB, 0, 0, shstrtab, sizeof(shstrtab), 1)))
		goto out;
	eh.e_shstrndx = (GElf_Half)elf_ndxscn(names);
	if (!gelf_update_ehdr(e, &eh) || !gelf_newphdr(e, 1))
		goto out;
	/* the code and its CFI, from address 0: the unwinder's module spans the code, biased to its range */
	ph = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = 0,
			  .p_filesz = eh_addr + size, .p_memsz = eh_addr + size, .p_align = 8 };
	if (!gelf_update_phdr(e, 0, &ph) || elf_update(e, ELF_C_WRITE) < 0)
		goto out;
	ret = 0;
out:
	if (e)
		elf_end(e);
	return ret;
}

int stk_jit_cfi_file(struct stk_file *f, uint16_t machine, const void *eh_frame, size_t size, uint64_t eh_addr)
{
	int fd = memfd_create("stk-jit-cfi", MFD_CLOEXEC);
	off_t len;
	void *image = NULL;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	if (write_elf(fd, machine, eh_frame, size, eh_addr) || (len = lseek(fd, 0, SEEK_END)) <= 0 ||
	    !(image = malloc((size_t)len)) || stk_read_bounded(fd, image, (size_t)len, 0) != len ||
	    !(f->elf = elf_memory(image, (size_t)len))) {
		free(image);
		close(fd);
		return -1;
	}
	close(fd);
	f->fd = -1;
	f->image = image;
	f->image_size = (size_t)len;
	return 0;
}
