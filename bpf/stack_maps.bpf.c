// SPDX-License-Identifier: GPL-2.0
/* The stack applets' shared maps (bpf/stack_maps.h), defined here once. */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#define STK_STACK_MAPS_HERE
#include "stack_maps.h"

char LICENSE[] SEC("license") = "GPL";
