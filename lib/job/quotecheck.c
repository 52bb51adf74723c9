/* checkquote's job (job/quotecheck.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "crypto/hash.h"
#include "fmt/quote.h"
#include "fmt/quote12.h"
#include "job/attest.h"
#include "job/quotecheck.h"
#include "log/eventlog.h"
#include "log/imalog.h"
#include "tpm2/srk.h"

#define IN_MAX (1u << 20)
/* One IMA note per bank: "checkquote: IMA log, sha512: ..." */
#define NOTE_MAX 256

static int failed(const struct tberr *e)
{
	return e->code ? e->code : EX_FAIL;
}

static int slurp(const char *path, uint8_t **p, size_t *n, struct tberr *e)
{
	if (file_read(path, IN_MAX, p, n, e)) {
		err_prefix(e, "%s", path);
		return failed(e);
	}
	return 0;
}

int quotecheck_is12(const char *path)
{
	struct tberr e;
	uint8_t *p;
	size_t n;
	int r;

	memset(&e, 0, sizeof(e));
	if (file_read(path, IN_MAX, &p, &n, &e))
		return 0;
	r = quote12_file_is(p, n);
	free(p);
	return r;
}

int quotecheck12(const struct quotecheck *o, struct pcr_vals *v,
		 struct tberr *e)
{
	struct quote12 *q = malloc(sizeof(*q));
	struct tpm12_pubkey *k = malloc(sizeof(*k));
	struct quote12_want w = { 0 };
	uint8_t raw[64], nonce[20], *key = NULL, *a = NULL, *b = NULL;
	size_t keylen, al, bl, nn;
	int rc = 0, aik;

	if (!q || !k) {
		rc = err_set(e, EX_USAGE, "out of memory");
		goto out;
	}
	if (o->nonce_hex) {
		if ((rc = quote_nonce_parse(o->nonce_hex, 1, raw, &nn, e)))
			goto out;
		quote12_nonce(raw, nn, nonce);
		w.nonce = nonce;
	} else if (!o->quote) {
		rc = err_set(e, EX_USAGE, "tpm_getquote's signature covers its "
			     "nonce: give it with -n (the hex of its nonce "
			     "file)");
		goto out;
	}
	if (o->sel && (rc = quote12_sel_parse(o->sel, &w.mask, e)))
		goto out;
	w.has_mask = o->sel != NULL;
	if ((rc = slurp(o->key, &key, &keylen, e)))
		goto out;
	if (quote12_key_load(key, keylen, k, &aik, e)) {
		err_prefix(e, "%s", o->key);
		rc = failed(e);
		goto out;
	}
	w.key = k;
	if (o->quote) {
		if ((rc = slurp(o->quote, &a, &al, e)))
			goto out;
		if (quote12_file_read(a, al, q, e)) {
			err_prefix(e, "%s", o->quote);
			rc = failed(e);
			goto out;
		}
	} else {
		if ((rc = slurp(o->sig, &a, &al, e)) ||
		    (rc = slurp(o->pcrs, &b, &bl, e)))
			goto out;
		if (quote12_from_getquote(a, al, (const char *)b, bl, nonce, q,
					  e)) {
			rc = failed(e);
			goto out;
		}
	}
	if (quote12_check(q, &w, e)) {
		rc = failed(e);
		goto out;
	}
	quote12_pcr_vals(q, v);
out:
	free(q);
	free(k);
	free(key);
	free(a);
	free(b);
	return rc;
}

/* A log that cannot be replayed fails its check (exit 1); a missing or
 * unreadable one keeps its own code (6, 3). */
static int log_failed(struct tberr *e, const char *check)
{
	if (e->code == EX_FAIL && !strstr(e->msg, "check failed"))
		err_prefix(e, "%s check failed", check);
	return failed(e);
}

/* The IMA list against the quoted values: the quote was taken before the
 * list was read, and the kernel appends before it extends, so a prefix of
 * the list must replay to them, in each quoted bank, with the bank's own
 * template digests or SHA-1 ones zero-padded (see log/imalog.h).  Entries
 * beyond that prefix are named in *notes: the quote does not cover them. */
static int check_ima(const struct quote *q, const char *imaf, char **notes,
		     struct tberr *e)
{
	struct imalog log;
	uint8_t *buf;
	size_t len, cap = (size_t)q->sel.n * NOTE_MAX + 1, off = 0;
	int i, same = 0, rc = 0;

	if (file_read(imaf, IMA_MAX_FILE, &buf, &len, e)) {
		err_prefix(e, "%s", imaf);
		return log_failed(e, "IMA log");
	}
	if (imalog_parse(buf, len, &log, e)) {
		free(buf);
		err_prefix(e, "%s", imaf);
		return log_failed(e, "IMA log");
	}
	if (!(*notes = malloc(cap))) {
		rc = err_set(e, EX_USAGE, "out of memory");
		goto out;
	}
	**notes = '\0';
	for (i = 0; i < q->sel.n && !rc; i++) {
		uint16_t bank = q->sel.b[i].alg;
		struct ima_match m;

		if (!imalog_bank_ok(bank) || !hash_supported(bank))
			continue;
		if (imalog_match(&log, bank, &q->vals, &m, e)) {
			rc = log_failed(e, "IMA log");
			break;
		}
		if (!m.compared)
			continue;
		if (!m.matched) {
			rc = err_set(e, EX_FAIL, "IMA log check failed: no "
				     "prefix of the list replays to the quoted "
				     "%s values (with %s or zero-padded SHA-1 "
				     "template digests)", alg_name(bank),
				     alg_name(bank));
			break;
		}
		same++;
		if (m.how == IMA_DIGEST_SHA1_PADDED || m.upto < log.n)
			off += (size_t)snprintf(*notes + off, cap - off,
				"checkquote: IMA log, %s: %s%u of %u entries "
				"match the quote%s\n", alg_name(bank),
				m.how == IMA_DIGEST_SHA1_PADDED ?
				"SHA-1 template digests zero-padded; " : "",
				m.upto, log.n, m.upto < log.n ?
				" (the rest, beyond it, came after the quote "
				"and are not covered)" : "");
	}
	if (!rc && !same)
		rc = err_set(e, EX_FAIL, "IMA log check failed: the log "
			     "extends none of the quoted PCRs");
out:
	imalog_free(&log);
	free(buf);
	return rc;
}

/* The logs replay to the quoted values (after the quote itself passed). */
static int check_logs(const struct quote *q, const struct quotecheck *o,
		      char **notes, struct tberr *e)
{
	struct pcr_vals *r;

	if (o->eventlog) {
		if (!(r = malloc(sizeof(*r))))
			return err_set(e, EX_USAGE, "out of memory");
		if (eventlog_replay_file(o->eventlog, r, e) ||
		    quote_match_replay(&q->vals, r, "event log", e)) {
			free(r);
			return log_failed(e, "event log");
		}
		free(r);
	}
	return o->imalog ? check_ima(q, o->imalog, notes, e) : 0;
}

/* The quote from QUOTE or from tpm2-tools' three pieces. */
static int read_quote(const struct quotecheck *o, struct quote *q,
		      struct tberr *e)
{
	uint8_t *m = NULL, *s = NULL, *p = NULL;
	size_t ml, sl, pl;
	int rc;

	if (o->quote) {
		if ((rc = slurp(o->quote, &m, &ml, e)))
			goto out;
		if (quote_file_read(m, ml, q, e)) {
			err_prefix(e, "%s", o->quote);
			rc = failed(e);
		}
	} else {
		if ((rc = slurp(o->msg, &m, &ml, e)) ||
		    (rc = slurp(o->sig, &s, &sl, e)) ||
		    (rc = slurp(o->pcrs, &p, &pl, e)))
			goto out;
		if (quote_from_tools(m, ml, s, sl, p, pl, q, e))
			rc = failed(e);
	}
out:
	free(m);
	free(s);
	free(p);
	return rc;
}

int quotecheck2(const struct quotecheck *o, struct quotecheck_result *r,
		struct tberr *e)
{
	struct quote_want w = { 0 };
	struct tpm2_public *ak = NULL;
	struct pcr_sel want;
	uint8_t nonce[64], qn[TPM2_NAME_MAX], *key = NULL;
	size_t keylen, pemlen;
	char *pem = NULL;
	int kind, rc = 0, pinned = o->pin && o->pin->set;

	memset(r, 0, sizeof(*r));
	if (o->nonce_hex) {
		if ((rc = quote_nonce_parse(o->nonce_hex, 0, nonce,
					    &w.nonce_len, e)))
			return rc;
		w.nonce = nonce;
	}
	if (o->sel) {
		if ((rc = quote_sel_want(o->sel, &want, e)))
			return rc;
		w.sel = &want;
	}
	if ((rc = slurp(o->key, &key, &keylen, e)))
		goto out;
	w.key = key;
	w.keylen = keylen;
	/* An AK's public area (blob or TPM2B_PUBLIC) says what kind of key
	 * it is and what the TPM calls it; a bare key says neither. */
	if (!(ak = malloc(sizeof(*ak)))) {
		rc = err_set(e, EX_USAGE, "out of memory");
		goto out;
	}
	kind = ak_pub_load(key, keylen, ak, e);
	if (kind >= 0) {
		err_prefix(e, "%s", o->key);
		rc = failed(e);
		goto out;
	}
	r->ak_public = kind != AK_PUB_NONE;
	if (r->ak_public) {
		if (ak_pub_pem(ak, &pem, &pemlen, e)) {
			rc = failed(e);
			goto out;
		}
		w.key = (const uint8_t *)pem;
		w.keylen = pemlen;
		w.name = ak->name;
		w.namelen = ak->namelen;
		w.scheme = ak->scheme;
		w.scheme_hash = ak->scheme_hash;
		if (pinned) {
			w.parent_qnlen = ak_srk_qn(o->pin->name,
						   o->pin->namelen, qn);
			w.parent_qn = qn;
		}
	} else if (pinned) {
		rc = err_set(e, EX_USAGE, "--srk-name/--srk-pub need the AK's "
			     "TPM2B_PUBLIC or blob in -k, not a bare key");
		goto out;
	}
	if (!(r->q = malloc(sizeof(*r->q)))) {
		rc = err_set(e, EX_USAGE, "out of memory");
		goto out;
	}
	if ((rc = read_quote(o, r->q, e)))
		goto out;
	if (quote_check(r->q, &w, e)) {
		if (strncmp(e->msg, "public key", 10) == 0)
			err_prefix(e, "%s", o->key);
		rc = failed(e);
		goto out;
	}
	if (o->eventlog || o->imalog)
		rc = check_logs(r->q, o, &r->notes, e);
out:
	free(ak);
	free(pem);
	free(key);
	return rc;
}

void quotecheck_free(struct quotecheck_result *r)
{
	free(r->q);
	free(r->notes);
	r->q = NULL;
	r->notes = NULL;
}
