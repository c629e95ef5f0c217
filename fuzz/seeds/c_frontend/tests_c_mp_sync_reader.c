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
/* MP+lwsync+sync with a second reader: P2 reads y with no fence, so y=1 may be seen early
 * (before x=1) by P2. P1's sync after its read of y is A-cumulative (ESOP §2: rfe; sync is
 * safe): once P1 has read y=1, x=1 is visible to it after the sync. Forbidden on Power.
 * With -D OBSERVER_P2 the assertion is about P2 instead, which may see y=1 then x=0. */
int x = 0, y = 0;
int r1 = 0, r2 = 0, r3 = 0, r4 = 0;
void *P0(void *arg) { x = 1; __asm__ __volatile__("lwsync" ::: "memory"); y = 1; return 0; }
void *P1(void *arg) { r1 = y; __asm__ __volatile__("sync" ::: "memory"); r2 = x; return 0; }
void *P2(void *arg) { r3 = y; r4 = x; return 0; }
int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, P0, 0);
  pthread_create(&b, 0, P1, 0);
  pthread_create(&c, 0, P2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
#ifdef OBSERVER_P2
  assert(!(r3 == 1 && r4 == 0));
#else
  assert(!(r1 == 1 && r2 == 0));
#endif
  return 0;
}
