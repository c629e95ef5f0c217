/* DSTM (Herlihy, Luchangco, Moir, Scherer, PODC 2003) as FOIL models it: FMSD 2011,
 * Algorithm 4, over two transactional variables "x" (txr[0]) and "y" (txr[1]).
 * Obstruction-free, no locks: every variable has a locator (owner transaction, old value,
 * new value); a transaction opens a variable, for reading or writing (FOIL's DSTM uses
 * encounter-time ownership for both: p_r is p_w followed by rfin), by installing its own
 * locator with one compare-and-swap. The current value of a variable is the new value when
 * the locator's owner committed and the old value otherwise; an ACTIVE owner is first
 * aborted (compare-and-swap of its status ACTIVE -> ABORTED: the aggressive contention
 * manager, "abort the other"). Commit and abort are compare-and-swaps of the transaction's
 * own status. After each open the transaction checks that it is still ACTIVE (DSTM's
 * validation), so a transaction aborted by another never finishes a read.
 *
 * FOIL's Table 3: no fences on TSO, PSO or RMO. This file has no Table-3 fence sites.
 * Extra sites (off unless -D<SITE> or -DEXTRA_FENCES; see RESULTS.md):
 *   OPEN_LL   load fence after the compare-and-swap that installs the locator, before the
 *             validation load of the own status (FOIL's RMO orders it: the CAS's result is
 *             branched on; weakc's RMO, Power and ARM do not order loads after a branch)
 *   STATUS_LL load fence after the locator load, before the owner's status load
 *
 * As in FOIL ("we slightly modify the DSTM algorithm to avoid dynamic memory allocation"),
 * a locator is held by value: it is one word (owner descriptor, old value, new value packed
 * in bit fields) and the compare-and-swap replaces it whole, so there is no separately
 * allocated locator to initialise and publish. Transaction descriptors are statically
 * allocated too: descriptor 4 * self + k is the k-th attempt of thread `self` (a counter
 * only that thread touches); descriptor 0 is the committed initial owner. Each operation is
 * one attempt: an open whose CAS fails aborts (FOIL's loop `while k != l` retries instead).
 */
#include "fences.h"

#if (defined(OPEN_LL) || defined(EXTRA_FENCES)) && !defined(NO_OPEN_LL) && !defined(NO_FENCES) && !defined(NO_LOAD_FENCES)
#define FENCE_OPEN_LL() LOAD_FENCE()
#else
#define FENCE_OPEN_LL() ((void)0)
#endif
#if (defined(STATUS_LL) || defined(EXTRA_FENCES)) && !defined(NO_STATUS_LL) && !defined(NO_FENCES) && !defined(NO_LOAD_FENCES)
#define FENCE_STATUS_LL() LOAD_FENCE()
#else
#define FENCE_STATUS_LL() ((void)0)
#endif

enum { ACTIVE = 0, COMMITTED = 1, ABORTED = 2 };

#define LOC(desc, oldv, newv) (((desc) << 8) | ((oldv) << 4) | (newv))
#define LOC_DESC(l) ((l) >> 8)
#define LOC_OLD(l) (((l) >> 4) & 15)
#define LOC_NEW(l) ((l) & 15)

static int txr[2];        /* the locators */
static int status[16];    /* the transaction descriptors' status */
static int attempts[4];   /* per thread, touched by that thread only */

void init(void)
{
    /* the other descriptors are ACTIVE (0) and the attempt counters 0, as statics */
    status[0] = COMMITTED;
    txr[0] = LOC(0, 0, 0);
    txr[1] = LOC(0, 0, 0);
}

static int tx_begin(int self)
{
    int k = attempts[self];
    attempts[self] = k + 1;
    return 4 * self + k; /* a fresh descriptor, ACTIVE since init */
}

/* Open variable v for transaction me: install a locator whose old value is the current
 * value and whose new value is `newv` (the current value itself for a read: write < 0).
 * 1 and *val = the current value when open and still ACTIVE, 0 when me must abort. */
static int tx_open(int me, int v, int write, int *val)
{
    int l = LD(txr[v]);                               /* 03: l := txr[v]; t := l.tid */
    FENCE_STATUS_LL();
    int t = LOC_DESC(l);
    int st = LD(status[t]);
    if (st == ACTIVE) {                               /* 14-15: abort the owner */
        if (CAS(status[t], ACTIVE, ABORTED))
            st = ABORTED;
        else
            st = LD(status[t]);                       /* it committed (or was aborted) */
    }
    int cur = st == COMMITTED ? LOC_NEW(l) : LOC_OLD(l); /* 08-18 */
    int m = LOC(me, cur, write >= 0 ? write : cur);
    if (!CAS(txr[v], l, m))                           /* 19: one attempt */
        return 0;
    FENCE_OPEN_LL();
    if (LD(status[me]) != ACTIVE)                     /* validation */
        return 0;
    *val = cur;
    return 1;
}

/* p_a: abort (the status may already be ABORTED, set by another transaction). */
static void tx_abort(int me)
{
    CAS(status[me], ACTIVE, ABORTED);
}

/* p_e: 1 committed, 0 aborted. */
static int tx_commit(int me)
{
    return CAS(status[me], ACTIVE, COMMITTED);
}

int tx_w(int self, int v)
{
    int me = tx_begin(self), cur;
    if (!tx_open(me, 0, v, &cur) || !tx_open(me, 1, v, &cur)) {
        tx_abort(me);
        return 0;
    }
    return tx_commit(me);
}

int tx_r(int self, int first)
{
    int me = tx_begin(self), r1, r2;
    if (!tx_open(me, first, -1, &r1)) {
        tx_abort(me);
        return 10 * UNREAD + UNREAD;
    }
    if (!tx_open(me, 1 - first, -1, &r2)) {
        tx_abort(me);
        return 10 * r1 + UNREAD;
    }
    if (!tx_commit(me))
        return 10 * r1 + r2;
    return 100 + 10 * r1 + r2;
}

int tx_rw(int self, int i)
{
    int me = tx_begin(self), r1, cur;
    if (!tx_open(me, i, -1, &r1)) {
        tx_abort(me);
        return UNREAD;
    }
    if (!tx_open(me, 1 - i, r1 + 1, &cur)) {
        tx_abort(me);
        return r1;
    }
    if (!tx_commit(me))
        return r1;
    return 100 + r1;
}
