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
/* Load buffering: each thread reads, then writes the location the other one read. */
int x = 0, y = 0;
int r0 = 0, r1 = 0;
void *P0(void *arg) { r0 = x; y = 1; return 0; }
void *P1(void *arg) { r1 = y; x = 1; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, P0, 0);
  pthread_create(&b, 0, P1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 1 && r1 == 1));
  return 0;
}
