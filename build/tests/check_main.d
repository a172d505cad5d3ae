build/tests/check_main.o: tests/check_main.c build/tests/suites.h
build/tests/suites.h:
