build/common/err.o: common/err.c common/err.h
common/err.h:
