/* Peterson's mutual exclusion with seq_cst atomics: correct. A thread that would have to
 * wait gives up instead (no exit protocol: both never enter).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: every store is followed (x86, SPARC, ARMv7) or every load preceded (Power hwsync)
 *      by a full barrier; AArch64 stlr/ldar keep [L];po;[A].
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define ORD_ST memory_order_seq_cst
#define ORD_LD memory_order_seq_cst

atomic_int flag0, flag1, turn;
int in0, in1;

void *p0(void *arg) {
  atomic_store_explicit(&flag0, 1, ORD_ST);
  atomic_store_explicit(&turn, 1, ORD_ST);
  if (atomic_load_explicit(&flag1, ORD_LD) == 1 && atomic_load_explicit(&turn, ORD_LD) == 1)
    return 0;
  in0 = 1;
  return 0;
}

void *p1(void *arg) {
  atomic_store_explicit(&flag1, 1, ORD_ST);
  atomic_store_explicit(&turn, 0, ORD_ST);
  if (atomic_load_explicit(&flag0, ORD_LD) == 1 && atomic_load_explicit(&turn, ORD_LD) == 0)
    return 0;
  in1 = 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, p0, 0);
  pthread_create(&b, 0, p1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(in0 && in1));
  return 0;
}
