// expect: sc=S tso=S pso=F power=F arm=F
// flags: --no-unwinding-assertions --unwind 3
// Message passing with a spinning reader: PSO lets the flag overtake the data, so the
// reader leaves its loop and still reads the old data.
#include <pthread.h>
#include <assert.h>
int data, flag;
void *t0(void *a) { data = 1; flag = 1; return 0; }
void *t1(void *a) {
  while (flag == 0) { }
  assert(data == 1);
  return 0;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t0, 0);
  pthread_create(&q, 0, t1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  return 0;
}
