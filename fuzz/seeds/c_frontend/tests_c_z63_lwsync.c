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
/* Z6.3+lwsync+lwsync+addr (the ESOP suite's bclwdww003): P1 writes x, lwsync, y = 1; P2
   writes y = 2, lwsync, z; P0 reads z, then x through an address dependency. The outcome
   y == 2 (P1's y first in coherence) with r1 == 1 and r2 == 0 is allowed by herd's ppc.cat
   with the two lwsyncs and forbidden with two syncs; one sync is not enough. */
int x = 0, y = 0, z = 0;
int r1 = 0, r2 = 0;
void *P0(void *arg) { int a = z; int b = *(&x + (a ^ a)); r1 = a; r2 = b; return 0; }
void *P1(void *arg) { x = 1; asm volatile("lwsync" ::: "memory"); y = 1; return 0; }
void *P2(void *arg) { y = 2; asm volatile("lwsync" ::: "memory"); z = 1; return 0; }
int main(void) {
  pthread_t t0, t1, t2;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_create(&t2, 0, P2, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  assert(!(y == 2 && r1 == 1 && r2 == 0));
  return 0;
}
