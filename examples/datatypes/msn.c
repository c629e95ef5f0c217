/* Michael and Scott's non-blocking queue (PODC 1996, Fig. 1) with the fences CheckFence
 * found necessary on its Relaxed model ("msn", PLDI 2007, Fig. 9). -DNO_FENCES gives the
 * published algorithm without them.
 *
 * compare-and-swap orders nothing by itself here (CheckFence models it without fences):
 * GCC's __atomic_compare_exchange_n with relaxed orders, an `lwarx/stwcx.` or `ldxr/stxr`
 * loop with no barrier. Fences are C11's: a release fence stands for CheckFence's
 * store-store fence, an acquire fence for its load-load fence (GCC: lwsync on Power,
 * dmb ish on ARM, membar on SPARC; nothing on x86).
 */
#include <stdlib.h>
#include <stdatomic.h>

typedef struct node {
    struct node *next;
    int value;
} node_t;

static node_t *head, *tail;

#ifdef NO_FENCES
#define STORE_STORE() ((void)0)
#define LOAD_LOAD() ((void)0)
#else
#define STORE_STORE() atomic_thread_fence(memory_order_release)
#define LOAD_LOAD() atomic_thread_fence(memory_order_acquire)
#endif

static int cas(node_t **p, node_t *old, node_t *new)
{
    return __atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void init(void)
{
    node_t *node = malloc(sizeof *node);
    node->next = NULL;
    head = tail = node;
}

void enqueue(int value)
{
    node_t *node = malloc(sizeof *node);
    node_t *t, *next;
    node->value = value;
    node->next = NULL;
    STORE_STORE();
    while (1) {
        t = tail;
        LOAD_LOAD();
        next = t->next;
        LOAD_LOAD();
        if (t == tail) {
            if (next == NULL) {
                if (cas(&t->next, next, node))
                    break;
            } else {
                cas(&tail, t, next);
            }
        }
    }
    STORE_STORE();
    cas(&tail, t, node);
}

/* The value at the head, or -1 when the queue is empty. */
int dequeue(void)
{
    node_t *h, *t, *next;
    int value;
    while (1) {
        h = head;
        LOAD_LOAD();
        t = tail;
        LOAD_LOAD();
        next = h->next;
        LOAD_LOAD();
        if (h == head) {
            if (h == t) {
                if (next == NULL)
                    return -1;
                cas(&tail, t, next);
            } else {
                value = next->value;
                if (cas(&head, h, next))
                    break;
            }
        }
    }
    return value;
}
