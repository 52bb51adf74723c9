/* checkquote -k: an AK's TPM2B_PUBLIC or AK blob (ak_pub_load), then, for
 * what loads, its PEM and its qualified name under an SRK named by the
 * input's first 34 bytes. */
#include <stdlib.h>
#include <string.h>

#include "job/attest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tpm2_public pub;
	uint8_t qn[TPM2_NAME_MAX];
	struct tberr e;
	char *pem = NULL;
	size_t n;

	memset(&e, 0, sizeof(e));
	if (ak_pub_load(data, size, &pub, &e) < AK_PUB_NONE &&
	    ak_pub_pem(&pub, &pem, &n, &e) == 0)
		free(pem);
	if (size >= 2)
		ak_srk_qn(data, size < 34 ? size : 34, qn);
	return 0;
}
