// expect: sc=S tso=S pso=F power=F arm=F
// Message passing whose data write goes through a pointer (to data or to z): PSO may let
// the flag overtake it.
#include <pthread.h>
#include <assert.h>
int data, z, flag, r0, r1;
int __VERIFIER_nondet_int(void);
void *t0(void *a) { int *p = __VERIFIER_nondet_int() ? &data : &z; *p = 1; flag = 1; return 0; }
void *t1(void *a) { r0 = flag; r1 = data; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(r0 == 1 && r1 == 0 && z == 0));
  return 0;
}
