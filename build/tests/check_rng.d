build/tests/check_rng.o: tests/check_rng.c common/err.h common/rng.h
common/err.h:
common/rng.h:
