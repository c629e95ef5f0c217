/* C11 litmus test LB+acq-rlx+sc-sc (weakc litmus-c11; regenerate with scripts/gen-litmus-c11).
 * P0: r0 = x (acq); y = 1 (rlx)
 * P1: r1 = y (sc); x = 1 (sc)
 * The assertion fails iff the outcome (r0 == 1 && r1 == 1) is reachable.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1;

void *P0(void *arg) {
  r0 = atomic_load_explicit(&x, memory_order_acquire);
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  return 0;
}

void *P1(void *arg) {
  r1 = atomic_load_explicit(&y, memory_order_seq_cst);
  atomic_store_explicit(&x, 1, memory_order_seq_cst);
  return 0;
}

int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(!(r0 == 1 && r1 == 1));
  return 0;
}
