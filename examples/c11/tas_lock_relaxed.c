/* The test-and-set spinlock of tas_lock.c with relaxed orders: the critical sections leak.
 * expect: sc=safe tso=safe pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * why: x86's xchg is a full barrier and TSO keeps W->W and R->R; elsewhere a relaxed
 *      exchange and a relaxed store order nothing (SPARC without membar, Power without
 *      isync/lwsync, ARM without dmb, AArch64 ldxr/stxr and str).
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define ORD_LOCK memory_order_relaxed
#define ORD_UNLOCK memory_order_relaxed

atomic_flag lock = ATOMIC_FLAG_INIT;
int x, y, r1, r2;

void *t0(void *arg) {
  if (!atomic_flag_test_and_set_explicit(&lock, ORD_LOCK)) {
    x = 1;
    y = 1;
    atomic_flag_clear_explicit(&lock, ORD_UNLOCK);
  }
  return 0;
}

void *t1(void *arg) {
  if (!atomic_flag_test_and_set_explicit(&lock, ORD_LOCK)) {
    r1 = y;
    r2 = x;
    atomic_flag_clear_explicit(&lock, ORD_UNLOCK);
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
