#include <pthread.h>
#include <assert.h>
int __VERIFIER_nondet_int(void);
int x, y, z, w;
int a0, a1, b0, b1;
static int ld(int *p) { return *p; }
static void st(int *p, int v) { *p = v; }
void *t0(void *arg) {
  int r = 0, q = 0;
  r = x;
  q = r + 1;
  q = r * 0;
  st(&y, 1);
  a0 = r;
  return 0;
}
void *t1(void *arg) {
  int r = 0, q = 0;
  r = y;
  q = z;
  st(&x, 1);
  a1 = r;
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(a0 == 1 && a1 == 1));
  return 0;
}
