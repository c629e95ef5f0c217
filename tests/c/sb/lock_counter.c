// expect: sc=S tso=S pso=S power=S arm=S
// A mutex-protected counter: lock acquisition and release order the critical sections
// (glibc's lock is an acquire read-modify-write, unlock a release).
#include <pthread.h>
#include <assert.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int c, d;
void *t(void *a) {
  pthread_mutex_lock(&m);
  c = c + 1;
  d = d + 1;
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t, 0);
  pthread_create(&q, 0, t, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(c == 2 && d == 2);
  return 0;
}
