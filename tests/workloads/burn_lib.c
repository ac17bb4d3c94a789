/* Shared library part of burn_shlib: main -> lib_entry -> lib_known_leaf (in libstkburn.so). */
__attribute__((noinline)) unsigned long lib_known_leaf(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < 2000000; i++)
		acc = acc * 2862933555777941757UL + i;
	__asm__ volatile("" : "+r"(acc));
	return acc;
}

__attribute__((noinline)) unsigned long lib_entry(unsigned long n)
{
	unsigned long r = lib_known_leaf(n) + 1;

	__asm__ volatile("" : "+r"(r));
	return r;
}
