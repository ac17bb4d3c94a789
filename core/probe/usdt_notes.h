/*
 * The USDT probes an ELF file declares (.note.stapsdt, as <sys/sdt.h>
 * writes them), read with libelf, so stackcount can match u:LIB:PROBE
 * patterns and name the probes it attaches to. Attaching is libbpf's.
 */
#ifndef STK_USDT_NOTES_H
#define STK_USDT_NOTES_H

#include <stddef.h>

#include "core/base/name_list.h"
#include "core/probe/name_match.h"

/*
 * "provider:name" of each probe whose provider matches provider (NULL: any)
 * and name matches name, sorted and unique. 0, or -1 with err set when the
 * file cannot be read.
 */
int stk_usdt_probes(const char *path, const struct stk_name_match *provider, const struct stk_name_match *name,
		    struct stk_name_list *out, char *err, size_t len);

#endif
