/* The recovery code (include/fmt/recovery.h). */
#include <stdio.h>
#include <string.h>

#include "crypto/hkdf.h"
#include "fmt/recovery.h"

void recovery_format(const uint8_t code[RECOVERY_BYTES],
		     char out[RECOVERY_TEXT])
{
	int i;

	for (i = 0; i < RECOVERY_GROUPS; i++) {
		unsigned v = (unsigned)code[2 * i] << 8 | code[2 * i + 1];

		snprintf(out + 7 * i, 8, "%06u%s", v * 11,
			 i + 1 < RECOVERY_GROUPS ? "-" : "");
	}
}

static int is_sep(char c)
{
	return c == '-' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int recovery_parse(const char *s, size_t n, uint8_t code[RECOVERY_BYTES],
		   struct tberr *e)
{
	const char *word[RECOVERY_GROUPS + 1];
	size_t wlen[RECOVERY_GROUPS + 1], i = 0, nw = 0;
	const char *digits[RECOVERY_GROUPS];
	int g;

	memset(code, 0, RECOVERY_BYTES);
	/* words split at separators, digits only */
	while (i < n) {
		while (i < n && is_sep(s[i]))
			i++;
		if (i == n)
			break;
		if (nw == RECOVERY_GROUPS + 1)
			break;
		word[nw] = s + i;
		while (i < n && !is_sep(s[i])) {
			if (s[i] < '0' || s[i] > '9')
				return err_set(e, EX_USAGE, "the recovery code "
					       "has a character that is not a "
					       "digit, a dash or a space");
			i++;
		}
		wlen[nw] = (size_t)(s + i - word[nw]);
		nw++;
	}
	if (nw == 1 && wlen[0] == 6 * RECOVERY_GROUPS) {
		for (g = 0; g < RECOVERY_GROUPS; g++)
			digits[g] = word[0] + 6 * g;
	} else {
		if (nw != RECOVERY_GROUPS)
			return err_set(e, EX_USAGE, "the recovery code has %s "
				       "%zu groups, not %d groups of 6 digits",
				       nw > RECOVERY_GROUPS ? "more than" :
				       "only", nw > RECOVERY_GROUPS ?
				       (size_t)RECOVERY_GROUPS : nw,
				       RECOVERY_GROUPS);
		for (g = 0; g < RECOVERY_GROUPS; g++) {
			if (wlen[g] != 6)
				return err_set(e, EX_USAGE, "group %d of the "
					       "recovery code has %zu digits, "
					       "not 6", g + 1, wlen[g]);
			digits[g] = word[g];
		}
	}
	for (g = 0; g < RECOVERY_GROUPS; g++) {
		unsigned long v = 0;
		int k;

		for (k = 0; k < 6; k++)
			v = v * 10 + (unsigned long)(digits[g][k] - '0');
		if (v % 11 || v / 11 > 0xffff) {
			memset(code, 0, RECOVERY_BYTES);
			err_set(e, EX_USAGE, "group %d of the recovery code is "
				"mistyped (it fails its check)", g + 1);
			err_hint(e, "read group %d again: every group of 6 "
				 "digits is a multiple of 11", g + 1);
			return EX_USAGE;
		}
		code[2 * g] = (uint8_t)(v / 11 >> 8);
		code[2 * g + 1] = (uint8_t)(v / 11);
	}
	return 0;
}

int recovery_kek(const uint8_t code[RECOVERY_BYTES], const uint8_t *salt,
		 size_t saltlen, uint8_t kek[32])
{
	return hkdf_sha256(code, RECOVERY_BYTES, salt, saltlen, RECOVERY_INFO,
			   sizeof(RECOVERY_INFO) - 1, kek, 32);
}
