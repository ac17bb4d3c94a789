#include "core/sym/sym_demangle.h"

#include <demangle.h>
#include <stdlib.h>
#include <string.h>

char *stk_demangle(const char *name, enum stk_demangle mode)
{
	int flags = DMGL_ANSI;

	if (mode == STK_DEMANGLE_NONE || !name)
		return NULL;
	/* Without DMGL_PARAMS libiberty prints just the qualified name, no argument list. */
	if (mode == STK_DEMANGLE_FULL)
		flags |= DMGL_PARAMS;
	/* Rust's v0 mangling ("_R..."). */
	if (strncmp(name, "_R", 2) == 0)
		return cplus_demangle(name, flags | DMGL_RUST);
	/* Only Itanium C++ ("_Z") names: other symbols may collide with old GNU v2 rules. */
	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	return cplus_demangle(name, flags);
}
