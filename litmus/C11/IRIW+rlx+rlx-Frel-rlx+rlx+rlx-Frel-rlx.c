/* C11 litmus test IRIW+rlx+rlx-Frel-rlx+rlx+rlx-Frel-rlx (weakc litmus-c11; regenerate with scripts/gen-litmus-c11).
 * P0: x = 1 (rlx)
 * P1: r0 = x (rlx); fence(rel); r1 = y (rlx)
 * P2: y = 1 (rlx)
 * P3: r2 = y (rlx); fence(rel); r3 = x (rlx)
 * The assertion fails iff the outcome (r0 == 1 && r1 == 0 && r2 == 1 && r3 == 0) is reachable.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1, r2, r3;

void *P0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_relaxed);
  return 0;
}

void *P1(void *arg) {
  r0 = atomic_load_explicit(&x, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  r1 = atomic_load_explicit(&y, memory_order_relaxed);
  return 0;
}

void *P2(void *arg) {
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  return 0;
}

void *P3(void *arg) {
  r2 = atomic_load_explicit(&y, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  r3 = atomic_load_explicit(&x, memory_order_relaxed);
  return 0;
}

int main(void) {
  pthread_t t0, t1, t2, t3;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_create(&t2, 0, P2, 0);
  pthread_create(&t3, 0, P3, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  pthread_join(t3, 0);
  assert(!(r0 == 1 && r1 == 0 && r2 == 1 && r3 == 0));
  return 0;
}
