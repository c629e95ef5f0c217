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
/* ESOP's mix027 (PodWR Fre PodWW Wse PodWR Fre PodWW Wse): two write-write pairs whose
   second writes are coherence-before other threads' writes. With lwsync on both PodWW pairs
   herd's ppc.cat allows the cycle (lwsync does not propagate through coherence), and a sync
   on only one of them does not forbid it either: every pair needs a sync. */
int a = 0, x = 0, y = 0, z = 0;
int r1 = 0, r3 = 0, r4 = 0;
void *P0(void *arg) { a = 1; x = 1; return 0; }
void *P1(void *arg) { x = 2; r1 = y; return 0; }
void *P2(void *arg) { y = 1; z = 1; return 0; }
void *P3(void *arg) { z = 2; r3 = z; r4 = a; return 0; }
int main(void) {
  pthread_t t0, t1, t2, t3;
  pthread_create(&t0, 0, P0, 0);
  pthread_create(&t1, 0, P1, 0);
  pthread_create(&t2, 0, P2, 0);
  pthread_create(&t3, 0, P3, 0);
  pthread_join(t0, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  pthread_join(t3, 0);
  assert(!(x == 2 && z == 2 && r1 == 0 && r3 == 2 && r4 == 0));
  return 0;
}
