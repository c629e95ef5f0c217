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
/* Store buffering (Dekker's core): each thread writes its flag, then reads the other's. */
int x = 0, y = 0;
int r0 = 0, r1 = 0;
void *P0(void *arg) { x = 1; r0 = y; return 0; }
void *P1(void *arg) { y = 1; r1 = x; return 0; }
int main(void) {
  pthread_t t0, t1;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
