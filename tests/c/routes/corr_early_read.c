/* CoRR after an early read: p1 reads p0's buffered z = 2, then z again; the second read cannot see the initial value, which is coherence-before the write the first one read. Forbidden on every model. */
#include <pthread.h>
#include <assert.h>
int x, z;
int a, b, c, d;
void *p0(void *arg) { z = 2; x = 1; return 0; }
void *p1(void *arg) { a = z; d = z; return 0; }
void *p2(void *arg) { b = x; c = z; return 0; }
int main(void) {
  pthread_t t0, t1, t2;
  pthread_create(&t0, 0, p0, 0);
  pthread_create(&t1, 0, p1, 0);
  pthread_create(&t2, 0, p2, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(!(a == 2 && d == 0 && b == 1 && c == 0));
  return 0;
}
