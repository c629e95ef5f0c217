/* C11 litmus test SB+rlx-Facq-rlx+rlx-Facq-rlx (weakc litmus-c11; regenerate with scripts/gen-litmus-c11).
 * P0: x = 1 (rlx); fence(acq); r0 = y (rlx)
 * P1: y = 1 (rlx); fence(acq); r1 = x (rlx)
 * The assertion fails iff the outcome (r0 == 0 && r1 == 0) is reachable.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1;

void *P0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  r0 = atomic_load_explicit(&y, memory_order_relaxed);
  return 0;
}

void *P1(void *arg) {
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  r1 = atomic_load_explicit(&x, memory_order_relaxed);
  return 0;
}

int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
