// expect: sc=S tso=S pso=S power=S arm=S
// Store buffering with each write in an atomic section of the program
// (__VERIFIER_atomic_*): weakc takes such a section as a full fence on every route (README,
// conventions), so the writes cannot wait past the reads.
#include <pthread.h>
#include <assert.h>
int x, y, r0, r1;
void __VERIFIER_atomic_w0(void) { x = 1; }
void __VERIFIER_atomic_w1(void) { y = 1; }
void *t0(void *a) { __VERIFIER_atomic_w0(); r0 = y; return 0; }
void *t1(void *a) { __VERIFIER_atomic_w1(); r1 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
