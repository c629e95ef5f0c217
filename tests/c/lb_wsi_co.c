/* lb_wsi.c's P1: z = 2 may go ahead of z = dep(a), which waits for the read of y, but
 * coherence still orders z = dep(a) before z = 2: z never ends as 1. */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0, z = 0;
int out3 = 0;
void *P0(void *arg) { int a = x; y = 1; return 0; }
void *P1(void *arg) {
  int a = y;
  int t = a ^ a;
  t = t + 1;
  z = t;
  z = 2;
  int b = z;
  x = 1;
  out3 = b;
  return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(z == 2 && out3 == 2);
  return 0;
}
