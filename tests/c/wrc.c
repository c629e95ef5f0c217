/* Write-to-read causality: P1 sees x and writes y; P2 sees y but not x. */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0;
int r0, r1, r2;
void *P0(void *arg) { x = 1; return 0; }
void *P1(void *arg) { r0 = x; y = 1; return 0; }
void *P2(void *arg) { r1 = y; r2 = x; return 0; }
int main(void) {
  pthread_t t0, t1, t2;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_create(&t2, 0, P2, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(!(r0 == 1 && r1 == 1 && r2 == 0));
  return 0;
}
