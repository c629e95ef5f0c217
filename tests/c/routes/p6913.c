#include <pthread.h>
#include <assert.h>
int __VERIFIER_nondet_int(void);
int x, y, z, w;
int a0, a1, b0, b1;
static int ld(int *p) { return *p; }
static void st(int *p, int v) { *p = v; }
int arr[2];
void *t0(void *arg) {
  int r = 0, q = 0;
  x = 2;
  q = __atomic_load_n(&z, __ATOMIC_ACQUIRE);
  st(&y, 1);
  return 0;
}
void *t1(void *arg) {
  int r = 0, q = 0;
  r = y;
  if (q == 0) { w = r; }
  if (q == 0) { z = r; }
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
  assert(!(a1 == 1 && x == 2));
  return 0;
}
