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
/* LB whose first thread checks its read with an assertion before its store. glibc's
 * assert() is a branch: on Power, ARM and AArch64 the store then depends on the read
 * (control dependency) and the other thread's control dependency closes the cycle, so the
 * assertion holds. __VERIFIER_assert (-D VERIFIER) is a property, not code: nothing depends
 * on it, the store may go first and the read see 1 (Dat3M's verifierAssert.c). RMO orders
 * no read before a store through a control dependency: both fail there. */
extern void __VERIFIER_assert(int);
int x, y;
void *t1(void *a) {
  int r = x;
#ifdef VERIFIER
  __VERIFIER_assert(r == 0);
#else
  assert(r == 0);
#endif
  y = 1;
  return 0;
}
void *t2(void *a) {
  int r = y;
  if (r == 1) x = 1;
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
