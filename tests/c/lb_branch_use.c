/* LB where P1 uses its read of y inside a branch on an unrelated value (found by
 * scripts/fuzz-routes on aarch64): the copy into z waits with the read where its arm runs,
 * and the later store of x depends on neither the read nor the branch's outcome, so it may
 * go out before y is read. Allowed on Power, ARM and AArch64; forbidden on TSO. */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0, z = 0, q = 0;
int out0 = 0, out1 = 0;
void *P0(void *arg) { int a = x; y = 1; out0 = a; return 0; }
void *P1(void *arg) {
  int r = y;
  if (q == 0) { z = r; }
  x = 1;
  out1 = r;
  return 0; }
int main(void) {
  pthread_t p, t;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&t, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(t, 0);
  assert(!(out0 == 1 && out1 == 1));
  return 0;
}
