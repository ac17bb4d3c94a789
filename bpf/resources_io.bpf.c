// SPDX-License-Identifier: GPL-2.0
/*
 * stk resources read, write, send and recv: bytes moved by the current
 * thread, weighed at the end of the call that moved them.
 *
 * read, write: raw_syscalls:sys_exit of read, pread64, readv, preadv,
 * preadv2 (and the writes alike), weighed by the result. With BTF the fd's
 * file is looked up: sockets are left to send and recv, so no byte is
 * counted twice. The user stack is the caller's; the kernel frames of a
 * system call's exit say nothing, so the call's name stands in for them
 * (detail: its number + 1).
 *   raw_tp      (regs, ret): the number and fd from the registers, CO-RE on arm64
 *   tracepoint  the record's id and ret; the fd from the task's saved registers
 *
 * send, recv: bytes on TCP and UDP sockets.
 *   raw_tp, tracepoint  sock:sock_send_length / sock_recv_length (6.4+): every
 *               sendmsg and recvmsg of a socket (system calls of any kind,
 *               io_uring, the kernel's own), peeks left out
 *   sys_exit    sendto, sendmsg, recvfrom, recvmsg, and read/write on a
 *               socket, its protocol read from the fd's socket (needs BTF)
 * sendmmsg and recvmmsg return messages, not bytes: not counted by sys_exit.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "resources_event.h"

#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define MSG_PEEK 2
#define S_IFMT 0170000
#define S_IFSOCK 0140000

#if defined(__TARGET_ARCH_x86)
enum { NR_READ = 0, NR_WRITE = 1, NR_PREAD64 = 17, NR_PWRITE64 = 18, NR_READV = 19, NR_WRITEV = 20,
       NR_SENDTO = 44, NR_RECVFROM = 45, NR_SENDMSG = 46, NR_RECVMSG = 47, NR_PREADV = 295, NR_PWRITEV = 296,
       NR_PREADV2 = 327, NR_PWRITEV2 = 328 };
#elif defined(__TARGET_ARCH_arm64)
enum { NR_READ = 63, NR_WRITE = 64, NR_READV = 65, NR_WRITEV = 66, NR_PREAD64 = 67, NR_PWRITE64 = 68,
       NR_PREADV = 69, NR_PWRITEV = 70, NR_SENDTO = 206, NR_RECVFROM = 207, NR_SENDMSG = 211, NR_RECVMSG = 212,
       NR_PREADV2 = 286, NR_PWRITEV2 = 287 };
#else
#error "bpf/resources_io.bpf.c: no system call numbers for this architecture yet"
#endif

/* What a system call moves: the kind it counts as, and whether it is a socket call. */
struct call {
	u32 kind;
	bool socket_call;
};

static __always_inline bool call_of(long nr, struct call *c)
{
	switch (nr) {
	case NR_READ: case NR_PREAD64: case NR_READV: case NR_PREADV: case NR_PREADV2:
		*c = (struct call){ STK_RES_READ, false };
		return true;
	case NR_WRITE: case NR_PWRITE64: case NR_WRITEV: case NR_PWRITEV: case NR_PWRITEV2:
		*c = (struct call){ STK_RES_WRITE, false };
		return true;
	case NR_SENDTO: case NR_SENDMSG:
		*c = (struct call){ STK_RES_SEND, true };
		return true;
	case NR_RECVFROM: case NR_RECVMSG:
		*c = (struct call){ STK_RES_RECV, true };
		return true;
	}
	return false;
}

static __always_inline bool tcp_or_udp(u16 family, u16 protocol)
{
	return (family == AF_INET || family == AF_INET6) && (protocol == IPPROTO_TCP || protocol == IPPROTO_UDP);
}

/* The current task's fd: 1 a socket (family, protocol filled), 0 another file, -1 none (closed since). */
static __always_inline int fd_socket(long fd, u16 *family, u16 *protocol)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct file *f = NULL, **fds;
	struct fdtable *fdt;
	struct socket *sock;
	struct sock *sk;

	/* without BTF nothing here can be read: the branch is gone before the verifier sees it */
	if (!bpf_core_field_exists(task->files))
		return -1;
	fdt = BPF_CORE_READ(task, files, fdt);
	fds = BPF_CORE_READ(fdt, fd);
	if (fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return -1;
	if (stk_res_read(&f, sizeof(f), fds + fd) || !f)
		return -1;
	if ((BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	*family = BPF_CORE_READ(sk, __sk_common.skc_family);
	*protocol = (u16)BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol);
	return 1;
}

/* A system call ended: ret bytes moved through fd. */
static __always_inline void call_ended(void *ctx, long nr, long fd, long ret, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u16 family = 0, protocol = 0;
	struct call c;
	int is_socket = 0;

	if (!cfg || ret <= 0 || !call_of(nr, &c))
		return;
	if (cfg->fd_types && (is_socket = fd_socket(fd, &family, &protocol)) < 0)
		return;
	if (c.socket_call || is_socket) {
		if (!cfg->sockets_by_syscall)
			return; /* sockets are the sock tracepoints' (or no kind of this run) */
		if (!tcp_or_udp(family, protocol)) {
			stk_res_fact(STK_RES_FACT_SOCKET_UNKNOWN);
			return;
		}
		if (!c.socket_call)
			c.kind = c.kind == STK_RES_READ ? STK_RES_RECV : STK_RES_SEND;
	}
	stk_res_event(ctx, c.kind, (u64)ret, (u16)(nr + 1), NULL, false, false, 0, mode);
}

/* The number and first argument of a system call from its registers at exit (x0 then holds the result). */
static __always_inline void call_regs(const void *regs, long *nr, long *fd)
{
#if defined(__TARGET_ARCH_x86)
	const struct pt_regs *r = regs;

	stk_res_read(nr, sizeof(*nr), &r->orig_rax);
	stk_res_read(fd, sizeof(*fd), &r->rdi);
#else
	const struct pt_regs___stk_arm64 *r = regs;

	*nr = BPF_CORE_READ(r, syscallno);
	*fd = (long)BPF_CORE_READ(r, orig_x0);
#endif
}

/* The current task's registers as saved at kernel entry, or NULL. */
static __always_inline const void *task_regs(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs))
		return (const void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!STK_TASK_PT_REGS_SIZE)
		return NULL;
	return (const char *)BPF_CORE_READ(task, stack) + STK_THREAD_SIZE - STK_TASK_PT_REGS_SIZE;
}

static __always_inline int sys_exit_raw(struct bpf_raw_tracepoint_args *ctx, const int mode)
{
	long nr = -1, fd = -1;

	call_regs((const void *)ctx->args[0], &nr, &fd);
	call_ended(ctx, nr, fd, (long)ctx->args[1], mode);
	return 0;
}
STK_RES_PROGRAMS("raw_tp/sys_exit", stk_res_sys_exit_raw_tp, struct bpf_raw_tracepoint_args *, sys_exit_raw)

/* raw_syscalls:sys_exit's record: long id at 8, long ret at 16 (unchanged since it came). */
struct sys_exit_record {
	u64 common;
	long id;
	long ret;
};

static __always_inline int sys_exit_record(struct sys_exit_record *ctx, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	long nr = ctx->id, ret = ctx->ret, fd = -1, ignored;
	const void *regs;

	if (!cfg || ret <= 0)
		return 0;
	/* the fd matters only where BTF can tell a socket from a file (and read arm64's registers) */
	if (bpf_core_field_exists(((struct task_struct *)0)->files) && cfg->fd_types && (regs = task_regs()))
		call_regs(regs, &ignored, &fd);
	call_ended(ctx, nr, fd, ret, mode);
	return 0;
}
STK_RES_PROGRAMS("tracepoint/raw_syscalls/sys_exit", stk_res_sys_exit_tp, struct sys_exit_record *, sys_exit_record)

/* A socket's sendmsg or recvmsg returned ret (flags: MSG_PEEK, ...). */
static __always_inline void socket_moved(void *ctx, u32 kind, u16 family, u16 protocol, int ret, int flags,
					 const int mode)
{
	if (ret <= 0 || !tcp_or_udp(family, protocol))
		return;
	if (kind == STK_RES_RECV && (flags & MSG_PEEK))
		return; /* peeked bytes are received again */
	stk_res_event(ctx, kind, (u64)ret, 0, NULL, true, false, 0, mode);
}

/* raw_tp: (struct sock *sk, int ret, int flags) */
static __always_inline int sock_raw(struct bpf_raw_tracepoint_args *ctx, u32 kind, const int mode)
{
	struct sock *sk = (struct sock *)ctx->args[0];

	socket_moved(ctx, kind, BPF_CORE_READ(sk, __sk_common.skc_family),
		     (u16)BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol), (int)ctx->args[1], (int)ctx->args[2], mode);
	return 0;
}

static __always_inline int send_raw(struct bpf_raw_tracepoint_args *ctx, const int mode)
{
	return sock_raw(ctx, STK_RES_SEND, mode);
}
STK_RES_PROGRAMS("raw_tp/sock_send_length", stk_res_send_raw_tp, struct bpf_raw_tracepoint_args *, send_raw)

static __always_inline int recv_raw(struct bpf_raw_tracepoint_args *ctx, const int mode)
{
	return sock_raw(ctx, STK_RES_RECV, mode);
}
STK_RES_PROGRAMS("raw_tp/sock_recv_length", stk_res_recv_raw_tp, struct bpf_raw_tracepoint_args *, recv_raw)

/* tracepoint: the record's family, protocol, ret and flags */
static __always_inline int sock_record(void *ctx, u32 kind, const int mode)
{
	const struct stk_res_config *cfg = stk_res_config_get();
	u16 family = 0, protocol = 0;
	int ret = 0, flags = 0;

	if (!cfg)
		return 0;
	stk_res_read(&family, sizeof(family), (const char *)ctx + cfg->off.sock_family);
	stk_res_read(&protocol, sizeof(protocol), (const char *)ctx + cfg->off.sock_protocol);
	stk_res_read(&ret, sizeof(ret), (const char *)ctx + cfg->off.sock_ret);
	stk_res_read(&flags, sizeof(flags), (const char *)ctx + cfg->off.sock_flags);
	socket_moved(ctx, kind, family, protocol, ret, flags, mode);
	return 0;
}

static __always_inline int send_record(void *ctx, const int mode)
{
	return sock_record(ctx, STK_RES_SEND, mode);
}
STK_RES_PROGRAMS("tracepoint/sock/sock_send_length", stk_res_send_tp, void *, send_record)

static __always_inline int recv_record(void *ctx, const int mode)
{
	return sock_record(ctx, STK_RES_RECV, mode);
}
STK_RES_PROGRAMS("tracepoint/sock/sock_recv_length", stk_res_recv_tp, void *, recv_record)

char LICENSE[] SEC("license") = "GPL";
