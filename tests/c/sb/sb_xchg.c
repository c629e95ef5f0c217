// expect: sc=S tso=S pso=F power=F arm=F
// Store buffering with the stores as atomic exchanges: x86's `xchg` is a locked
// instruction and orders everything around it; SPARC's `swap` in PSO orders nothing by
// itself (relaxed order: no membar around it), so the later load may pass it.
#include <pthread.h>
#include <assert.h>
int x, y, r0, r1;
void *t0(void *a) { __atomic_exchange_n(&x, 1, __ATOMIC_RELAXED); r0 = y; return 0; }
void *t1(void *a) { __atomic_exchange_n(&y, 1, __ATOMIC_RELAXED); r1 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
