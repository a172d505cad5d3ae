build/common/rng.o: common/rng.c common/rng.h common/err.h
common/rng.h:
common/err.h:
