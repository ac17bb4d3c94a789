// A C++ CPU burner: main -> workload::Engine<int>::spin(int) const -> workload::detail::mix<unsigned long>.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

namespace workload {
namespace detail {
template <typename T> __attribute__((noinline)) T mix(T v, int rounds)
{
	for (int i = 0; i < rounds; i++)
		v = v * 6364136223846793005UL + static_cast<T>(i);
	asm volatile("" : "+r"(v));
	return v;
}
} // namespace detail

template <typename T> class Engine {
public:
	__attribute__((noinline)) unsigned long spin(int rounds) const
	{
		unsigned long r = detail::mix<unsigned long>(seed_, rounds);
		asm volatile("" : "+r"(r));
		return r;
	}
	unsigned long seed_ = 7;
};
} // namespace workload

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 30.0;
	workload::Engine<int> engine;
	timespec start, now;
	unsigned long sink = 0;

	std::printf("ready %d\n", static_cast<int>(getpid()));
	std::fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		sink += engine.spin(2000000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (static_cast<double>(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	return static_cast<int>(sink & 1);
}
