/* mbedTLS's calloc and free in the small build (tiny/mbedtls-config.h).
 *
 * musl's allocator gives a group of small blocks back to the kernel as
 * soon as its last block is freed.  mbedTLS's bignum code allocates and
 * frees its numbers one after another, so one P-256 multiplication mapped
 * and unmapped the same page about 80 times (strace of `quote`), each a
 * page fault and, under tpmbox's mlockall, a page locked and unlocked.
 * Here mbedTLS's small blocks come from one static arena instead: a free
 * list per size (16-byte steps up to 1 KiB; a bignum's size repeats), a
 * block never split or merged, so taking and giving back are a pointer
 * each.  What is larger, or does not fit when the arena is used up, goes
 * to calloc.  mbedTLS wipes its secrets before it frees them; a block is
 * zeroed when handed out.  tpmbox is single-threaded. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA (64 * 1024)
#define STEP 16			/* sizes in steps of 16; keeps 16-byte alignment */
#define CLASSES 64		/* up to 64 steps: 1 KiB */

union blk {
	size_t cls;		/* while handed out: its size class */
	union blk *next;	/* while free: the next free block of its class */
	unsigned char align[STEP];
};

static _Alignas(16) unsigned char arena[ARENA];
static size_t top;		/* arena[0, top) has been carved */
static union blk *freel[CLASSES + 1];

void *tpmbox_mbedtls_calloc(size_t n, size_t size)
{
	size_t want, cls;
	union blk *b;

	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	want = n * size;
	if (want > CLASSES * STEP)
		return calloc(n, size);
	cls = want == 0 ? 1 : (want + STEP - 1) / STEP;
	if ((b = freel[cls]) != NULL)
		freel[cls] = b->next;
	else if (ARENA - top >= (cls + 1) * STEP) {
		b = (union blk *)(void *)(arena + top);
		top += (cls + 1) * STEP;
	} else
		return calloc(n, size);
	b->cls = cls;
	return memset(b + 1, 0, cls * STEP);
}

void tpmbox_mbedtls_free(void *p)
{
	uintptr_t u = (uintptr_t)p, a = (uintptr_t)arena;
	union blk *b;

	if (p == NULL)
		return;
	if (u < a || u >= a + ARENA) {
		free(p);
		return;
	}
	b = (union blk *)p - 1;
	size_t cls = b->cls;
	b->next = freel[cls];
	freel[cls] = b;
}
