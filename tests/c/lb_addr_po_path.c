/* lb_addr_po.c with the address-dependent write of P0 on one path only (never taken): no
 * write comes after an address-dependent access on every path, so the outcome is allowed. */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0, z = 0, a = 0, c = 0;
int out0 = 0, out1 = 0;
void *P0(void *arg) { int r = x; if (c == 1) *(&y + (r ^ r)) = 1; z = 1; out0 = r; return 0; }
void *P1(void *arg) { int r = z; *(&a + (r ^ r)) = 1; x = 1; out1 = r; return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(out0 == 1 && out1 == 1));
  return 0;
}
