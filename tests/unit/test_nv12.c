/* TPM 1.2 NV: TPM_NV_DATA_PUBLIC as NV_DefineSpace sends it, and the
 * permission words.  The expected bytes are assembled by hand from the
 * TPM 1.2 Main Specification Part 2, 19.3 (tag 0x0018, index, two
 * TPM_PCR_INFO_SHORT with a 3-byte empty selection and every locality
 * (0x1f, what TrouSerS sends: tpm_nvinfo shows the same for both in
 * tests/tpm12-nv.bats), TPM_NV_ATTRIBUTES tag 0x0017, three flags,
 * dataSize). */
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hex.h"
#include "tpm12/nv.h"
#include "unit.h"

static const char want_hex[] =
	"0018" "00011101"
	"0003" "000000" "1f" "0000000000000000000000000000000000000000"
	"0003" "000000" "1f" "0000000000000000000000000000000000000000"
	"0017" "00020002" "00" "00" "00" "00000020";

static void marshal(void)
{
	uint8_t buf[256], want[128];
	struct tpm12_nv_public p, q;
	size_t n = strlen(want_hex) / 2;
	struct tb b;

	hex_decode(want_hex, want, n);
	tpm12_nv_public_init(&p, 0x00011101u, TPM12_NV_PER_OWNERREAD |
			     TPM12_NV_PER_OWNERWRITE, 32);
	tb_init(&b, buf, sizeof(buf));
	tpm12_put_nv_public(&b, &p);
	CHECK(!tb_err(&b));
	CHECK(b.len == n);
	CHECK_MEM(buf, want, n);
	/* the parser nvlist uses reads it back, field for field */
	CHECK(tpm12_nv_public_parse(buf, b.len, &q) == 0);
	CHECK(q.index == 0x00011101u && q.size == 32 &&
	      q.perm == 0x00020002u && q.read.loc_release == 0x1f &&
	      q.write.release.size == 3 && q.write.release.mask == 0 &&
	      !q.read_stclear && !q.write_stclear && !q.write_define);
	/* flags and a 4-byte write selection round-trip */
	q.write_define = 1;
	q.write.release.size = 4;
	q.write.release.mask = 0x00010080u;
	tb_init(&b, buf, sizeof(buf));
	tpm12_put_nv_public(&b, &q);
	CHECK(!tb_err(&b) && b.len == n + 1);
	CHECK(tpm12_nv_public_parse(buf, b.len, &p) == 0);
	CHECK(p.write_define == 1 && p.write.release.mask == 0x00010080u);
	/* a size no 1.2 holds (damaged or forged) is refused; the largest
	 * taken is TPM12_NV_SIZE_MAX */
	q.size = 0xffffffffu;
	tb_init(&b, buf, sizeof(buf));
	tpm12_put_nv_public(&b, &q);
	CHECK(tpm12_nv_public_parse(buf, b.len, &p) == -1);
	q.size = TPM12_NV_SIZE_MAX + 1;
	tb_init(&b, buf, sizeof(buf));
	tpm12_put_nv_public(&b, &q);
	CHECK(tpm12_nv_public_parse(buf, b.len, &p) == -1);
	q.size = TPM12_NV_SIZE_MAX;
	tb_init(&b, buf, sizeof(buf));
	tpm12_put_nv_public(&b, &q);
	CHECK(tpm12_nv_public_parse(buf, b.len, &p) == 0 &&
	      p.size == TPM12_NV_SIZE_MAX);
	q.size = 32;
	/* a short buffer is an error, never a truncation */
	tb_init(&b, buf, n - 1);
	tpm12_put_nv_public(&b, &q);
	CHECK(tb_err(&b));
	/* the wrong kind of PCR info is refused */
	q.read.kind = TPM12_PCR_INFO_LONG;
	tb_init(&b, buf, sizeof(buf));
	tpm12_put_nv_public(&b, &q);
	CHECK(tb_err(&b));
}

static void words(void)
{
	struct tberr e;
	uint32_t v;
	char out[256];

	memset(&e, 0, sizeof(e));
	CHECK(tpm12_nv_perm_parse("OWNERREAD|OWNERWRITE", &v, &e) == 0 &&
	      v == 0x00020002u);
	CHECK(tpm12_nv_perm_parse(" authread | authwrite ", &v, &e) == 0 &&
	      v == 0x00040004u);
	CHECK(tpm12_nv_perm_parse("PPREAD|PPWRITE|WRITEDEFINE|WRITE_STCLEAR|"
				  "READ_STCLEAR|GLOBALLOCK|WRITEALL", &v,
				  &e) == 0 && v == 0x8001f001u);
	CHECK(tpm12_nv_perm_parse("0x2000|OWNERWRITE", &v, &e) == 0 &&
	      v == 0x00002002u);
	CHECK(tpm12_nv_perm_parse("OWNERREAD|", &v, &e) == EX_USAGE);
	CHECK(tpm12_nv_perm_parse("OWNERREAD|ownerreadx", &v, &e) ==
	      EX_USAGE && strstr(e.msg, "'ownerreadx'"));
	CHECK(tpm12_nv_perm_parse("0x100000000", &v, &e) == EX_USAGE);
	/* the names the parser takes are the names nvlist prints */
	tpm12_nv_perm_format(0x8007f007u, out, sizeof(out));
	CHECK(tpm12_nv_perm_parse(out, &v, &e) == 0 && v == 0x8007f007u);
	CHECK(tpm12_nv_index_parse("0x00011101", &v, &e) == 0 &&
	      v == 0x11101);
	CHECK(tpm12_nv_index_parse("4352", &v, &e) == 0 && v == 0x1100);
	CHECK(tpm12_nv_index_parse("0x100000000", &v, &e) == EX_USAGE);
	CHECK(tpm12_nv_index_parse("nv1", &v, &e) == EX_USAGE);
}

/* The AUTH values and the refusals every NV applet words the same way
 * (tpm12_nv_auth_value, tpm12_nv_refused). */
static void auth_words(void)
{
	/* SHA-1("abc"), FIPS 180 */
	static const char abc[] = "a9993e364706816aba3e25717850c26c9cd0d89d";
	uint8_t v[20], want[20], zero[20] = {0};
	struct tberr e;

	memset(&e, 0, sizeof(e));
	CHECK(tpm12_nv_auth_value(NULL, v, &e) == 0 && !memcmp(v, zero, 20));
	hex_decode(abc, want, sizeof(want));
	CHECK(tpm12_nv_auth_value("str:abc", v, &e) == 0 &&
	      !memcmp(v, want, 20));
	CHECK(tpm12_nv_auth_value("hex:zz", v, &e) == EX_USAGE);

	/* a wrong value: whose, given or the well-known secret tried */
	e.rc = 0x01;	/* TPM_AUTHFAIL */
	CHECK(tpm12_nv_refused(&e, EX_AUTH, TPM12_NV_OP_READ,
			       TPM12_NV_BY_INDEX, 1, 0x11101) == EX_AUTH);
	CHECK(!strcmp(e.msg, "the index's value is wrong (the failure counts "
		      "toward the lockout)") && strstr(e.hint, "--auth "));
	CHECK(tpm12_nv_refused(&e, EX_AUTH, TPM12_NV_OP_DEFINE,
			       TPM12_NV_BY_OWNER, 0, 0x11101) == EX_AUTH);
	CHECK(strstr(e.msg, "the owner value is wrong: the well-known secret "
		     "was tried") && strstr(e.hint, "--owner-auth "));
	/* TPM_NO_NV_PERMISSION is exit 4 too, and no wrong value */
	strcpy(e.msg, "kept");
	e.rc = 0x38;
	CHECK(tpm12_nv_refused(&e, EX_AUTH, TPM12_NV_OP_WRITE,
			       TPM12_NV_BY_OWNER, 1, 0x11101) == EX_AUTH &&
	      !strcmp(e.msg, "kept"));
	/* physical presence: on a read or a write only */
	e.rc = 0x2d;
	CHECK(tpm12_nv_refused(&e, EX_FAIL, TPM12_NV_OP_WRITE,
			       TPM12_NV_BY_NONE, 0, 0x11009) == EX_FAIL &&
	      e.code == EX_AUTH && !strcmp(e.msg, "NV index 0x00011009 has "
	      "PPWRITE: writing it needs physical presence, which is not "
	      "asserted"));
	strcpy(e.msg, "kept");
	CHECK(tpm12_nv_refused(&e, EX_FAIL, TPM12_NV_OP_DEFINE,
			       TPM12_NV_BY_OWNER, 0, 0x11009) == EX_FAIL &&
	      !strcmp(e.msg, "kept"));
	CHECK(tpm12_nv_refused(&e, 0, TPM12_NV_OP_READ, TPM12_NV_BY_NONE, 0,
			       0x11009) == 0 && !strcmp(e.msg, "kept"));
}

int main(void)
{
	marshal();
	words();
	auth_words();
	return unit_done("nv12");
}
