/* liburcu's lock-free stack (<urcu/lfstack.h> with _LGPL_SOURCE: the static inline
 * implementation): a producer initialises a node and pushes it (uatomic_cmpxchg, a full
 * barrier on every architecture: x86 `lock cmpxchg`, Power `lwsync; ldarx/stdcx. loop; sync`,
 * ARM and AArch64 `__sync_val_compare_and_swap_8`); a consumer pops it (__cds_lfs_pop, its
 * only popper) and reads the node through caa_container_of. BROKEN publishes the node with a
 * plain store instead ("there is only one pusher"): the node's value may not have reached the
 * consumer when the head has, on pso and weaker (the consumer's loads are ordered by the
 * address dependency, and by its own cmpxchg).
 * pso and rmo (sparc64): the push is liburcu's SPARC `cas` between `membar #StoreLoad |
 * #LoadLoad` and `membar #StoreLoad | #StoreStore`, which orders the node's initialisation
 * before it; BROKEN's plain store does not (pso keeps no store/store order).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DBROKEN): sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail */
#define _LGPL_SOURCE
#include <pthread.h>
#include <assert.h>
#include <stddef.h>
#include <urcu/lfstack.h>

struct item {
  int v;
  struct cds_lfs_node node;
};

struct __cds_lfs_stack s;
struct item a;

void *producer(void *arg) {
  a.v = 42;
  cds_lfs_node_init(&a.node);
#ifdef BROKEN
  a.node.next = s.head ? &s.head->node : NULL;
  CMM_STORE_SHARED(s.head, (struct cds_lfs_head *) &a.node);
#else
  cds_lfs_push(&s, &a.node);
#endif
  return arg;
}

void *consumer(void *arg) {
  struct cds_lfs_node *n = __cds_lfs_pop(&s);
  if (n) {
    struct item *it = caa_container_of(n, struct item, node);
    assert(it->v == 42);
  }
  return arg;
}

int main(void) {
  pthread_t p, c;
  __cds_lfs_init(&s);
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
