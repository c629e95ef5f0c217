/* Store buffering with seq_cst stores and loads: correct C11 (Dekker).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(--ldapr): aarch64=safe
 * why: x86 mov; mfence after the store; SPARC a full membar after the store; Power hwsync
 *      before the load; ARMv7 dmb after the store; AArch64 stlr then ldar ([L];po;[A]).
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1;

void *t0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_seq_cst);
  r0 = atomic_load_explicit(&y, memory_order_seq_cst);
  return 0;
}

void *t1(void *arg) {
  atomic_store_explicit(&y, 1, memory_order_seq_cst);
  r1 = atomic_load_explicit(&x, memory_order_seq_cst);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(r0 == 1 || r1 == 1);
  return 0;
}
