/* POSIX semaphores. Default: message passing, data written then sem_post; the consumer's
 * sem_wait returns only after that post, and a post is a release, a wait an acquire (glibc:
 * atomic_fetch_add_release, an acquire compare-and-swap): the data is seen on every
 * architecture. TRY: the consumer uses sem_trywait instead and reads the data only when it
 * succeeded (same answer); TIMED: sem_timedwait, likewise. COUNT=N: the semaphore starts at N and guards a counter that two
 * workers increment: with N=1 it is a mutex and both increments survive; with N=2 both
 * workers enter together and one increment can be lost, on every architecture.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DTRY): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DTIMED): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DCOUNT=1): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DCOUNT=2): sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

sem_t s;
int data, counter;

#ifdef COUNT
void *worker(void *arg) {
  sem_wait(&s);
  counter = counter + 1;
  sem_post(&s);
  return 0;
}
#define T0 worker
#define T1 worker
#define INIT COUNT
#else
void *producer(void *arg) {
  data = 42;
  sem_post(&s);
  return 0;
}
void *consumer(void *arg) {
#if defined(TRY)
  if (sem_trywait(&s) == 0)
    assert(data == 42);
#elif defined(TIMED)
  struct timespec deadline = { 1, 0 };
  if (sem_timedwait(&s, &deadline) == 0)
    assert(data == 42);
#else
  sem_wait(&s);
  assert(data == 42);
#endif
  return 0;
}
#define T0 producer
#define T1 consumer
#define INIT 0
#endif

int main(void) {
  pthread_t a, b;
  sem_init(&s, 0, INIT);
  pthread_create(&a, 0, T0, 0);
  pthread_create(&b, 0, T1, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
#ifdef COUNT
  assert(counter == 2);
  int v;
  sem_getvalue(&s, &v);
  assert(v == COUNT);
#endif
  return 0;
}
