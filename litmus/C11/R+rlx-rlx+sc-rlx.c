/* C11 litmus test R+rlx-rlx+sc-rlx (weakc litmus-c11; regenerate with scripts/gen-litmus-c11).
 * P0: x = 1 (rlx); y = 1 (rlx)
 * P1: y = 2 (sc); r0 = x (rlx)
 * The assertion fails iff the outcome (fy == 2 && r0 == 0) is reachable.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0;

void *P0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_relaxed);
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  return 0;
}

void *P1(void *arg) {
  atomic_store_explicit(&y, 2, memory_order_seq_cst);
  r0 = atomic_load_explicit(&x, memory_order_relaxed);
  return 0;
}

int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  int fy = atomic_load_explicit(&y, memory_order_relaxed);
  assert(!(fy == 2 && r0 == 0));
  return 0;
}
