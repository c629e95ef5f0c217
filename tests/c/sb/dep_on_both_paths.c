// expect: sc=S tso=S pso=S rmo=S aarch64=S power=S arm=S
/* As dep_on_one_path.c, but the branch only adds to `s`: the store depends on the read of y
 * on both paths, the store cannot go first, and 42 is never read. */
#include <pthread.h>
#include <assert.h>
int __VERIFIER_nondet_int(void);
int x, y, u;
void *t1(void *arg) {
  int r = __VERIFIER_nondet_int();
  int s = y;
  u = s;
  if (r)
    s = s + 42;
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
