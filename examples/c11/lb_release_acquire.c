/* Load buffering with acquire loads and release stores: correct C11.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: the acquire load is ordered before the later store (RMO membar #LoadLoad|#LoadStore,
 *      Power ctrl+isync, ARMv7 dmb, AArch64 ldar).
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1;

void *t0(void *arg) {
  r0 = atomic_load_explicit(&x, memory_order_acquire);
  atomic_store_explicit(&y, 1, memory_order_release);
  return 0;
}

void *t1(void *arg) {
  r1 = atomic_load_explicit(&y, memory_order_acquire);
  atomic_store_explicit(&x, 1, memory_order_release);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 1 && r1 == 1));
  return 0;
}
