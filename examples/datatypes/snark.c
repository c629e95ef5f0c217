/* The "snark" deque of Detlefs, Flood, Garthwaite, Martin, Shavit and Steele ("Even
 * Better DCAS-Based Concurrent Deques", DISC 2000), as CheckFence studied it ("snark",
 * PLDI 2007, Table 1): a doubly linked list between two hats, LeftHat and RightHat, and a
 * shared Dummy node. A node popped from the right gets L pointing to itself, one popped
 * from the left R pointing to itself; a hat on such a node means that side is empty.
 * Every change is a double-word compare-and-swap.
 *
 * This is the published algorithm, with its two known bugs (Doherty, Detlefs, Groves,
 * Flood, Luchangco, Martin, Moir, Shavit, Steele, "DCAS is not a silver bullet for
 * nonblocking algorithm design", SPAA 2004), which CheckFence reproduced (§4.1, the first on
 * its small test D0, the second only on a deep one). A check on `sc` may therefore fail:
 * that is the algorithm, not the memory model.
 *
 * DCAS is an atomic section (__VERIFIER_atomic_begin/end). Unlike CheckFence's DCAS, which
 * orders nothing (Fig. 6 models CAS without fences), an atomic section orders everything
 * around it in weakc, so the fences below may not be needed here (see the report).
 * Fences (CheckFence's fixes, §4.3; -DNO_FENCES removes them, -DNO_STORE_STORE or
 * -DNO_LOAD_LOAD one kind only):
 * - store-store in push, between initialising the new node and the DCAS that links it;
 * - load-load in pop and push, between reading a hat and reading the node it points to.
 * Fences are C11's: a release fence stands for CheckFence's store-store fence, an acquire
 * fence for its load-load fence. Popped nodes are never freed. pops return -1 when the
 * deque is empty.
 */
#include <stdlib.h>
#include <stdatomic.h>

extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

typedef struct node {
    struct node *L, *R;
    int V;
} node_t;

static node_t *Dummy, *LeftHat, *RightHat;

#include "fences.h"

/* Double compare-and-swap: atomically, if *a1 == o1 and *a2 == o2, then *a1 = n1, *a2 = n2. */
static int dcas(node_t **a1, node_t **a2, node_t *o1, node_t *o2, node_t *n1, node_t *n2)
{
    int ok = 0;
    __VERIFIER_atomic_begin();
    if (*a1 == o1 && *a2 == o2) {
        *a1 = n1;
        *a2 = n2;
        ok = 1;
    }
    __VERIFIER_atomic_end();
    return ok;
}

void init(void)
{
    Dummy = malloc(sizeof *Dummy);
    Dummy->L = Dummy;
    Dummy->R = Dummy;
    Dummy->V = 0;
    LeftHat = Dummy;
    RightHat = Dummy;
}

void pushRight(int v)
{
    node_t *nd = malloc(sizeof *nd);
    node_t *rh, *rhR, *lh;
    nd->R = Dummy;
    nd->V = v;
    while (1) {
        rh = RightHat;
        LOAD_LOAD();
        rhR = rh->R;
        if (rhR == rh) {
            nd->L = Dummy;
            lh = LeftHat;
            STORE_STORE(); /* initialise the node, then link it */
            if (dcas(&RightHat, &LeftHat, rh, lh, nd, nd))
                return;
        } else {
            nd->L = rh;
            STORE_STORE(); /* initialise the node, then link it */
            if (dcas(&RightHat, &rh->R, rh, rhR, nd, nd))
                return;
        }
    }
}

void pushLeft(int v)
{
    node_t *nd = malloc(sizeof *nd);
    node_t *lh, *lhL, *rh;
    nd->L = Dummy;
    nd->V = v;
    while (1) {
        lh = LeftHat;
        LOAD_LOAD();
        lhL = lh->L;
        if (lhL == lh) {
            nd->R = Dummy;
            rh = RightHat;
            STORE_STORE(); /* initialise the node, then link it */
            if (dcas(&LeftHat, &RightHat, lh, rh, nd, nd))
                return;
        } else {
            nd->R = lh;
            STORE_STORE(); /* initialise the node, then link it */
            if (dcas(&LeftHat, &lh->L, lh, lhL, nd, nd))
                return;
        }
    }
}

/* The value at the right end, or -1 when the deque is empty. */
int popRight(void)
{
    node_t *rh, *lh, *rhL;
    int result;
    while (1) {
        rh = RightHat;
        lh = LeftHat;
        LOAD_LOAD();
        if (rh->R == rh)
            return -1;
        if (rh == lh) {
            if (dcas(&RightHat, &LeftHat, rh, lh, Dummy, Dummy))
                return rh->V;
        } else {
            rhL = rh->L;
            if (dcas(&RightHat, &rh->L, rh, rhL, rhL, rh)) {
                result = rh->V;
                rh->R = Dummy;
                return result;
            }
        }
    }
}

/* The value at the left end, or -1 when the deque is empty. */
int popLeft(void)
{
    node_t *lh, *rh, *lhR;
    int result;
    while (1) {
        lh = LeftHat;
        rh = RightHat;
        LOAD_LOAD();
        if (lh->L == lh)
            return -1;
        if (lh == rh) {
            if (dcas(&LeftHat, &RightHat, lh, rh, Dummy, Dummy))
                return lh->V;
        } else {
            lhR = lh->R;
            if (dcas(&LeftHat, &lh->R, lh, lhR, lhR, lh)) {
                result = lh->V;
                lh->L = Dummy;
                return result;
            }
        }
    }
}
