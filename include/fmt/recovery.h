/* The recovery code: 128 random bits a person writes down and reads back
 * over the phone, written as 48 digits in 8 groups of 6 (BitLocker's
 * layout): each group is a 16-bit value times 11, so every group is a
 * multiple of 11 below 720896.  A mistyped digit or two swapped
 * neighbours make a group that fails that check, and the group is
 * named; swapped or repeated whole groups pass it and make a wrong code.
 *
 * The code opens one more escrow copy: a CMS KEKRecipientInfo whose
 * AES-256 key-encryption key is
 *     HKDF-SHA-256(ikm = the 16 code bytes, salt = the recipient's
 *                  16-byte keyIdentifier, info = "tpmbox recovery code v1")
 * (a fast KDF suits a uniformly random 128-bit input: there is nothing to
 * stretch; the salt keeps keys of different blobs apart). */
#ifndef TPMBOX_FMT_RECOVERY_H
#define TPMBOX_FMT_RECOVERY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define RECOVERY_BYTES 16
#define RECOVERY_GROUPS 8
#define RECOVERY_TEXT (RECOVERY_GROUPS * 7)	/* with dashes and NUL */
#define RECOVERY_SALT 16
#define RECOVERY_INFO "tpmbox recovery code v1"

/* "ddddd-..." of the code (RECOVERY_TEXT bytes with the NUL). */
void recovery_format(const uint8_t code[RECOVERY_BYTES],
		     char out[RECOVERY_TEXT]);
/* Read a code as typed: 8 groups of 6 digits separated by '-', spaces or
 * line ends (or 48 digits in a row).  Exit 2 with "group N (DIGITS) ..."
 * for a group that fails its check or is not 6 digits, or when the
 * shape is wrong. */
int recovery_parse(const char *s, size_t n, uint8_t code[RECOVERY_BYTES],
		   struct tberr *e);
/* The key-encryption key of a code and a keyIdentifier. */
int recovery_kek(const uint8_t code[RECOVERY_BYTES], const uint8_t *salt,
		 size_t saltlen, uint8_t kek[32]);

#endif
