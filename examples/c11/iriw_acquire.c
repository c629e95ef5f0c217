/* IRIW: two writers, two readers reading the writes in opposite orders with acquire loads.
 * C11 allows it (only seq_cst forbids it); of the hardware, only Power shows it.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=fail arm=safe aarch64=safe
 * why: Power's acquire load is ld;cmp;bc;isync, which orders the two loads but is not
 *      cumulative, and Power stores are not multi-copy atomic. ARMv7's ldr; dmb is
 *      cumulative; the other models are multi-copy atomic and order the loads (RMO: membar
 *      #LoadLoad | #LoadStore after each acquire load; AArch64: ldar).
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int a, b, c, d;

void *w0(void *arg) { atomic_store_explicit(&x, 1, memory_order_relaxed); return 0; }
void *w1(void *arg) { atomic_store_explicit(&y, 1, memory_order_relaxed); return 0; }

void *r0(void *arg) {
  a = atomic_load_explicit(&x, memory_order_acquire);
  b = atomic_load_explicit(&y, memory_order_acquire);
  return 0;
}

void *r1(void *arg) {
  c = atomic_load_explicit(&y, memory_order_acquire);
  d = atomic_load_explicit(&x, memory_order_acquire);
  return 0;
}

int main(void) {
  pthread_t t[4];
  pthread_create(&t[0], 0, w0, 0);
  pthread_create(&t[1], 0, w1, 0);
  pthread_create(&t[2], 0, r0, 0);
  pthread_create(&t[3], 0, r1, 0);
  pthread_join(t[0], 0);
  pthread_join(t[1], 0);
  pthread_join(t[2], 0);
  pthread_join(t[3], 0);
  assert(!(a == 1 && b == 0 && c == 1 && d == 0));
  return 0;
}
