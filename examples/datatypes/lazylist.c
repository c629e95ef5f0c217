/* The lazy list-based set of Heller, Herlihy, Luchangco, Moir, Scherer and Shavit ("A Lazy
 * Concurrent List-Based Set Algorithm", OPODIS 2005), as CheckFence studied it ("lazylist",
 * PLDI 2007, Table 1): a sorted linked list between two sentinel nodes, a lock per node,
 * and a `marked` bit that deletes a node logically before it is unlinked. add and remove
 * traverse without locks, lock pred and curr, validate (both unmarked, pred->next == curr)
 * and retry if that fails; contains takes no lock at all.
 *
 * -DINIT_BUG: the published pseudocode never initialises `marked` of the node add creates
 * (the bug CheckFence found, §4.1; Java zeroes fields, C's malloc does not). A node that
 * comes out marked is in the list but not in the set: contains says no, and add and remove
 * fail to validate against it.
 *
 * Fences (CheckFence's fixes, §4.3; -DNO_FENCES removes them, -DNO_STORE_STORE or
 * -DNO_LOAD_LOAD one kind only):
 * - store-store in add, between initialising the new node and linking it with
 *   pred->next = node: the link is made under locks, but a lock is an acquire, which lets
 *   the earlier initialising stores move past it, into the critical section and beyond the
 *   link (PSO, RMO, Power, ARM); a lock-free contains, or a traversal, then reads the
 *   node's key, next or marked before they are written.
 * - load-load after each read of a next pointer, before the node it points to is read
 *   (value-dependent loads, which CheckFence's Relaxed may reorder).
 * Fences are C11's: a release fence stands for CheckFence's store-store fence, an acquire
 * fence for its load-load fence. Locks are pthread mutexes (acquire on lock, release on
 * unlock, as glibc implements them). Removed nodes are never freed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>

#define MIN_KEY (-1000) /* the head sentinel's key, below every key of the tests */
#define MAX_KEY 1000    /* the tail sentinel's key, above every key of the tests */

typedef struct node {
    int key;
    struct node *next;
    int marked;
    pthread_mutex_t lock;
} node_t;

static node_t *head;

#include "fences.h"

static node_t *new_node(int key, node_t *next)
{
    node_t *node = malloc(sizeof *node);
    node->key = key;
    node->next = next;
#ifndef INIT_BUG
    node->marked = 0;
#endif
    pthread_mutex_init(&node->lock, NULL);
    return node;
}

void init(void)
{
    node_t *tail = new_node(MAX_KEY, NULL);
    tail->marked = 0;
    head = new_node(MIN_KEY, tail);
    head->marked = 0;
}

static int validate(node_t *pred, node_t *curr)
{
    return !pred->marked && !curr->marked && pred->next == curr;
}

/* 1 if key was added, 0 if it was there already. */
int add(int key)
{
    node_t *pred, *curr;
    int result;
    while (1) {
        pred = head;
        curr = pred->next;
        LOAD_LOAD();
        while (curr->key < key) {
            pred = curr;
            curr = curr->next;
            LOAD_LOAD();
        }
        pthread_mutex_lock(&pred->lock);
        pthread_mutex_lock(&curr->lock);
        if (validate(pred, curr)) {
            if (curr->key == key) {
                result = 0;
            } else {
                node_t *node = new_node(key, curr);
                STORE_STORE(); /* initialise the node, then link it */
                pred->next = node;
                result = 1;
            }
            pthread_mutex_unlock(&curr->lock);
            pthread_mutex_unlock(&pred->lock);
            return result;
        }
        pthread_mutex_unlock(&curr->lock);
        pthread_mutex_unlock(&pred->lock);
    }
}

/* 1 if key was removed, 0 if it was not there. */
int remove(int key)
{
    node_t *pred, *curr;
    int result;
    while (1) {
        pred = head;
        curr = pred->next;
        LOAD_LOAD();
        while (curr->key < key) {
            pred = curr;
            curr = curr->next;
            LOAD_LOAD();
        }
        pthread_mutex_lock(&pred->lock);
        pthread_mutex_lock(&curr->lock);
        if (validate(pred, curr)) {
            if (curr->key != key) {
                result = 0;
            } else {
                curr->marked = 1;        /* logical deletion */
                pred->next = curr->next; /* physical deletion */
                result = 1;
            }
            pthread_mutex_unlock(&curr->lock);
            pthread_mutex_unlock(&pred->lock);
            return result;
        }
        pthread_mutex_unlock(&curr->lock);
        pthread_mutex_unlock(&pred->lock);
    }
}

/* 1 if key is in the set, else 0; takes no lock. */
int contains(int key)
{
    node_t *curr = head;
    while (curr->key < key) {
        curr = curr->next;
        LOAD_LOAD();
    }
    return curr->key == key && !curr->marked;
}
