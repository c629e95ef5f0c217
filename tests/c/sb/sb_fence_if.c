// expect: sc=S tso=F pso=F power=F arm=F
// The fences sit on a branch that need not be taken: on the path that skips them the
// writes still wait in the buffers (a chain of clock constraints through the fence that
// did not run must not order them).
#include <pthread.h>
#include <assert.h>
int x, y, r0, r1;
int __VERIFIER_nondet_int(void);
void *t0(void *a) { x = 1; if (__VERIFIER_nondet_int()) __sync_synchronize(); r0 = y; return 0; }
void *t1(void *a) { y = 1; if (__VERIFIER_nondet_int()) __sync_synchronize(); r1 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
