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
  x = 1;
  w = 1;
  __atomic_store_n(&w, 1, __ATOMIC_RELEASE);
  y = 1;
  return 0;
}
void *t1(void *arg) {
  int r = 0, q = 0;
  y = 2;
  __sync_synchronize();
  r = x;
  a1 = r;
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t0, 0);
  pthread_create(&b, 0, t1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(y == 2 && a1 == 0));
  return 0;
}
