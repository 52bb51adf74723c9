/* systemd's signed-policy JSON as unseal --signature and policysign
 * --append read it (lib/fmt/polsig.c): untrusted input.  A parsed file must
 * format, and the formatted text must parse back to the same entries and
 * format to the same text. */
#include <stdlib.h>
#include <string.h>

#include "fmt/polsig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct polsig a, b;
	struct tberr e;
	char *t1 = NULL, *t2 = NULL;
	size_t n1, n2;

	if (size > 1 << 17)
		return 0;
	memset(&e, 0, sizeof(e));
	/* the bytes as they are: no NUL terminator to lean on */
	if (polsig_parse((const char *)data, size, "fuzz", &a, &e))
		return 0;
	if (polsig_format(&a, &t1, &n1))
		abort();
	if (polsig_parse(t1, n1, "again", &b, &e) || a.n != b.n)
		abort();
	for (int i = 0; i < a.n; i++)
		if (a.e[i].bank != b.e[i].bank || a.e[i].pcrs != b.e[i].pcrs ||
		    memcmp(a.e[i].pkfp, b.e[i].pkfp, 32) ||
		    memcmp(a.e[i].pol, b.e[i].pol, 32) ||
		    a.e[i].siglen != b.e[i].siglen ||
		    memcmp(a.e[i].sig, b.e[i].sig, a.e[i].siglen))
			abort();
	if (polsig_format(&b, &t2, &n2) || n1 != n2 || memcmp(t1, t2, n1))
		abort();
	free(t1);
	free(t2);
	return 0;
}
