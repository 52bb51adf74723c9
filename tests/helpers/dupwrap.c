/* dupwrap: a sealed data object made and wrapped on the host for
 * TPM2_Import (lib/tpm2/dup.c), in tpm2-tools' file formats, for
 * tests/import.bats.  No TPM is used.
 *
 * usage: dupwrap PARENT.pub DATA OUTDIR [AUTH [fixed]]
 *   PARENT.pub  the new parent's TPM2B_PUBLIC (tpm2_readpublic -o)
 *   DATA        1 to 128 bytes to seal
 *   writes OUTDIR/pub (TPM2B_PUBLIC), OUTDIR/dup (TPM2B_PRIVATE) and
 *   OUTDIR/seed (TPM2B_ENCRYPTED_SECRET); the object has userWithAuth and
 *   noDA, auth value AUTH (default empty); "fixed" sets fixedTPM (which
 *   must be refused). */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/tpm2const.h"
#include "tpm2/dup.h"

static int fail(struct tberr *e)
{
	fprintf(stderr, "dupwrap: %s\n", e->msg);
	return e->code ? e->code : 1;
}

static int put2b(const char *dir, const char *name, const uint8_t *p,
		 size_t n, struct tberr *e)
{
	uint8_t buf[2 + 1024];
	char path[4096];
	struct tb b;

	tb_init(&b, buf, sizeof(buf));
	tb_put_tpm2b(&b, p, n);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return tb_err(&b) ? err_set(e, 1, "%s too large", name) :
	       file_write_atomic(path, buf, b.len, OUT_FORCE, e);
}

static int put_raw(const char *dir, const char *name, const uint8_t *p,
		   size_t n, struct tberr *e)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return file_write_atomic(path, p, n, OUT_FORCE, e);
}

int main(int argc, char **argv)
{
	uint8_t *praw = NULL, *data = NULL, sens[TPM2_SENSITIVE_MAX];
	size_t plen, dlen, senslen;
	const char *auth = argc > 4 ? argv[4] : "";
	struct tpm2_public parent, obj;
	struct tpm2_dup dup;
	struct tberr e;
	struct tb b;

	memset(&e, 0, sizeof(e));
	if (argc < 4 || argc > 6) {
		fputs("usage: dupwrap PARENT.pub DATA OUTDIR [AUTH [fixed]]\n",
		      stderr);
		return 2;
	}
	if (file_read(argv[1], 4096, &praw, &plen, &e) ||
	    file_read(argv[2], 4096, &data, &dlen, &e))
		return fail(&e);
	tb_init_read(&b, praw, plen);
	if (tpm2_public_get2b(&b, &parent, &e))
		return fail(&e);
	memset(&obj, 0, sizeof(obj));
	obj.type = TPM2_ALG_KEYEDHASH;
	obj.name_alg = TPM2_ALG_SHA256;
	obj.attrs = TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA;
	if (argc > 5 && strcmp(argv[5], "fixed") == 0)
		obj.attrs |= TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT;
	obj.scheme = TPM2_ALG_NULL;
	obj.sym_alg = TPM2_ALG_NULL;
	if (tpm2_sealed_make(&obj, (const uint8_t *)auth, strlen(auth), data,
			     dlen, sens, &senslen, &e) ||
	    tpm2_dup_wrap(&parent, &obj, sens, senslen, 0, &dup, &e))
		return fail(&e);
	if (put2b(argv[3], "pub", obj.raw, obj.rawlen, &e) ||
	    put2b(argv[3], "dup", dup.priv.b, dup.priv.n, &e) ||
	    put_raw(argv[3], "seed", dup.seed, dup.seedlen, &e))
		return fail(&e);
	return 0;
}
