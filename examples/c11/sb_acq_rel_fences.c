/* Store buffering with acq_rel fences: C11 allows both loads to read 0 (only seq_cst
 * fences order a store before a later load).
 * expect: sc=safe tso=fail pso=safe rmo=safe power=fail arm=safe aarch64=safe
 * why: acq_rel fences compile to nothing on x86 (the store buffer remains), lwsync on
 *      Power (does not order W->R), but to a full membar on SPARC (GCC) and dmb ish on
 *      ARMv7 and AArch64, which do.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

atomic_int x, y;
int r0, r1;

void *t0(void *arg) {
  atomic_store_explicit(&x, 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_acq_rel);
  r0 = atomic_load_explicit(&y, memory_order_relaxed);
  return 0;
}

void *t1(void *arg) {
  atomic_store_explicit(&y, 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_acq_rel);
  r1 = atomic_load_explicit(&x, memory_order_relaxed);
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
