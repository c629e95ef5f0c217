/* Peterson's mutual exclusion with release stores and acquire loads: the classic bug
 * (release/acquire does not order a store before a later load). A thread that would have
 * to wait gives up instead.
 * expect: sc=safe tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=safe
 * expect(--ldapr): aarch64=fail
 * why: nothing orders the store to `turn` before the load of the other flag on x86, SPARC,
 *      Power and ARMv7 (a release store's barrier comes before it, an acquire load's after
 *      it): p0 reads flag1 == 0 early while its turn = 1 is still buffered, then p1 reads
 *      that turn = 1 and enters too. AArch64's stlr; ldar keeps them ordered ([L];po;[A]),
 *      stlr; ldapr does not.
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

#define ORD_ST memory_order_release
#define ORD_LD memory_order_acquire

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
