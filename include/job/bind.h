/* Binding (the TPM 1.2 design's term): data encrypted on the host to the
 * public half of an RSA key that lives in a TPM, so that only that TPM
 * opens it.  Two forms, told apart by their length:
 *   - data that fits one RSAES-OAEP block (SHA-256, MGF1-SHA-256, no
 *     label; at most nlen - 66 bytes): that block alone, exactly nlen
 *     bytes, as `openssl pkeyutl -encrypt` makes it;
 *   - anything longer: a CMS AuthEnvelopedData (lib/fmt/cms.c, DER) whose
 *     AES-256-GCM content key travels in one KeyTransRecipientInfo to
 *     the key (named by its subject key identifier), as `openssl cms
 *     -decrypt` reads it.  A CMS message is always longer than nlen. */
#ifndef TPMBOX_JOB_BIND_H
#define TPMBOX_JOB_BIND_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/cms.h"
#include "fmt/x509.h"

struct key_loaded;

/* The most one OAEP block carries for key k. */
size_t bind_block_max(const struct pubkey *k);

/* Encrypt data[0..len) to RSA key k (2048 to 4096 bits; else exit 2).
 * *out malloc'd. */
int bind_encrypt(const struct pubkey *k, const uint8_t *data, size_t len,
		 uint8_t **out, size_t *outlen, struct tberr *e);

/* Open in[0..len) with the private half of k behind dec (see
 * cms_oaep_fn).  Exit 4 when it was made for another key, 1 when damaged
 * (the GCM tag), -1 when dec failed otherwise.  *out malloc'd. */
int bind_decrypt(const struct pubkey *k, const uint8_t *in, size_t len,
		 cms_oaep_fn dec, void *ctx, uint8_t **out, size_t *outlen,
		 struct tberr *e);

/* The key bind encrypts to, from PATH (PEM public key or certificate, at
 * most 64 KiB); pubkey_free it. */
int bind_pub_read(const char *path, struct pubkey *k, struct tberr *e);

/* bind_decrypt with the private half in the TPM: k loaded (key_open,
 * job/key.h), its auth value auth[0..authlen); the TPM opens the OAEP
 * block or the CMS message's content key (key_decrypt, the answer
 * encrypted on the bus), and k's public half names the recipient. */
int bind_open(struct key_loaded *k, const uint8_t *auth, size_t authlen,
	      const uint8_t *in, size_t len, uint8_t **out, size_t *outlen,
	      struct tberr *e);

#endif
