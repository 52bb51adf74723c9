/* Minimal unit-test harness: CHECK(cond) counts, unit_done() prints
 * "unit: NAME N passed, N failed" and returns the exit status. */
#ifndef TPMBOX_UNIT_H
#define TPMBOX_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_pass, unit_fail;

#define CHECK(cond) do { \
	if (cond) { unit_pass++; } else { unit_fail++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
			__LINE__, #cond); } } while (0)

#define CHECK_MEM(a, b, n) CHECK(memcmp((a), (b), (n)) == 0)

static inline int unit_done(const char *name)
{
	printf("unit: %s %d passed, %d failed\n", name, unit_pass, unit_fail);
	return unit_fail ? 1 : 0;
}

#endif
