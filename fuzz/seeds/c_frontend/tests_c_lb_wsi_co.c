typedef unsigned long pthread_t;
typedef struct { int lock; } pthread_mutex_t;
int pthread_create(pthread_t *t, void *attr, void *(*f)(void *), void *arg);
int pthread_join(pthread_t t, void **ret);
int pthread_mutex_lock(pthread_mutex_t *m);
int pthread_mutex_unlock(pthread_mutex_t *m);
void assert(int c);
void __VERIFIER_assume(int c);
int __VERIFIER_nondet_int(void);
double __VERIFIER_nondet_double(void);
/* lb_wsi.c's P1: z = 2 may go ahead of z = dep(a), which waits for the read of y, but
 * coherence still orders z = dep(a) before z = 2: z never ends as 1. */
int x = 0, y = 0, z = 0;
int out3 = 0;
void *P0(void *arg) { int a = x; y = 1; return 0; }
void *P1(void *arg) {
  int a = y;
  int t = a ^ a;
  t = t + 1;
  z = t;
  z = 2;
  int b = z;
  x = 1;
  out3 = b;
  return 0; }
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, P0, 0);
  pthread_create(&q, 0, P1, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  assert(z == 2 && out3 == 2);
  return 0;
}
