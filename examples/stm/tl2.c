/* TL2 (Dice, Shalev, Shavit, DISC 2006) as FOIL models it: FMSD 2011, Algorithm 3 (RML
 * programs p_r, p_w, p_e, p_a), over two transactional variables g[0] ("x"), g[1] ("y").
 * Deferred update: writes go to a private write set; the commit locks the write set
 * (compare-and-swap on owner[u]), takes a new time from the global version clock, validates
 * the read set (unlocked, version unchanged) and writes the values and versions back, then
 * releases the locks. A read checks the variable's lock, loads the value, then its version,
 * and aborts if the version is newer than the clock value the transaction started with.
 *
 * Fence sites (fences.h; names for -DNO_<SITE>), FOIL's Table 3 for TL2:
 *   COMMIT_SS    store fence after p_e line 26 (the write-back of g[u]), so the value and
 *                version stores precede the next ones and the lock releases:       PSO, RMO
 *   VALIDATE_LL  load fence after p_e line 17 (validation: load owner[u], then
 *                version[u]):                                                       RMO
 *   READ_LL      load fence after p_r line 07 (load g[v], then version[v]):         RMO
 * Extra sites (off unless -D<SITE> or -DEXTRA_FENCES; see RESULTS.md):
 *   READ_LOCK_LL load fence after p_r line 05 (owner[v], then g[v]: FOIL's RMO keeps this
 *                pair in order because of the branch on owner[v]; weakc's RMO, Power and
 *                ARM do not order a load after a branch)
 *   BEGIN_LL     load fence after the clock load that starts a transaction (p_r/p_w
 *                line 03), before its first owner[v] load: a reader whose owner[v] load
 *                is performed before a writer locks v, and whose clock load after the
 *                writer's increment, accepts the writer's version with the old value
 *   VERSION_SS   store fence after p_e line 25 (store version[u], then g[u]): a reader
 *                that checked owner[u] before the lock was taken, then loads the new g[u]
 *                and the old version[u], accepts a value from a transaction that
 *                serializes after it (PSO counterexample in RESULTS.md)
 *   LOCK_LL      load fence after the lock compare-and-swaps of p_e (before the clock and
 *                the validation loads), for the same reason
 *
 * Differences from Algorithm 3 (the RML text of the paper, as extracted, also has obvious
 * slips: it stores the OLD clock value as the new version, which would let a reader accept a
 * value written after it started):
 *   - a read aborts when version[v] > rv (TL2's test) instead of version[v] != rv;
 *     the write-back stores the new clock value wv = clk + 1 as version;
 *   - the clock is taken at the transaction's first command rather than lazily;
 *   - the clock increment loop (lines 08-11: CAS until it succeeds) is one atomic
 *     fetch-and-add (the same effect; weakc keeps read-modify-writes atomic);
 *   - no unbounded retry: every operation is one attempt, which commits or aborts;
 *   - a transaction never reads a variable it wrote (the tests do not need the write-set
 *     lookup of p_r line 04), so tx_rw reads one variable and writes the other;
 *   - the values are real (FOIL abstracts them): the observation needs them.
 * Accesses are relaxed __atomic loads/stores/CAS (fences.h): plain machine instructions.
 */
#include "fences.h"

#if defined(NO_FENCES) || defined(NO_STORE_FENCES) || defined(NO_COMMIT_SS)
#define FENCE_COMMIT_SS() ((void)0)
#else
#define FENCE_COMMIT_SS() STORE_FENCE()
#endif
#if defined(NO_FENCES) || defined(NO_LOAD_FENCES) || defined(NO_VALIDATE_LL)
#define FENCE_VALIDATE_LL() ((void)0)
#else
#define FENCE_VALIDATE_LL() LOAD_FENCE()
#endif
#if defined(NO_FENCES) || defined(NO_LOAD_FENCES) || defined(NO_READ_LL)
#define FENCE_READ_LL() ((void)0)
#else
#define FENCE_READ_LL() LOAD_FENCE()
#endif
#if (defined(READ_LOCK_LL) || defined(EXTRA_FENCES)) && !defined(NO_READ_LOCK_LL) && !defined(NO_FENCES) && !defined(NO_LOAD_FENCES)
#define FENCE_READ_LOCK_LL() LOAD_FENCE()
#else
#define FENCE_READ_LOCK_LL() ((void)0)
#endif
#if (defined(BEGIN_LL) || defined(EXTRA_FENCES)) && !defined(NO_BEGIN_LL) && !defined(NO_FENCES) && !defined(NO_LOAD_FENCES)
#define FENCE_BEGIN_LL() LOAD_FENCE()
#else
#define FENCE_BEGIN_LL() ((void)0)
#endif
#if (defined(VERSION_SS) || defined(EXTRA_FENCES)) && !defined(NO_VERSION_SS) && !defined(NO_FENCES) && !defined(NO_STORE_FENCES)
#define FENCE_VERSION_SS() STORE_FENCE()
#else
#define FENCE_VERSION_SS() ((void)0)
#endif
#if (defined(LOCK_LL) || defined(EXTRA_FENCES)) && !defined(NO_LOCK_LL) && !defined(NO_FENCES) && !defined(NO_LOAD_FENCES)
#define FENCE_LOCK_LL() LOAD_FENCE()
#else
#define FENCE_LOCK_LL() ((void)0)
#endif

static int clk;        /* the global version clock */
static int owner[2];   /* the versioned write locks: 0 free, else the owner's thread */
static int version[2];
static int g[2];       /* the transactional variables */

struct tx {
    int rv;        /* RML lclock: the clock when the transaction started */
    int rs[2];     /* read set */
    int lver[2];   /* the version each read saw */
    int ws[2];     /* write set */
    int wval[2];   /* the values to write back */
};

void init(void)
{
    clk = 0;
    owner[0] = owner[1] = 0;
    version[0] = version[1] = 0;
    g[0] = g[1] = 0;
}

static void tx_begin(struct tx *t)
{
    t->rv = LD(clk);
    FENCE_BEGIN_LL();   /* extra: the clock before the first owner[v] */
    t->rs[0] = t->rs[1] = 0;
    t->ws[0] = t->ws[1] = 0;
    t->lver[0] = t->lver[1] = 0;
    t->wval[0] = t->wval[1] = 0;
}

/* p_a: release the locks this transaction holds, abort. */
static void tx_abort(int self)
{
    for (int u = 0; u < 2; u++)
        if (LD(owner[u]) == self)
            ST(owner[u], 0);
}

/* p_r: 1 and *val when the read finishes (rfin), 0 when the transaction must abort. */
static int tx_read(struct tx *t, int v, int *val)
{
    int l = LD(owner[v]);             /* 05 */
    if (l != 0)                       /* 06 */
        return 0;
    FENCE_READ_LOCK_LL();
    int x = LD(g[v]);                 /* 07 */
    FENCE_READ_LL();                  /* Table 3, RMO: ld fence after p_r 07 */
    int ver = LD(version[v]);         /* 08 */
    if (ver > t->rv)                  /* 09 */
        return 0;
    t->rs[v] = 1;                     /* 10 */
    t->lver[v] = ver;
    *val = x;                         /* 11: rfin */
    return 1;
}

/* p_w: deferred. */
static void tx_write(struct tx *t, int v, int val)
{
    t->ws[v] = 1;
    t->wval[v] = val;
}

/* p_e: 1 committed, 0 aborted (locks released). */
static int tx_commit(struct tx *t, int self)
{
    for (int u = 0; u < 2; u++)                           /* 02-07: lock the write set */
        if (t->ws[u] && !CAS(owner[u], 0, self)) {
            tx_abort(self);
            return 0;
        }
    FENCE_LOCK_LL();
    int wv = FETCH_ADD(clk, 1) + 1;                       /* 08-11: new clock value */
    for (int u = 0; u < 2; u++)                           /* 12-20: validate the read set */
        if (t->rs[u]) {
            int l = LD(owner[u]);                         /* 17 */
            FENCE_VALIDATE_LL();                          /* Table 3, RMO: after p_e 17 */
            int c = LD(version[u]);                       /* 18 */
            if (c != t->lver[u] || l != 0) {              /* 19, 20 */
                tx_abort(self);
                return 0;
            }
        }
    for (int u = 0; u < 2; u++)                           /* 21-26: write back */
        if (t->ws[u]) {
            ST(version[u], wv);                           /* 25 */
            FENCE_VERSION_SS();                           /* extra: version before value */
            ST(g[u], t->wval[u]);                         /* 26 */
            FENCE_COMMIT_SS();                            /* Table 3, PSO/RMO: after p_e 26 */
        }
    for (int u = 0; u < 2; u++)                           /* 27-32: release */
        if (t->ws[u])
            ST(owner[u], 0);
    return 1;                                             /* 34: commit */
}

int tx_w(int self, int v)
{
    struct tx t;
    tx_begin(&t);
    tx_write(&t, 0, v);
    tx_write(&t, 1, v);
    return tx_commit(&t, self);
}

int tx_r(int self, int first)
{
    struct tx t;
    int r1, r2;
    tx_begin(&t);
    if (!tx_read(&t, first, &r1)) {
        tx_abort(self);
        return 10 * UNREAD + UNREAD;
    }
    if (!tx_read(&t, 1 - first, &r2)) {
        tx_abort(self);
        return 10 * r1 + UNREAD;
    }
    if (!tx_commit(&t, self))
        return 10 * r1 + r2;
    return 100 + 10 * r1 + r2;
}

int tx_rw(int self, int i)
{
    struct tx t;
    int r1;
    tx_begin(&t);
    if (!tx_read(&t, i, &r1)) {
        tx_abort(self);
        return UNREAD;
    }
    tx_write(&t, 1 - i, r1 + 1);
    if (!tx_commit(&t, self))
        return r1;
    return 100 + r1;
}
