/* Where libbpf's own messages go. */
#ifndef STK_LIBBPF_LOG_H
#define STK_LIBBPF_LOG_H

/* Silent unless verbose (then to stderr; libbpf's debug level only with STK_LIBBPF_DEBUG=1). */
void stk_libbpf_set_verbose(int verbose);

#endif
