/* Harris's non-blocking linked-list set ("A Pragmatic Implementation of Non-Blocking
 * Linked-Lists", DISC 2001, Fig. 4-6), as CheckFence studied it ("harris", PLDI 2007,
 * Table 1): a sorted list between head and tail sentinels, changed only by
 * compare-and-swap. remove first marks the node's next pointer (its low bit: logical
 * deletion), then swings the predecessor past it; search unlinks marked nodes it meets
 * and returns the adjacent unmarked pair left_node, right_node with
 * left_node->key < key <= right_node->key.
 *
 * Fences (CheckFence's fixes, §4.3; -DNO_FENCES removes them, -DNO_STORE_STORE or
 * -DNO_LOAD_LOAD one kind only):
 * - store-store in add, between initialising the new node (key, next) and the CAS that
 *   links it: on PSO, RMO, Power and ARM a concurrent search can otherwise reach the node
 *   and read its key or next before they are written.
 * - load-load in search, between reading a next pointer and reading the node it points to
 *   (value-dependent loads, which CheckFence's Relaxed may reorder).
 * compare-and-swap orders nothing by itself here, as in CheckFence: relaxed
 * __atomic_compare_exchange_n. Fences are C11's: a release fence stands for CheckFence's
 * store-store fence, an acquire fence for its load-load fence. Removed nodes are never
 * freed (the published algorithm assumes a garbage collector).
 */
#include <stdint.h>
#include <stdlib.h>
#include <stdatomic.h>

#define MIN_KEY (-1000)
#define MAX_KEY 1000

typedef struct node {
    int key;
    struct node *next; /* low bit: this node is logically deleted */
} node_t;

static node_t *head, *tail;

#include "fences.h"

static int is_marked(node_t *p)
{
    return (int)((uintptr_t)p & 1);
}

static node_t *marked(node_t *p)
{
    return (node_t *)((uintptr_t)p | 1);
}

static node_t *unmarked(node_t *p)
{
    return (node_t *)((uintptr_t)p & ~(uintptr_t)1);
}

static int cas(node_t **p, node_t *old, node_t *new)
{
    return __atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void init(void)
{
    head = malloc(sizeof *head);
    tail = malloc(sizeof *tail);
    head->key = MIN_KEY;
    tail->key = MAX_KEY;
    tail->next = NULL;
    head->next = tail;
}

static node_t *search(int key, node_t **left_node)
{
    node_t *left_node_next = NULL, *right_node, *t, *t_next;
    while (1) { /* search_again */
        t = head;
        t_next = head->next;
        /* 1: find left_node and right_node */
        do {
            if (!is_marked(t_next)) {
                *left_node = t;
                left_node_next = t_next;
            }
            t = unmarked(t_next);
            if (t == tail)
                break;
            LOAD_LOAD(); /* read the pointer, then the node */
            t_next = t->next;
        } while (is_marked(t_next) || t->key < key);
        right_node = t;
        /* 2: check nodes are adjacent */
        if (left_node_next == right_node) {
            if (right_node != tail && is_marked(right_node->next))
                continue; /* goto search_again */
            return right_node;
        }
        /* 3: remove one or more marked nodes */
        if (cas(&(*left_node)->next, left_node_next, right_node)) {
            if (right_node != tail && is_marked(right_node->next))
                continue; /* goto search_again */
            return right_node;
        }
    }
}

/* 1 if key was added, 0 if it was there already. */
int add(int key)
{
    node_t *new_node = malloc(sizeof *new_node);
    node_t *right_node, *left_node;
    new_node->key = key;
    while (1) {
        right_node = search(key, &left_node);
        if (right_node != tail && right_node->key == key)
            return 0;
        new_node->next = right_node;
        STORE_STORE(); /* initialise the node, then link it */
        if (cas(&left_node->next, right_node, new_node))
            return 1;
    }
}

/* 1 if key was removed, 0 if it was not there. */
int remove(int key)
{
    node_t *right_node, *right_node_next, *left_node;
    while (1) {
        right_node = search(key, &left_node);
        if (right_node == tail || right_node->key != key)
            return 0;
        right_node_next = right_node->next;
        if (!is_marked(right_node_next))
            if (cas(&right_node->next, right_node_next, marked(right_node_next)))
                break;
    }
    if (!cas(&left_node->next, right_node, right_node_next))
        right_node = search(right_node->key, &left_node);
    return 1;
}

/* 1 if key is in the set, else 0. */
int contains(int key)
{
    node_t *right_node, *left_node;
    right_node = search(key, &left_node);
    if (right_node == tail || right_node->key != key)
        return 0;
    return 1;
}
