/* C11 litmus test WRC+rel+acq-rel+acq-acq (weakc litmus-c11; regenerate with scripts/gen-litmus-c11).
 * P0: x = 1 (rel)
 * P1: r0 = x (acq); y = 1 (rel)
 * P2: r1 = y (acq); r2 = x (acq)
 * The assertion fails iff the outcome (r0 == 1 && r1 == 1 && r2 == 0) is reachable.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1, r2;

void *P0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_release);
  return 0;
}

void *P1(void *arg) {
  r0 = atomic_load_explicit(&x, memory_order_acquire);
  atomic_store_explicit(&y, 1, memory_order_release);
  return 0;
}

void *P2(void *arg) {
  r1 = atomic_load_explicit(&y, memory_order_acquire);
  r2 = atomic_load_explicit(&x, memory_order_acquire);
  return 0;
}

int main(void) {
  pthread_t t0, t1, t2;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_create(&t2, 0, P2, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(!(r0 == 1 && r1 == 1 && r2 == 0));
  return 0;
}
