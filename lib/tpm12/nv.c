/* TPM 1.2 NV storage (tpm12/nv.h). */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "tpm12/cap.h"
#include "tpm12/cmd.h"
#include "tpm12/nv.h"

#define TAG_NV_DATA_PUBLIC	0x0018
#define TAG_NV_ATTRIBUTES	0x0017

int tpm12_nv_public_parse(const uint8_t *p, size_t n,
			  struct tpm12_nv_public *out)
{
	struct tb r;

	memset(out, 0, sizeof(*out));
	tb_init_read(&r, p, n);
	if (tb_get_u16(&r) != TAG_NV_DATA_PUBLIC)
		return -1;
	out->index = tb_get_u32(&r);
	tpm12_get_pcr_info(&r, TPM12_PCR_INFO_SHORT, &out->read);
	tpm12_get_pcr_info(&r, TPM12_PCR_INFO_SHORT, &out->write);
	if (tb_get_u16(&r) != TAG_NV_ATTRIBUTES)
		return -1;
	out->perm = tb_get_u32(&r);
	out->read_stclear = tb_get_u8(&r);
	out->write_stclear = tb_get_u8(&r);
	out->write_define = tb_get_u8(&r);
	out->size = tb_get_u32(&r);
	if (tb_err(&r) || tb_left(&r) || out->read_stclear > 1 ||
	    out->write_stclear > 1 || out->write_define > 1)
		return -1;
	return 0;
}

int tpm12_nv_public(struct tpm *t, uint32_t index,
		    struct tpm12_nv_public *out)
{
	const uint8_t *p;
	size_t n;
	int rc;

	if ((rc = tpm12_getcap(t, TPM12_CAP_NV_INDEX, index, &p, &n)))
		return rc;
	if (tpm12_nv_public_parse(p, n, out) || out->index != index)
		return err_set(t->e, EX_IO, "TPM_GetCapability(NV_INDEX, "
			       "0x%08x): malformed TPM_NV_DATA_PUBLIC", index);
	return 0;
}

void tpm12_nv_perm_format(uint32_t perm, char *out, size_t cap)
{
	/* Part 2, 19.2: the bits, named as tpm-tools names them. */
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ 0x80000000u, "READ_STCLEAR" }, { 0x00040000u, "AUTHREAD" },
		{ 0x00020000u, "OWNERREAD" }, { 0x00010000u, "PPREAD" },
		{ 0x00008000u, "GLOBALLOCK" }, { 0x00004000u, "WRITE_STCLEAR" },
		{ 0x00002000u, "WRITEDEFINE" }, { 0x00001000u, "WRITEALL" },
		{ 0x00000004u, "AUTHWRITE" }, { 0x00000002u, "OWNERWRITE" },
		{ 0x00000001u, "PPWRITE" },
	};
	size_t i, len = 0;
	uint32_t rest = perm;

	snprintf(out, cap, "0");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(perm & names[i].bit))
			continue;
		rest &= ~names[i].bit;
		snprintf(out + len, cap - len, "%s%s", len ? "|" : "",
			 names[i].name);
		len = strlen(out);
	}
	if (rest)
		snprintf(out + len, cap - len, "%s0x%08x", len ? "|" : "",
			 rest);
}
