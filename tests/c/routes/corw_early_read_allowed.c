/* corw_early_read.c's allowed twin: p1 reads z = 2 early and its z = 1 comes after it in coherence (z ends 1), while p2 sees x = 1 before z = 2 (MP): allowed on Power and ARM. */
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
  assert(!(a == 2 && b == 1 && c == 0 && z == 1));
  return 0;
}
