#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "tpm2/rc.h"

struct rcent {
	uint16_t code;
	const char *name;
	const char *text;
};

/* Format-zero codes, TPM_RC_VER1 (0x100) + n. */
static const struct rcent ver1[] = {
	{0x000, "INITIALIZE", "the TPM was not started (TPM2_Startup was "
	 "not sent since power-on)"},
	{0x001, "FAILURE", "the TPM is in failure mode"},
	{0x003, "SEQUENCE", "improper use of a sequence handle"},
	{0x00b, "PRIVATE", "not currently used"},
	{0x019, "HMAC", "not currently used"},
	{0x020, "DISABLED", "the command is disabled"},
	{0x021, "EXCLUSIVE", "the command failed because audit sequence is "
	 "required exclusivity"},
	{0x024, "AUTH_TYPE", "the authorization handle is not correct for "
	 "the command"},
	{0x025, "AUTH_MISSING", "the command requires an authorization "
	 "session for a handle and it is not present"},
	{0x026, "POLICY", "the policy does not allow this use"},
	{0x027, "PCR", "the PCR check failed"},
	{0x028, "PCR_CHANGED", "the PCR values changed since the policy "
	 "session checked them"},
	{0x02d, "UPGRADE", "the TPM is in field-upgrade mode"},
	{0x02e, "TOO_MANY_CONTEXTS", "the context ID counter is at maximum"},
	{0x02f, "AUTH_UNAVAILABLE", "the authorization value or policy is "
	 "not available for this object"},
	{0x030, "REBOOT", "the TPM must be reset (a _TPM_Init and Startup "
	 "are needed)"},
	{0x031, "UNBALANCED", "the protection algorithms (hash and "
	 "symmetric) are not reasonably balanced"},
	{0x042, "COMMAND_SIZE", "the command size value is inconsistent with "
	 "the contents of the command buffer"},
	{0x043, "COMMAND_CODE", "the TPM does not implement this command"},
	{0x044, "AUTHSIZE", "the authorization size is out of range or "
	 "inconsistent"},
	{0x045, "AUTH_CONTEXT", "this command may not take an authorization "
	 "session"},
	{0x046, "NV_RANGE", "the NV offset plus size is out of range"},
	{0x047, "NV_SIZE", "the requested NV allocation size is larger than "
	 "allowed"},
	{0x048, "NV_LOCKED", "the NV index is locked for this operation"},
	{0x049, "NV_AUTHORIZATION", "this NV access is not allowed with the "
	 "given authorization (owner or index auth)"},
	{0x04a, "NV_UNINITIALIZED", "the NV index has not been written yet"},
	{0x04b, "NV_SPACE", "there is not enough NV space on the TPM"},
	{0x04c, "NV_DEFINED", "the NV index is already defined"},
	{0x050, "BAD_CONTEXT", "the context in the request is not valid"},
	{0x051, "CPHASH", "cpHash is already set or is not correct for the "
	 "use"},
	{0x052, "PARENT", "the handle is not a valid parent"},
	{0x053, "NEEDS_TEST", "some function needs testing"},
	{0x054, "NO_RESULT", "the TPM could not produce a result"},
	{0x055, "SENSITIVE", "the sensitive area did not unmarshal "
	 "correctly after decryption (wrong key or tampered blob)"},
	{0, NULL, NULL}
};

/* Format-one codes, TPM_RC_FMT1 (0x080) + n. */
static const struct rcent fmt1[] = {
	{0x001, "ASYMMETRIC", "the asymmetric algorithm is not supported or "
	 "not correct"},
	{0x002, "ATTRIBUTES", "inconsistent attributes"},
	{0x003, "HASH", "the hash algorithm is not supported or not "
	 "appropriate"},
	{0x004, "VALUE", "a value is out of range or not correct for the "
	 "context"},
	{0x005, "HIERARCHY", "the hierarchy is not enabled or not correct "
	 "for the use"},
	{0x007, "KEY_SIZE", "the key size is not supported"},
	{0x008, "MGF", "the mask generation function is not supported"},
	{0x009, "MODE", "the mode of operation is not supported"},
	{0x00a, "TYPE", "the type of the value is not appropriate"},
	{0x00b, "HANDLE", "the handle does not refer to an object that "
	 "exists"},
	{0x00c, "KDF", "the KDF is not supported"},
	{0x00d, "RANGE", "a value was out of the allowed range"},
	{0x00e, "AUTH_FAIL", "the authorization value is wrong (this counts "
	 "toward dictionary-attack lockout)"},
	{0x00f, "NONCE", "the nonce size is invalid"},
	{0x010, "PP", "physical presence is required"},
	{0x012, "SCHEME", "the scheme is not supported"},
	{0x015, "SIZE", "a structure is the wrong size"},
	{0x016, "SYMMETRIC", "the symmetric algorithm is not supported"},
	{0x017, "TAG", "incorrect structure tag"},
	{0x018, "SELECTOR", "the union selector is incorrect"},
	{0x01a, "INSUFFICIENT", "the TPM could not unmarshal a value "
	 "(too few bytes)"},
	{0x01b, "SIGNATURE", "the signature is not valid"},
	{0x01c, "KEY", "the key fields are not compatible with the "
	 "selected use"},
	{0x01d, "POLICY_FAIL", "the policy check failed (for a PCR policy: "
	 "the PCR values differ from those sealed to)"},
	{0x01f, "INTEGRITY", "the integrity check failed (the blob was "
	 "altered or belongs to another parent or TPM)"},
	{0x020, "TICKET", "the ticket is invalid"},
	{0x021, "RESERVED_BITS", "reserved bits not set to zero as "
	 "required"},
	{0x022, "BAD_AUTH", "the authorization failed (wrong value, not "
	 "counted toward lockout)"},
	{0x023, "EXPIRED", "the policy has expired"},
	{0x024, "POLICY_CC", "the command code in the policy is not the "
	 "command being executed"},
	{0x025, "BINDING", "the public and sensitive portions of an object "
	 "are not cryptographically bound"},
	{0x026, "CURVE", "the curve is not supported"},
	{0x027, "ECC_POINT", "the point is not on the required curve"},
	{0, NULL, NULL}
};

/* Warnings, TPM_RC_WARN (0x900) + n. */
static const struct rcent warn[] = {
	{0x001, "CONTEXT_GAP", "the gap for context IDs is too large"},
	{0x002, "OBJECT_MEMORY", "out of memory for object contexts "
	 "(flush transient objects)"},
	{0x003, "SESSION_MEMORY", "out of memory for session contexts "
	 "(flush sessions)"},
	{0x004, "MEMORY", "out of shared object/session memory"},
	{0x005, "SESSION_HANDLES", "out of session handles"},
	{0x006, "OBJECT_HANDLES", "out of object handles"},
	{0x007, "LOCALITY", "bad locality"},
	{0x008, "YIELDED", "the TPM suspended the operation; retry"},
	{0x009, "CANCELED", "the command was canceled"},
	{0x00a, "TESTING", "the TPM is running self tests"},
	{0x020, "NV_RATE", "the TPM is rate-limiting NV writes"},
	{0x021, "LOCKOUT", "the TPM is in dictionary-attack lockout"},
	{0x022, "RETRY", "the TPM was not able to start the command; retry"},
	{0x023, "NV_UNAVAILABLE", "the NV memory is not available"},
	{0, NULL, NULL}
};

static const struct rcent *find(const struct rcent *t, uint32_t code)
{
	for (; t->name; t++)
		if (t->code == code)
			return t;
	return NULL;
}

uint32_t rc_base(uint32_t rc)
{
	if (rc & 0x080)
		return rc & 0x0bf;	/* FMT1 + error number */
	return rc & 0xfff;
}

static const struct rcent *lookup(uint32_t rc)
{
	if (rc & 0x080)
		return find(fmt1, rc & 0x3f);
	if ((rc & 0x900) == 0x900 && !(rc & 0x400))
		return find(warn, rc & 0x7f);
	if ((rc & 0x100) && !(rc & 0x400))
		return find(ver1, rc & 0x7f);
	return NULL;
}

const char *rc_name(uint32_t rc, char *buf, size_t n)
{
	const struct rcent *t;

	if ((rc & 0x900) == 0x900 && !(rc & 0x080) && !(rc & 0x400)) {
		uint32_t w = rc & 0x7f;

		if (w >= 0x10 && w <= 0x16) {
			snprintf(buf, n, "TPM_RC_REFERENCE_H%u", w - 0x10);
			return buf;
		}
		if (w >= 0x18 && w <= 0x1e) {
			snprintf(buf, n, "TPM_RC_REFERENCE_S%u", w - 0x18);
			return buf;
		}
	}
	t = lookup(rc);
	if (t)
		snprintf(buf, n, "TPM_RC_%s", t->name);
	else if (!(rc & 0x180))
		snprintf(buf, n, "TPM 1.2 or vendor code 0x%x", rc);
	else
		snprintf(buf, n, "TPM_RC_0x%03x", rc);
	return buf;
}

const char *rc_text(uint32_t rc)
{
	const struct rcent *t = lookup(rc);

	return t ? t->text : "";
}

void rc_describe(uint32_t rc, char *buf, size_t n)
{
	char name[64], where[32] = "";
	const char *text = rc_text(rc);

	rc_name(rc, name, sizeof(name));
	if (rc & 0x080) {
		unsigned num = (rc >> 8) & 0xf;

		if (rc & 0x040)
			snprintf(where, sizeof(where), " (parameter %u)", num);
		else if (num & 0x8)
			snprintf(where, sizeof(where), " (session %u)",
				 num & 0x7);
		else if (num)
			snprintf(where, sizeof(where), " (handle %u)", num);
	}
	snprintf(buf, n, "%s%s%s%s", name, where, *text ? ": " : "", text);
}

int rc_exit(uint32_t rc)
{
	uint32_t b = rc_base(rc);

	switch (b) {
	case 0x08e:	/* AUTH_FAIL */
	case 0x0a2:	/* BAD_AUTH */
	case 0x09d:	/* POLICY_FAIL */
	case 0x126:	/* POLICY */
	case 0x127:	/* PCR */
	case 0x128:	/* PCR_CHANGED */
	case 0x149:	/* NV_AUTHORIZATION */
		return EX_AUTH;
	case 0x921:	/* LOCKOUT */
		return EX_LOCKOUT;
	case 0x08b:	/* HANDLE */
		return EX_NOENT;
	}
	return EX_FAIL;
}
