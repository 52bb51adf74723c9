/* Bech32 (BIP 173) as age uses it: no length limit, one case per string,
 * the checksum over the lowercase form.  Data is 8-bit bytes, converted
 * to and from 5-bit groups (padding bits must be zero). */
#ifndef TPMBOX_FMT_BECH32_H
#define TPMBOX_FMT_BECH32_H

#include <stddef.h>
#include <stdint.h>

/* "hrp" "1" data checksum into out[0..cap) (NUL-terminated), in upper
 * case when upper.  -1 when cap is too small or hrp is unusable. */
int bech32_encode(const char *hrp, const uint8_t *data, size_t n, int upper,
		  char *out, size_t cap);
/* Decode s[0..slen): the human-readable part (lowercased, NUL-terminated)
 * to hrp[0..hrpcap), the data to data[0..cap) with its length in *n.
 * -1 on a bad character, mixed case, a bad checksum, bad padding or no
 * room. */
int bech32_decode(const char *s, size_t slen, char *hrp, size_t hrpcap,
		  uint8_t *data, size_t cap, size_t *n);

#endif
