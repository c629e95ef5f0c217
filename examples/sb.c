/* Store buffering (Dekker's core): each thread writes its flag, then reads the other's. */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0;
int r0 = 0, r1 = 0;
void *P0(void *arg) { x = 1; r0 = y; return 0; }
void *P1(void *arg) { y = 1; r1 = x; return 0; }
int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
