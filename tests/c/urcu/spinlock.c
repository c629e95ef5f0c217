/* A test-and-set spinlock from liburcu's atomics (<urcu/uatomic.h>): lock = uatomic_xchg(&l, 1)
 * until it returns 0 (a full barrier on every architecture), unlock = cmm_smp_mb() then
 * uatomic_set(&l, 0) (a plain store). Two threads increment a plain counter under it; main
 * checks both increments. WEAKEN drops the barrier before the unlocking store: the counter's
 * store may become visible after the lock's release on pso and weaker, and another thread's
 * increment be lost.
 * pso and rmo (sparc64): uatomic_xchg is liburcu's SPARC `cas` loop, each `cas` between
 * `membar #StoreLoad | #LoadLoad` and `membar #StoreLoad | #StoreStore` (a full barrier in
 * front of the critical section); without the unlock's barrier the counter's store may
 * still be buffered when the lock's 0 reaches memory (pso keeps no store/store order).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DWEAKEN): sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail */
#include <pthread.h>
#include <assert.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>

static int lock;
static int counter;

static void acquire(void) {
  while (uatomic_xchg(&lock, 1))
    caa_cpu_relax();
}

static void release(void) {
#ifndef WEAKEN
  cmm_smp_mb();
#endif
  uatomic_set(&lock, 0);
}

void *worker(void *arg) {
  acquire();
  counter = counter + 1;
  release();
  return arg;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, worker, 0);
  pthread_create(&t2, 0, worker, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(counter == 2);
  return 0;
}
