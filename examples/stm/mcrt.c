/* McRT-STM (Saha, Adl-Tabatabai, Hudson, Minh, Hertzberg, PPoPP 2006) as FOIL models it:
 * FMSD 2011, Algorithm 5, over two transactional variables g[0] ("x") and g[1] ("y").
 * Direct update: a writer takes the variable's lock exclusively (compare-and-swap of
 * owner[v] from free to itself), saves the old value in its undo log and writes in place;
 * a reader takes the lock shared (compare-and-swap of the reader count l -> l + 1; aborts
 * when a writer holds it), then loads the value. Commit releases the locks (shared ones by
 * decrementing the count, exclusive ones by storing "free"); abort first rolls the written
 * variables back from the undo log, then releases.
 *
 * owner[v]: 0 free, n > 0 held by n readers, -t held for writing by thread t.
 *
 * Fence sites (fences.h; names for -DNO_<SITE>), FOIL's Table 3 for McRT:
 *   ROLLBACK_SS  store fence after p_a line 07 (the rollback store of g[v]), before the
 *                release of owner[v]:                                        PSO, RMO
 * Extra sites (off unless -D<SITE> or -DEXTRA_FENCES; see RESULTS.md):
 *   COMMIT_SS    store fence before the commit releases the write locks (the in-place
 *                stores of p_w before the store owner[v] := 0 of p_e line 13)
 *   READ_LL      load fence after the read-lock compare-and-swap (p_r line 07), before the
 *                load of g[v] (FOIL's RMO orders it through the branch on the CAS's result)
 *   WRITE_LL     fence (acquire: load-load and load-store) after the write-lock
 *                compare-and-swap (p_w line 05), before the undo-log load and the in-place
 *                store
 *
 * Differences from Algorithm 5 as extracted: the lock word's encoding (readers counted up
 * from 1, a writer as its negated thread number; the extracted text's reader test is
 * garbled); the commit's decrement loop (lines 07-09) is one atomic fetch-and-add of -1
 * (the same effect); the abort also releases the read locks the transaction holds (the
 * extracted p_a only clears rs[v]); lock ownership is tracked in the local read and write
 * sets instead of reloading owner[v]; the undo log is an explicit load of the old value;
 * every operation is one attempt (no retry); values are real. Transactions never read a
 * variable they wrote.
 */
#include "fences.h"

#if defined(NO_FENCES) || defined(NO_STORE_FENCES) || defined(NO_ROLLBACK_SS)
#define FENCE_ROLLBACK_SS() ((void)0)
#else
#define FENCE_ROLLBACK_SS() STORE_FENCE()
#endif
#if (defined(COMMIT_SS) || defined(EXTRA_FENCES)) && !defined(NO_COMMIT_SS) && !defined(NO_FENCES) && !defined(NO_STORE_FENCES)
#define FENCE_COMMIT_SS() STORE_FENCE()
#else
#define FENCE_COMMIT_SS() ((void)0)
#endif
#if (defined(READ_LL) || defined(EXTRA_FENCES)) && !defined(NO_READ_LL) && !defined(NO_FENCES) && !defined(NO_LOAD_FENCES)
#define FENCE_READ_LL() LOAD_FENCE()
#else
#define FENCE_READ_LL() ((void)0)
#endif
#if (defined(WRITE_LL) || defined(EXTRA_FENCES)) && !defined(NO_WRITE_LL) && !defined(NO_FENCES) && !defined(NO_LOAD_FENCES)
#define FENCE_WRITE_LL() LOAD_FENCE()
#else
#define FENCE_WRITE_LL() ((void)0)
#endif

static int owner[2];
static int g[2];

struct tx {
    int rs[2];    /* read locks held */
    int ws[2];    /* write locks held */
    int undo[2];  /* the undo log */
};

void init(void)
{
    owner[0] = owner[1] = 0;
    g[0] = g[1] = 0;
}

static void tx_begin(struct tx *t)
{
    t->rs[0] = t->rs[1] = 0;
    t->ws[0] = t->ws[1] = 0;
    t->undo[0] = t->undo[1] = 0;
}

/* p_a: roll back, release, abort. */
static void tx_abort(struct tx *t)
{
    for (int u = 0; u < 2; u++) {
        if (t->ws[u]) {
            ST(g[u], t->undo[u]);           /* 07: rollback */
            FENCE_ROLLBACK_SS();            /* Table 3, PSO/RMO: sfence after p_a 07 */
            ST(owner[u], 0);                /* 08 */
        }
        if (t->rs[u])
            FETCH_ADD(owner[u], -1);
    }
}

/* p_r: 1 and *val when the read finishes (rfin), 0 when the transaction must abort. */
static int tx_read(struct tx *t, int v, int *val)
{
    int l = LD(owner[v]);                   /* 03 */
    if (l < 0)                              /* 04-05: held by a writer */
        return 0;
    if (!CAS(owner[v], l, l + 1))           /* 07-08 */
        return 0;
    t->rs[v] = 1;                           /* 09 */
    FENCE_READ_LL();
    *val = LD(g[v]);                        /* 10-11: load, rfin */
    return 1;
}

/* p_w: 1 written in place, 0 when the transaction must abort. */
static int tx_write(struct tx *t, int self, int v, int val)
{
    int l = LD(owner[v]);                   /* 02 */
    if (l != 0)                             /* 03-04 */
        return 0;
    if (!CAS(owner[v], 0, -self))           /* 05-06 */
        return 0;
    t->ws[v] = 1;
    FENCE_WRITE_LL();
    t->undo[v] = LD(g[v]);                  /* the undo log */
    ST(g[v], val);                          /* 07 */
    return 1;
}

/* p_e: release (commit always succeeds once every command did). */
static void tx_commit(struct tx *t)
{
    FENCE_COMMIT_SS();
    for (int u = 0; u < 2; u++) {
        if (t->rs[u])
            FETCH_ADD(owner[u], -1);        /* 05-10 */
        else if (t->ws[u])
            ST(owner[u], 0);                /* 12-13 */
    }
}

int tx_w(int self, int v)
{
    struct tx t;
    tx_begin(&t);
    if (!tx_write(&t, self, 0, v) || !tx_write(&t, self, 1, v)) {
        tx_abort(&t);
        return 0;
    }
    tx_commit(&t);
    return 1;
}

int tx_r(int self, int first)
{
    struct tx t;
    int r1, r2;
    (void)self;
    tx_begin(&t);
    if (!tx_read(&t, first, &r1)) {
        tx_abort(&t);
        return 10 * UNREAD + UNREAD;
    }
    if (!tx_read(&t, 1 - first, &r2)) {
        tx_abort(&t);
        return 10 * r1 + UNREAD;
    }
    tx_commit(&t);
    return 100 + 10 * r1 + r2;
}

int tx_rw(int self, int i)
{
    struct tx t;
    int r1;
    tx_begin(&t);
    if (!tx_read(&t, i, &r1)) {
        tx_abort(&t);
        return UNREAD;
    }
    if (!tx_write(&t, self, 1 - i, r1 + 1)) {
        tx_abort(&t);
        return r1;
    }
    tx_commit(&t);
    return 100 + r1;
}
