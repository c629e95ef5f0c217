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
/* Message passing: the writer publishes data then a flag; the reader sees the flag, then data. */
int data = 0, flag = 0;
int r0 = 0, r1 = 0;
void *writer(void *arg) { data = 1; flag = 1; return 0; }
void *reader(void *arg) { r0 = flag; r1 = data; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(!(r0 == 1 && r1 == 0));
  return 0;
}
