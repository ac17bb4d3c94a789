/*
 * CPython's state of a process as core/runtime/python.c keeps it (the
 * runtime class stk_runtime_python's find makes it from a file and the
 * process): also made from a layout by tests and fuzzers, which walk and
 * name over an image of memory of their own.
 */
#ifndef STK_PYTHON_H
#define STK_PYTHON_H

#include <stdint.h>

#include "core/runtime/python_layout.h"
#include "core/runtime/runtime_class.h"

/*
 * The state of a process whose interpreter has layout l, its _PyRuntime at
 * runtime and PyCode_Type at code_type (0: code objects' types unchecked):
 * for stk_runtime_python's ops, freed by its free_proc. NULL when out of memory.
 */
void *stk_python_proc(const struct stk_py_layout *l, uint64_t runtime, uint64_t code_type);

#endif
