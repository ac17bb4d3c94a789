/*
 * Python embedded in a program (tests/integration/test_python.sh): the
 * interpreter is Debian's libpython3.11.so, not the executable; runs the
 * script given (tests/workloads/py_cpu.py). Built by the test, which has the
 * headers (python3.11-dev), not by the Makefile.
 */
#include <Python.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "r")))
		return 2;
	Py_Initialize();
	PyRun_SimpleFileEx(f, argv[1], 1);
	return Py_FinalizeEx() < 0 ? 1 : 0;
}
