// expect: sc=S tso=S pso=S power=S arm=S
// A write through a pointer that may point to x, then a write to x: when it does, the two
// are one address and keep their order on PSO too (coherence through a symbolic address).
#include <pthread.h>
#include <assert.h>
int x, z, a0, b0;
int __VERIFIER_nondet_int(void);
void *t0(void *a) { int *p = __VERIFIER_nondet_int() ? &x : &z; *p = 1; x = 2; return 0; }
void *t1(void *a) { a0 = x; b0 = x; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(a0 == 2 && b0 == 1));
  return 0;
}
