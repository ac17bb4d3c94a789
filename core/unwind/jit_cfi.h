/*
 * A JIT's CFI for one code range (a jitdump's unwinding record) as an ELF
 * file in memory, so libdw reads it as it reads any module's .eh_frame: no
 * second CFI reader. The code sits at address 0 (a PT_LOAD over it and its
 * CFI) and .eh_frame right after it where the JIT placed it, so one file
 * serves every range with the same CFI, each reported at its own load bias.
 */
#ifndef STK_JIT_CFI_H
#define STK_JIT_CFI_H

#include <stddef.h>
#include <stdint.h>

#include "core/unwind/mapping.h"

/*
 * f (its fd -1) gets an ELF file of the given machine whose .eh_frame
 * holds the size bytes at eh_frame, at address eh_addr; f->elf reads
 * f->image, both released with stk_file_release. 0, or -1 (out of memory,
 * or libelf refused).
 */
int stk_jit_cfi_file(struct stk_file *f, uint16_t machine, const void *eh_frame, size_t size, uint64_t eh_addr);

#endif
