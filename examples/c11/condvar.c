/* Condition variables. Default: a producer fills a slot and sets `ready` under the mutex and
 * signals; the consumer waits with the canonical `while (!ready) pthread_cond_wait(&c, &m);`
 * and reads the slot under the mutex. glibc's wait unlocks the mutex (a release) and takes
 * it again with the lock's acquire CAS, so the slot is seen on every architecture. The loop
 * is a condition-wait loop: entered at most twice whatever --unwind, so the verdict is a
 * proof, not a bound. TIMED: pthread_cond_timedwait, giving up on ETIMEDOUT (the consumer
 * then reads nothing): the same answer. OUTSIDE: the producer writes the slot after setting
 * `ready` and unlocking, so the consumer can read it first, even under SC. UNLOCKED: the
 * producer publishes without the mutex (slot, then a relaxed store of `ready`), and the
 * consumer still waits under it: the two stores can be reordered on PSO, RMO, Power, ARM and
 * AArch64 (a relaxed store is a plain one), while x86 keeps them in order.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DTIMED): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DOUTSIDE): sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * expect(-DTIMED -DOUTSIDE): sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * expect(-DUNLOCKED): sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
atomic_int ready;
int slot;

void *producer(void *arg) {
#if defined(UNLOCKED)
  slot = 42;
  atomic_store_explicit(&ready, 1, memory_order_relaxed);
  pthread_cond_signal(&c);
#else
  pthread_mutex_lock(&m);
#ifndef OUTSIDE
  slot = 42;
#endif
  atomic_store_explicit(&ready, 1, memory_order_relaxed);
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
#ifdef OUTSIDE
  slot = 42;
#endif
#endif
  return 0;
}

void *consumer(void *arg) {
  pthread_mutex_lock(&m);
#ifdef TIMED
  struct timespec deadline = { 1, 0 };
  while (!atomic_load_explicit(&ready, memory_order_relaxed)) {
    int rc = pthread_cond_timedwait(&c, &m, &deadline);
    if (rc == ETIMEDOUT)
      break;
  }
#else
  while (!atomic_load_explicit(&ready, memory_order_relaxed))
    pthread_cond_wait(&c, &m);
#endif
  if (atomic_load_explicit(&ready, memory_order_relaxed))
    assert(slot == 42);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&q, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  return 0;
}
