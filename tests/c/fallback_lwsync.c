/* Message passing with lwsync and sync on Power (forbidden), with a third thread that makes
   more than one critical cycle: with --max-cycles 1 --selection-timeout 0 the selection falls
   back to every relaxable pair on a cycle, which keeps what lwsync orders (tests/lazy.rs). */
#include <pthread.h>
#include <assert.h>
int x, y, z, r1, r2, r3;
void *t0(void *a) {
  x = 1;
  __asm__ __volatile__("lwsync" ::: "memory");
  y = 1;
  return 0;
}
void *t1(void *a) {
  r1 = y;
  __asm__ __volatile__("sync" ::: "memory");
  r2 = x;
  z = 1;
  return 0;
}
void *t2(void *a) {
  z = 2;
  r3 = y;
  x = 3;
  return 0;
}
int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_create(&c, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  assert(!(r1 == 1 && r2 == 0));
  return 0;
}
