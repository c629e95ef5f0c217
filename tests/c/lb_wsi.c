/* LB+data+data-wsi-rfi-ctrl (herd, ARM): P1's store z = dep(a) waits for its read of y,
 * but its later z = 2 (which the read of z takes by forwarding, then branches on) need not:
 * x = 1 may go out before y is read. Coherence still puts z = dep(a) before z = 2, so z
 * ends as 2 (see lb_wsi_co.c). Allowed on ARM and Power. */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0, z = 0;
int out0 = 0, out1 = 0, out3 = 0;
void *P0(void *arg) { int a = x; y = a ^ a ^ 1; out1 = a; return 0; }
void *P1(void *arg) {
  int a = y;
  int t = a ^ a;
  t = t + 1;
  z = t;
  z = 2;
  int b = z;
  if (b != b) goto out;
out:
  x = 1;
  out0 = a;
  out3 = b;
  return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(!(z == 2 && out0 == 1 && out1 == 1 && out3 == 2));
  return 0;
}
