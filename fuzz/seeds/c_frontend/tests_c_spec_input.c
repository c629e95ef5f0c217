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
/* MP+lwsync whose reader branches on a value computed from the delayed read and an older
 * value of the same variable (`r = r + t`): the guess the branch takes must not replace the
 * input the waiting statement computes from. PROP selects the property (see
 * tests/delayed_reads.rs): the weak outcome (t = 1, branch taken, x read early) is allowed on
 * Power and ARM; r = 1 with t = 0 is never possible. */
int x, y, b;
int r1, r2, tt;
void *writer(void *a) { x = 1; __asm__ __volatile__("lwsync" ::: "memory"); y = 1; return 0; }
void *reader(void *a) {
  int r = b;
  int t = y;
  r = r + t;
  if (r == 1) { r2 = x; }
  else r2 = 1;
  r1 = r; tt = t;
  return 0;
}
int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, writer, 0);
  pthread_create(&t1, 0, reader, 0);
  pthread_join(t0, 0); pthread_join(t1, 0);
#ifdef WEAK
  assert(!(r1 == 1 && r2 == 0 && tt == 1));
#else
  assert(!(r1 == 1 && tt == 0));
#endif
  return 0;
}
