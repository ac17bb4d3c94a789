/*
 * Known amounts of memory, disk and network use, each from a function of its
 * own, for stk resources (built -O2 without frame pointers: only CFI finds
 * the callers). Usage:
 *   resources MODE MIB TARGET [exit|go]
 * prints "ready PID", waits for SIGUSR1, does the work, prints "done", then
 * waits to be killed (or exits at once with "exit"; "go" starts at once and
 * exits, for timing a run). MODE:
 *   memory     touch_pages: MIB of new anonymous memory written a page at a
 *              time (4 KiB pages: MIB * 256 faults)
 *   direct     direct_write_chunk: MIB written to TARGET (a file or a block
 *              device) with O_DIRECT, 1 MiB a write; then direct_read_chunk
 *              reads them back the same way
 *   cached     cached_read_chunk: MIB read from TARGET through the page cache
 *              (written and cached before "ready")
 *   writeback  dirty_pages: MIB written to TARGET through the page cache,
 *              then sync(): the flusher kworker writes them out
 *   tcp        tcp_send_chunk sends MIB over loopback TCP, tcp_recv_chunk
 *              (another thread) receives them
 *   udp        udp_send_datagram sends MIB * 128 datagrams of 1000 bytes
 *              over loopback UDP, udp_recv_datagram receives them (fewer
 *              than MIB: a stack copy per datagram where the kernel cannot
 *              walk stacks itself)
 *   io         direct and tcp, one after the other
 *   all        memory, direct, tcp and udp, one after the other
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024 * 1024)
#define PAGE 4096
#define TCP_CHUNK (64 * 1024)
#define DATAGRAM 1000
#define DATAGRAMS_PER_MIB 128

static void die(const char *what)
{
	fprintf(stderr, "resources: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The volatile sinks keep the calls from becoming tail calls (which drop the caller's frame). */
__attribute__((noinline)) void touch_pages(char *p, size_t bytes)
{
	for (size_t off = 0; off < bytes; off += PAGE)
		((volatile char *)p)[off] = 1;
}

__attribute__((noinline)) void grow_memory(size_t mib)
{
	size_t bytes = mib * MIB;
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile int sink;

	if (p == MAP_FAILED)
		die("mmap");
	madvise(p, bytes, MADV_NOHUGEPAGE); /* a fault per 4 KiB page */
	touch_pages(p, bytes);
	sink = p[0];
	(void)sink;
}

static void *aligned_buffer(size_t bytes)
{
	void *buf;

	if (posix_memalign(&buf, PAGE, bytes))
		die("posix_memalign");
	memset(buf, 0x5a, bytes);
	return buf;
}

__attribute__((noinline)) ssize_t direct_write_chunk(int fd, const void *buf, off_t off)
{
	volatile ssize_t n = pwrite(fd, buf, MIB, off);
	return n;
}

__attribute__((noinline)) ssize_t direct_read_chunk(int fd, void *buf, off_t off)
{
	volatile ssize_t n = pread(fd, buf, MIB, off);
	return n;
}

__attribute__((noinline)) void direct_io(const char *target, size_t mib)
{
	int fd = open(target, O_RDWR | O_CREAT | O_DIRECT, 0600);
	void *buf = aligned_buffer(MIB);

	if (fd < 0)
		die(target);
	for (size_t i = 0; i < mib; i++)
		if (direct_write_chunk(fd, buf, (off_t)(i * MIB)) != MIB)
			die("direct write");
	for (size_t i = 0; i < mib; i++)
		if (direct_read_chunk(fd, buf, (off_t)(i * MIB)) != MIB)
			die("direct read");
	close(fd);
	free(buf);
}

__attribute__((noinline)) ssize_t cached_read_chunk(int fd, void *buf, off_t off)
{
	volatile ssize_t n = pread(fd, buf, MIB, off);
	return n;
}

/* Before "ready": the file exists and sits in the page cache. */
static void prepare_cached(const char *target, size_t mib)
{
	int fd = open(target, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *buf = aligned_buffer(MIB);

	if (fd < 0)
		die(target);
	for (size_t i = 0; i < mib; i++)
		if (write(fd, buf, MIB) != MIB)
			die("write");
	for (size_t i = 0; i < mib; i++)
		if (pread(fd, buf, MIB, (off_t)(i * MIB)) != MIB)
			die("read");
	close(fd);
	free(buf);
}

__attribute__((noinline)) void cached_read(const char *target, size_t mib)
{
	int fd = open(target, O_RDONLY);
	void *buf = aligned_buffer(MIB);

	if (fd < 0)
		die(target);
	for (size_t i = 0; i < mib; i++)
		if (cached_read_chunk(fd, buf, (off_t)(i * MIB)) != MIB)
			die("cached read");
	close(fd);
	free(buf);
}

__attribute__((noinline)) ssize_t dirty_pages(int fd, const void *buf)
{
	volatile ssize_t n = write(fd, buf, MIB);
	return n;
}

__attribute__((noinline)) void writeback(const char *target, size_t mib)
{
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	void *buf = aligned_buffer(MIB);

	if (fd < 0)
		die(target);
	for (size_t i = 0; i < mib; i++)
		if (dirty_pages(fd, buf) != MIB)
			die("write");
	sync(); /* the flusher writes them, not this thread */
	close(fd);
	free(buf);
}

struct peer {
	int listen_fd;
	size_t bytes;
	size_t got; /* UDP: bytes received */
	int udp;
};

__attribute__((noinline)) ssize_t tcp_recv_chunk(int fd, char *buf, size_t len)
{
	volatile ssize_t n = recv(fd, buf, len, 0);
	return n;
}

static void *tcp_receiver(void *arg)
{
	struct peer *p = arg;
	int fd = accept(p->listen_fd, NULL, NULL);
	char *buf = malloc(TCP_CHUNK);
	size_t got = 0;
	ssize_t n;

	if (fd < 0 || !buf)
		die("accept");
	while (got < p->bytes && (n = tcp_recv_chunk(fd, buf, TCP_CHUNK)) > 0)
		got += (size_t)n;
	close(fd);
	free(buf);
	return NULL;
}

__attribute__((noinline)) ssize_t tcp_send_chunk(int fd, const char *buf, size_t len)
{
	volatile ssize_t n = send(fd, buf, len, 0);
	return n;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A socket bound to a free loopback port, its port in *port. */
static int bound_socket(int type, int *port)
{
	struct sockaddr_in a = loopback(0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, type, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || getsockname(fd, (struct sockaddr *)&a, &len))
		die("bind");
	*port = ntohs(a.sin_port);
	return fd;
}

__attribute__((noinline)) void tcp_transfer(size_t mib)
{
	int port, fd;
	struct peer p = { .bytes = mib * MIB };
	struct sockaddr_in a;
	pthread_t t;
	char *buf = calloc(1, TCP_CHUNK);

	p.listen_fd = bound_socket(SOCK_STREAM, &port);
	if (!buf || listen(p.listen_fd, 1) || pthread_create(&t, NULL, tcp_receiver, &p))
		die("listen");
	a = loopback(port);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	for (size_t sent = 0; sent < p.bytes;) {
		ssize_t n = tcp_send_chunk(fd, buf, TCP_CHUNK);

		if (n <= 0)
			die("send");
		sent += (size_t)n;
	}
	pthread_join(t, NULL);
	close(fd);
	close(p.listen_fd);
	free(buf);
}

__attribute__((noinline)) ssize_t udp_recv_datagram(int fd, char *buf)
{
	volatile ssize_t n = recv(fd, buf, DATAGRAM, 0);
	return n;
}

static void *udp_receiver(void *arg)
{
	struct peer *p = arg;
	char buf[DATAGRAM];
	size_t got = 0;

	while (got < p->bytes && udp_recv_datagram(p->listen_fd, buf) > 0)
		got += DATAGRAM;
	p->got = got;
	return NULL;
}

__attribute__((noinline)) ssize_t udp_send_datagram(int fd, const char *buf, const struct sockaddr_in *to)
{
	volatile ssize_t n = sendto(fd, buf, DATAGRAM, 0, (const struct sockaddr *)to, sizeof(*to));
	return n;
}

__attribute__((noinline)) void udp_transfer(size_t mib)
{
	int port, fd, rcvbuf = 8 * MIB;
	struct peer p = { .bytes = mib * DATAGRAMS_PER_MIB * DATAGRAM };
	struct timeval tv = { .tv_sec = 2 };
	struct sockaddr_in to;
	char buf[DATAGRAM] = { 0 };
	pthread_t t;

	p.listen_fd = bound_socket(SOCK_DGRAM, &port);
	setsockopt(p.listen_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(p.listen_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)); /* a datagram lost ends it */
	if (pthread_create(&t, NULL, udp_receiver, &p))
		die("pthread_create");
	to = loopback(port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	for (size_t i = 0; i < mib * DATAGRAMS_PER_MIB; i++) {
		if (udp_send_datagram(fd, buf, &to) != DATAGRAM)
			die("sendto");
		/* the receiver keeps up (loopback drops what its buffer cannot hold), and so does a
		 * tracer copying each datagram's stack on a slow guest (a full buffer loses callers) */
		if (i % 16 == 15)
			usleep(500);
	}
	pthread_join(t, NULL);
	/* loopback drops what the receiver had no room for: the tests weigh recv by what arrived */
	printf("udp received %zu\n", p.got);
	fflush(stdout);
	close(fd);
	close(p.listen_fd);
}

static void wait_for_go(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: resources memory|direct|cached|writeback|tcp|udp|io|all MIB TARGET [exit|go]\n");
		return 2;
	}
	const char *mode = argv[1], *target = argv[3], *after = argc > 4 ? argv[4] : "";
	size_t mib = strtoul(argv[2], NULL, 10);
	int all = strcmp(mode, "all") == 0, io = strcmp(mode, "io") == 0;

	if (strcmp(mode, "cached") == 0)
		prepare_cached(target, mib);
	if (strcmp(after, "go") != 0)
		wait_for_go();
	if (all || strcmp(mode, "memory") == 0)
		grow_memory(mib);
	if (all || io || strcmp(mode, "direct") == 0)
		direct_io(target, mib);
	if (strcmp(mode, "cached") == 0)
		cached_read(target, mib);
	if (strcmp(mode, "writeback") == 0)
		writeback(target, mib);
	if (all || io || strcmp(mode, "tcp") == 0)
		tcp_transfer(mib);
	if (all || strcmp(mode, "udp") == 0)
		udp_transfer(mib);
	printf("done\n");
	fflush(stdout);
	if (strcmp(after, "exit") == 0 || strcmp(after, "go") == 0)
		return 0;
	for (;;)
		pause();
}
