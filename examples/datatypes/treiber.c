/* Treiber's non-blocking stack (R. K. Treiber, "Systems programming: coping with
 * parallelism", IBM Almaden RJ 5118, 1986): a linked list whose top is swung by
 * compare-and-swap. Not one of CheckFence's five (PLDI 2007, Table 1), but the simplest case
 * of its two typical failures (§4.3):
 *
 * - "Incomplete initialization": push initialises its node (value, next), then publishes
 *   it with the CAS on top. An architecture that reorders stores (PSO, RMO, Power, ARM) may
 *   make the CAS visible first, and a pop then reads the node's value before it is written.
 *   Fix: a store-store fence before the CAS.
 * - "Reordering of value-dependent instructions": pop reads top, then top->next and
 *   top->value; a load-load fence keeps the second loads after the first (Alpha-style
 *   speculation, which CheckFence's Relaxed allows; Power and ARM keep address-dependent
 *   loads in order by themselves).
 *
 * compare-and-swap orders nothing by itself here, as in CheckFence: relaxed
 * __atomic_compare_exchange_n. Fences are C11's: a release fence stands for CheckFence's
 * store-store fence, an acquire fence for its load-load fence. -DNO_FENCES removes both;
 * -DNO_STORE_STORE or -DNO_LOAD_LOAD removes one kind only.
 * Popped nodes are never freed (no ABA, no use after free: the published algorithm relies on
 * a garbage collector or tagged pointers for that).
 */
#include <stdlib.h>
#include <stdatomic.h>

typedef struct node {
    int value;
    struct node *next;
} node_t;

static node_t *top;

#include "fences.h"

static int cas(node_t **p, node_t *old, node_t *new)
{
    return __atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void init(void)
{
    top = NULL;
}

void push(int value)
{
    node_t *node = malloc(sizeof *node);
    node_t *t;
    node->value = value;
    do {
        t = top;
        node->next = t;
        STORE_STORE(); /* initialise the node, then publish it */
    } while (!cas(&top, t, node));
}

/* The value on top, or -1 when the stack is empty. */
int pop(void)
{
    node_t *t, *next;
    int value;
    do {
        t = top;
        if (t == NULL)
            return -1;
        LOAD_LOAD(); /* read top, then the node it points to */
        next = t->next;
        value = t->value;
    } while (!cas(&top, t, next));
    return value;
}
