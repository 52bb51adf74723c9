/* Policy digests against tpm2-tools 5.4 on swtpm (trial sessions):
 *   tpm2_createpolicy --policy-pcr -l SEL -f FILE -L out
 *   tpm2_startauthsession; tpm2_policypcr ...; tpm2_policyauthvalue -L out
 * The PCR files held the fixed bytes noted at each vector. */
#include <string.h>

#include "base/err.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "tpm2/policy.h"
#include "unit.h"

static void add(struct policy_spec *p, uint16_t alg, unsigned idx,
		uint8_t fill, unsigned len)
{
	struct pcr_val *v = &p->br[0].vals.v[p->br[0].vals.n++];

	v->alg = alg;
	v->idx = (uint8_t)idx;
	v->len = (uint8_t)len;
	memset(v->d, fill, len);
}

static int expect(const struct policy_spec *p, const char *hexwant)
{
	uint8_t want[32], got[64];

	if (hex_decode(hexwant, want, sizeof(want)) != 32)
		return 0;
	if (policy_compute(p, got) != 32)
		return 0;
	return memcmp(got, want, 32) == 0;
}

static void spec(struct policy_spec *p, const char *sel)
{
	struct tberr e;

	memset(p, 0, sizeof(*p));
	p->halg = TPM2_ALG_SHA256;
	if (sel) {
		p->nbranch = 1;
		CHECK(pcr_sel_parse(sel, &p->br[0].sel, &e) == 0);
	}
}

int main(void)
{
	struct policy_spec p;
	struct tberr e;
	uint8_t d[64];
	uint8_t mem[128];
	struct tb b;

	/* sha256:0 = 00*32, sha256:7 = 11*32 */
	spec(&p, "sha256:0,7");
	add(&p, TPM2_ALG_SHA256, 0, 0x00, 32);
	add(&p, TPM2_ALG_SHA256, 7, 0x11, 32);
	CHECK(expect(&p, "e543270061aadd84e54f13c220912eefd4ee992a5ec53df25eb2"
		     "2aebca0458ab"));
	/* the same followed by PolicyAuthValue */
	p.auth = 1;
	CHECK(expect(&p, "0775ee58c20d8bfca1b78461b2f8eebace929e6b717018442"
		     "3df167c86a8ef53"));

	/* PolicyAuthValue alone */
	spec(&p, NULL);
	p.auth = 1;
	CHECK(expect(&p, "8fcd2169ab92694e0c633f1ab772842b8241bbc20288981fc"
		     "7ac1eddc1fddb0e"));
	/* the empty policy is all zeros */
	p.auth = 0;
	CHECK(policy_compute(&p, d) == 32);
	CHECK(d[0] == 0 && d[31] == 0);

	/* sha256:7 = 22*32 */
	spec(&p, "sha256:7");
	add(&p, TPM2_ALG_SHA256, 7, 0x22, 32);
	CHECK(expect(&p, "3bdea41481b3d3fab8663735f943cde884687d45629af2080"
		     "f65bb04792a0fc5"));

	/* sha1:1 = 33*20, sha1:2 = 44*20 */
	spec(&p, "sha1:1,2");
	add(&p, TPM2_ALG_SHA1, 1, 0x33, 20);
	add(&p, TPM2_ALG_SHA1, 2, 0x44, 20);
	CHECK(expect(&p, "ce42fe0400917225edb3b32046884dbb8cd9759673502384c"
		     "1809204d0f40525"));

	/* sha256:16 = 55*32, sha256:23 = 66*32 */
	spec(&p, "sha256:16,23");
	add(&p, TPM2_ALG_SHA256, 16, 0x55, 32);
	add(&p, TPM2_ALG_SHA256, 23, 0x66, 32);
	CHECK(expect(&p, "dc541162a39ea8d10f29b619ca924b4f1f748c2eb94ce6c58"
		     "b02a0251b32876a"));

	/* two banks: sha1:1 = 33*20, sha256:2 = 44*32 */
	spec(&p, "sha1:1+sha256:2");
	add(&p, TPM2_ALG_SHA1, 1, 0x33, 20);
	add(&p, TPM2_ALG_SHA256, 2, 0x44, 32);
	CHECK(expect(&p, "e1bcffb9cf34d7e9396a1c55136a7272cbd58c793ef768381"
		     "de061f2a209dd82"));

	/* Values that do not match the selection are refused. */
	spec(&p, "sha256:0,7");
	add(&p, TPM2_ALG_SHA256, 0, 0x00, 32);
	CHECK(policy_compute(&p, d) == 0);
	CHECK(policy_check_vals(&p.br[0].sel, &p.br[0].vals, &e) == EX_USAGE);
	CHECK(strstr(e.msg, "no value for PCR sha256:7") != NULL);
	add(&p, TPM2_ALG_SHA256, 7, 0x11, 20);
	CHECK(policy_check_vals(&p.br[0].sel, &p.br[0].vals, &e) == EX_USAGE);
	CHECK(strstr(e.msg, "has 20 bytes") != NULL);
	p.br[0].vals.v[1].len = 32;
	add(&p, TPM2_ALG_SHA256, 8, 0x11, 32);
	CHECK(policy_check_vals(&p.br[0].sel, &p.br[0].vals, &e) == EX_USAGE);
	p.br[0].vals.n = 2;
	p.br[0].vals.v[1].idx = 6;
	CHECK(policy_check_vals(&p.br[0].sel, &p.br[0].vals, &e) == EX_USAGE);
	CHECK(strstr(e.msg, "out of order") != NULL);

	/* PolicyPCR parameters as the key file stores them. */
	spec(&p, "sha256:7");
	memset(d, 0xab, 32);
	tb_init(&b, mem, sizeof(mem));
	policy_pcr_marshal(&b, &p.br[0].sel, d, 32);
	CHECK(!tb_err(&b) && b.len == 2 + 32 + 4 + 2 + 1 + 3);
	CHECK(mem[0] == 0 && mem[1] == 32 && mem[34] == 0 && mem[37] == 1);
	CHECK(mem[38] == 0 && mem[39] == 0x0b && mem[40] == 3 &&
	      mem[41] == 0x80 && mem[42] == 0 && mem[43] == 0);

	return unit_done("policy");
}
