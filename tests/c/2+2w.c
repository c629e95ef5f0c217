/* 2+2W: two threads write two locations in opposite orders. */
#include <pthread.h>
#include <assert.h>
int x = 0, y = 0;
void *P0(void *arg) { x = 1; y = 2; return 0; }
void *P1(void *arg) { y = 1; x = 2; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, P0, 0);
  pthread_create(&b, 0, P1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(x == 1 && y == 1));
  return 0;
}
