/* The ticket lock of ticket_lock.c with the hand-over relaxed: the critical sections leak.
 * expect: sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * why: plain loads and stores: the writes in the critical section may pass the store to
 *      `serving` (PSO, RMO, Power, ARM, AArch64), and the reads may happen before the load
 *      of `serving` is satisfied (RMO, Power, ARM, AArch64).
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define ORD_ACQ memory_order_relaxed
#define ORD_REL memory_order_relaxed

atomic_int next, serving;
int x, y, r1, r2;

void *t0(void *arg) {
  int my = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
  if (atomic_load_explicit(&serving, ORD_ACQ) == my) {
    x = 1;
    y = 1;
    atomic_store_explicit(&serving, my + 1, ORD_REL);
  }
  return 0;
}

void *t1(void *arg) {
  int my = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
  if (atomic_load_explicit(&serving, ORD_ACQ) == my) {
    r1 = y;
    r2 = x;
    atomic_store_explicit(&serving, my + 1, ORD_REL);
  }
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r1 == 1 && r2 == 0));
  return 0;
}
