/* Michael and Scott's two-lock queue (PODC 1996, Fig. 2), as CheckFence studied it
 * ("ms2", PLDI 2007, Table 1): a linked list with a dummy head node, one lock for the
 * head (dequeue) and one for the tail (enqueue).
 *
 * Enqueue initialises its node, then links it under the tail lock; dequeue, under the
 * other lock, reads head->next and the node's value. Nothing orders the node's
 * initialisation before the link on an architecture that reorders stores (PSO, RMO,
 * Power, ARM; a lock is an acquire, which lets earlier stores move into the critical
 * section): a dequeue can see the node but not its value. The store-store fence below is
 * CheckFence's fix (§4.2, "Incomplete initialization"); -DNO_FENCES removes it.
 *
 * Commit points (CAV 2006, `weakc check --commit-points`): an enqueue takes effect when
 * it links its node, a dequeue when it reads head->next (CAV'06's lines 15 and 32).
 * -DEARLY_DEQUEUE_COMMIT marks the dequeue's read of `head` instead (the first guess
 * CAV'06 had to correct: its race with the link decides the order, not that read).
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>

typedef struct node {
    int value;
    struct node *next;
} node_t;

#ifdef __weakc__
void __weakc_commit(void);
#define COMMIT() __weakc_commit()
#else
#define COMMIT() ((void)0)
#endif

static node_t *head, *tail;
static pthread_mutex_t head_lock, tail_lock;

void init(void)
{
    node_t *dummy = malloc(sizeof *dummy);
    dummy->value = 0;
    dummy->next = NULL;
    head = tail = dummy;
    pthread_mutex_init(&head_lock, NULL);
    pthread_mutex_init(&tail_lock, NULL);
}

void enqueue(int value)
{
    node_t *node = malloc(sizeof *node);
    node->value = value;
    node->next = NULL;
#ifndef NO_FENCES
    atomic_thread_fence(memory_order_release); /* store-store: initialise, then link */
#endif
    pthread_mutex_lock(&tail_lock);
    tail->next = node;
    COMMIT();
    tail = node;
    pthread_mutex_unlock(&tail_lock);
}

/* The value at the head, or -1 when the queue is empty. */
int dequeue(void)
{
    pthread_mutex_lock(&head_lock);
    node_t *node = head;
#ifdef EARLY_DEQUEUE_COMMIT
    COMMIT();
#endif
    node_t *new_head = node->next;
#ifndef EARLY_DEQUEUE_COMMIT
    COMMIT();
#endif
    if (new_head == NULL) {
        pthread_mutex_unlock(&head_lock);
        return -1;
    }
    int value = new_head->value;
    head = new_head;
    pthread_mutex_unlock(&head_lock);
    return value;
}
