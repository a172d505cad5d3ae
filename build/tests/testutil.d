build/tests/testutil.o: tests/testutil.c tests/testutil.h
tests/testutil.h:
