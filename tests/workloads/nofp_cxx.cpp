// The no-frame-pointer chain in C++ (built -O2 -fomit-frame-pointer): methods
// in a namespace and a template, so the unwound names are demangled ones.
// Usage: nofp_cxx [SECONDS] (default 30); prints "ready PID" when started.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace nofp {

struct Engine {
	__attribute__((noinline)) unsigned long leaf(unsigned long n);
	__attribute__((noinline)) unsigned long middle(unsigned long n);
};

__attribute__((noinline)) unsigned long Engine::leaf(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < 2000000; i++)
		acc = acc * 6364136223846793005UL + i;
	__asm__ volatile("" : "+r"(acc));
	return acc;
}

__attribute__((noinline)) unsigned long Engine::middle(unsigned long n)
{
	volatile unsigned long r = leaf(n + 1);
	return r + 1;
}

template <typename T> __attribute__((noinline)) T outer(Engine &e, T n)
{
	volatile T r = e.middle(n);
	return r + 1;
}

} // namespace nofp

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 30.0;
	auto start = std::chrono::steady_clock::now();
	nofp::Engine e;
	volatile unsigned long sink = 0;

	std::printf("ready %d\n", (int)getpid());
	std::fflush(stdout);
	do
		sink += nofp::outer<unsigned long>(e, sink);
	while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds);
	return 0;
}
