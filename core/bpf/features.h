/*
 * What the running kernel really offers, found by loading and attaching a
 * tiny program per mechanism (bpf/feature_probes.bpf.c) and checking that it
 * ran. Used by `stk info` and by core's mechanism choice.
 */
#ifndef STK_FEATURES_H
#define STK_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ladder/feature.h"

struct stk_feature_env {
	const char *btf_custom_path; /* NULL: kernel's own BTF */
	const char *tracefs_error;   /* non-NULL when tracefs could not be made reachable */
	bool no_kernel_btf;          /* libbpf finds no BTF of the running kernel itself (--btf and embedded
				      * BTF serve CO-RE only): fentry, tp_btf, iterators cannot load */
};

/* Runs one probe. Needs privileges; never leaves anything attached. */
void stk_feature_probe(const struct stk_feature_env *env, enum stk_feature f,
		       struct stk_feature_result *result);

#endif
