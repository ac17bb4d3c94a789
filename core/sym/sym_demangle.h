/* C++ demangling through libiberty. */
#ifndef STK_SYM_DEMANGLE_H
#define STK_SYM_DEMANGLE_H

#include "core/sym/symbolize.h"

/* malloc'd demangled name, or NULL when name is not mangled (or mode is NONE). */
char *stk_demangle(const char *name, enum stk_demangle mode);

#endif
