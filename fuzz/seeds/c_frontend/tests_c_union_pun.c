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
/* Reading a union's int member after writing its short member (Dat3M's mixed-local1.c,
 * little-endian): the int is 0x10000, so the assertion holds; with -D WRONG it is violated.
 * weakc's engine does not model bytes: either verdict would be a guess, so it says UNKNOWN. */
union { int as_int; short as_short; } x;
int main(void) {
  x.as_int = 0x1e240;
  x.as_short = 0;
#ifdef WRONG
  assert(x.as_int != 0x10000);
#else
  assert(x.as_int == 0x10000);
#endif
  return 0;
}
