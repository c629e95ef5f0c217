/* CoRW after an early read: p0's z = 2 is buffered past x = 1 (the MP of p2); p1 reads it from the buffer, then writes z = 1, which is coherence-after what it read, so z cannot end 2. Forbidden on every model. */
#include <pthread.h>
#include <assert.h>
int x, z;
int a, b, c, d;
void *p0(void *arg) { z = 2; x = 1; return 0; }
void *p1(void *arg) { a = z; z = 1; return 0; }
void *p2(void *arg) { b = x; c = z; return 0; }
int main(void) {
  pthread_t t0, t1, t2;
  pthread_create(&t0, 0, p0, 0);
  pthread_create(&t1, 0, p1, 0);
  pthread_create(&t2, 0, p2, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(!(a == 2 && b == 1 && c == 0 && z == 2));
  return 0;
}
