/* Store buffering (Dekker's core) with release stores and acquire loads: C11 allows both
 * loads to read 0, and so does the hardware, except AArch64 with LDAR (RCsc: an STLR is
 * ordered before a later LDAR); with LDAPR (--ldapr) AArch64 allows it too.
 * expect: sc=safe tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=safe
 * expect(--ldapr): aarch64=fail
 * why: x86 mov/mov (W->R relaxed by the store buffer); SPARC and Power barriers before a
 *      release store and after an acquire load order nothing between them; ARMv7 dmb; str
 *      then ldr; dmb: nothing between the str and the ldr.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1;

void *t0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_release);
  r0 = atomic_load_explicit(&y, memory_order_acquire);
  return 0;
}

void *t1(void *arg) {
  atomic_store_explicit(&y, 1, memory_order_release);
  r1 = atomic_load_explicit(&x, memory_order_acquire);
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
