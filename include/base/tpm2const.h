/* TPM 2.0 constants, named as in TCG TPM 2.0 Library Part 2. */
#ifndef TPMBOX_BASE_TPM2CONST_H
#define TPMBOX_BASE_TPM2CONST_H

#define TPM2_ST_NO_SESSIONS	0x8001
#define TPM2_ST_SESSIONS	0x8002
#define TPM2_ST_ATTEST_QUOTE	0x8018
#define TPM2_ST_HASHCHECK	0x8024
#define TPM2_GENERATED_VALUE	0xff544347u
#define TPM12_TAG_RSP_COMMAND	0x00c4

/* Command codes */
#define TPM2_CC_NV_UndefineSpaceSpecial	0x011f
#define TPM2_CC_EvictControl		0x0120
#define TPM2_CC_HierarchyControl	0x0121
#define TPM2_CC_NV_UndefineSpace	0x0122
#define TPM2_CC_Clear			0x0126
#define TPM2_CC_ClearControl		0x0127
#define TPM2_CC_HierarchyChangeAuth	0x0129
#define TPM2_CC_NV_DefineSpace		0x012a
#define TPM2_CC_CreatePrimary		0x0131
#define TPM2_CC_NV_Increment		0x0134
#define TPM2_CC_NV_SetBits		0x0135
#define TPM2_CC_NV_Extend		0x0136
#define TPM2_CC_NV_Write		0x0137
#define TPM2_CC_NV_WriteLock		0x0138
#define TPM2_CC_DictionaryAttackLockReset 0x0139
#define TPM2_CC_DictionaryAttackParameters 0x013a
#define TPM2_CC_PCR_Extend		0x0182
#define TPM2_CC_PCR_Allocate		0x012b
#define TPM2_CC_SelfTest		0x0143
#define TPM2_CC_Startup			0x0144
#define TPM2_CC_Shutdown		0x0145
#define TPM2_CC_NV_Read			0x014e
#define TPM2_CC_NV_ReadLock		0x014f
#define TPM2_CC_ObjectChangeAuth	0x0150
#define TPM2_CC_PolicySecret		0x0151
#define TPM2_CC_ActivateCredential	0x0147
#define TPM2_CC_Create			0x0153
#define TPM2_CC_Import			0x0156
#define TPM2_CC_Load			0x0157
#define TPM2_CC_Quote			0x0158
#define TPM2_CC_Sign			0x015d
#define TPM2_CC_RSA_Decrypt		0x0159
#define TPM2_CC_Unseal			0x015e
#define TPM2_CC_HMAC			0x0155
#define TPM2_CC_ContextLoad		0x0161
#define TPM2_CC_ContextSave		0x0162
#define TPM2_CC_FlushContext		0x0165
#define TPM2_CC_LoadExternal		0x0167
#define TPM2_CC_NV_ReadPublic		0x0169
#define TPM2_CC_PolicyAuthorize		0x016a
#define TPM2_CC_ReadPublic		0x0173
#define TPM2_CC_StartAuthSession	0x0176
#define TPM2_CC_VerifySignature		0x0177
#define TPM2_CC_GetCapability		0x017a
#define TPM2_CC_GetRandom		0x017b
#define TPM2_CC_Hash			0x017d
#define TPM2_CC_PCR_Read		0x017e
#define TPM2_CC_PolicyPCR		0x017f
#define TPM2_CC_PolicyRestart		0x0180
#define TPM2_CC_PolicyAuthValue		0x016b
#define TPM2_CC_PolicyPassword		0x018c
#define TPM2_CC_PolicyGetDigest		0x0189
#define TPM2_CC_PolicyCommandCode	0x016c
#define TPM2_CC_PolicyOR		0x0171
#define TPM2_CC_CreateLoaded		0x0191

/* Algorithms */
#define TPM2_ALG_ERROR		0x0000
#define TPM2_ALG_RSA		0x0001
#define TPM2_ALG_SHA1		0x0004
#define TPM2_ALG_HMAC		0x0005
#define TPM2_ALG_AES		0x0006
#define TPM2_ALG_KEYEDHASH	0x0008
#define TPM2_ALG_XOR		0x000a
#define TPM2_ALG_SHA256		0x000b
#define TPM2_ALG_SHA384		0x000c
#define TPM2_ALG_SHA512		0x000d
#define TPM2_ALG_NULL		0x0010
#define TPM2_ALG_SM3_256	0x0012
#define TPM2_ALG_RSASSA		0x0014
#define TPM2_ALG_RSAPSS		0x0016
#define TPM2_ALG_OAEP		0x0017
#define TPM2_ALG_ECDSA		0x0018
#define TPM2_ALG_ECDH		0x0019
#define TPM2_ALG_ECC		0x0023
#define TPM2_ALG_SYMCIPHER	0x0025
#define TPM2_ALG_CFB		0x0043
#define TPM2_ECC_NIST_P256	0x0003
#define TPM2_ECC_NIST_P384	0x0004
#define TPM2_ECC_NIST_P521	0x0005

/* Handles */
#define TPM2_RH_OWNER		0x40000001u
#define TPM2_RH_NULL		0x40000007u
#define TPM2_RS_PW		0x40000009u
#define TPM2_RH_LOCKOUT		0x4000000au
#define TPM2_RH_ENDORSEMENT	0x4000000bu
#define TPM2_RH_PLATFORM	0x4000000cu
#define TPM2_HT_PCR		0x00
#define TPM2_HT_NV_INDEX	0x01
#define TPM2_HT_HMAC_SESSION	0x02
#define TPM2_HT_POLICY_SESSION	0x03
#define TPM2_HT_TRANSIENT	0x80
#define TPM2_HT_PERSISTENT	0x81

/* Capabilities */
#define TPM2_CAP_ALGS		0x00000000u
#define TPM2_CAP_HANDLES	0x00000001u
#define TPM2_CAP_COMMANDS	0x00000002u
#define TPM2_CAP_PCRS		0x00000005u
#define TPM2_CAP_TPM_PROPERTIES	0x00000006u
#define TPM2_PT_FIXED		0x100u
#define TPM2_PT_FAMILY_INDICATOR	0x100u
#define TPM2_PT_LEVEL		0x101u
#define TPM2_PT_REVISION	0x102u
#define TPM2_PT_DAY_OF_YEAR	0x103u
#define TPM2_PT_YEAR		0x104u
#define TPM2_PT_MANUFACTURER	0x105u
#define TPM2_PT_VENDOR_STRING_1	0x106u
#define TPM2_PT_VENDOR_STRING_4	0x109u
#define TPM2_PT_VENDOR_TPM_TYPE	0x10au
#define TPM2_PT_FIRMWARE_VERSION_1 0x10bu
#define TPM2_PT_FIRMWARE_VERSION_2 0x10cu
#define TPM2_PT_INPUT_BUFFER	0x10du
#define TPM2_PT_PCR_COUNT	0x112u
#define TPM2_PT_NV_INDEX_MAX	0x117u
#define TPM2_PT_NV_BUFFER_MAX	0x12cu
#define TPM2_PT_MAX_DIGEST	0x120u
#define TPM2_PT_VAR		0x200u
#define TPM2_PT_PERMANENT	0x200u
#define TPM2_PT_STARTUP_CLEAR	0x201u
#define TPM2_PT_HR_NV_INDEX	0x202u
#define TPM2_PT_HR_PERSISTENT	0x20cu
#define TPM2_PT_LOCKOUT_COUNTER	0x20eu
#define TPM2_PT_MAX_AUTH_FAIL	0x20fu
#define TPM2_PT_LOCKOUT_INTERVAL 0x210u
#define TPM2_PT_LOCKOUT_RECOVERY 0x211u

/* TPMA_PERMANENT bits */
#define TPMA_PERMANENT_OWNERAUTHSET	(1u << 0)
#define TPMA_PERMANENT_ENDORSEMENTAUTHSET (1u << 1)
#define TPMA_PERMANENT_LOCKOUTAUTHSET	(1u << 2)
#define TPMA_PERMANENT_DISABLECLEAR	(1u << 8)
#define TPMA_PERMANENT_INLOCKOUT	(1u << 9)
/* TPMA_STARTUP_CLEAR bits (TPM_PT_STARTUP_CLEAR) */
#define TPMA_STARTUP_CLEAR_PHENABLE	(1u << 0)
#define TPMA_STARTUP_CLEAR_ORDERLY	(1u << 31)
/* TPM_SU: TPM2_Shutdown's and TPM2_Startup's type */
#define TPM2_SU_CLEAR		0x0000u
#define TPM2_SU_STATE		0x0001u

/* Response codes used by the command layer */
#define TPM2_RC_SUCCESS		0x000u
#define TPM2_RC_INITIALIZE	0x100u
#define TPM2_RC_FAILURE		0x101u
#define TPM2_RC_VALUE		0x084u	/* format 1 */
#define TPM2_RC_TESTING		0x90au
#define TPM2_RC_OBJECT_MEMORY	0x902u
#define TPM2_RC_SESSION_MEMORY	0x903u
#define TPM2_RC_MEMORY		0x904u
#define TPM2_RC_YIELDED		0x908u
#define TPM2_RC_RETRY		0x922u
#define TPM2_RC_LOCKOUT		0x921u
#define TPM2_RC_NV_RATE		0x920u
#define TPM2_RC_AUTH_UNAVAILABLE 0x12fu
#define TPM2_RC_POLICY_FAIL	0x09du	/* format 1 */
#define TPM2_RC_POLICY_CC	0x0a4u	/* format 1 */

#define TPM2_MAX_PCRS		24
#define TPM2_MAX_DIGEST		64
#define TPM2_MAX_BANKS		8

#endif
