// expect: sc=S tso=S pso=S rmo=F aarch64=F power=F arm=F
/* The store of `s` to x depends on the read of y only where the branch is not taken: the
 * dependency holds under a condition. Where `s` is redefined the store may go before the
 * read (RMO, AArch64), thread 2 copies x into y, and the read sees 42. Claiming the
 * dependency on both paths would hide this. */
#include <pthread.h>
#include <assert.h>
int __VERIFIER_nondet_int(void);
int x, y, u;
void *t1(void *arg) {
  int r = __VERIFIER_nondet_int();
  int s = y;
  u = s;
  if (r)
    s = 42;
  x = s;
  return 0;
}
void *t2(void *arg) {
  y = x;
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(u != 42);
  return 0;
}
