/* POSIX named semaphores (sem_open): the producer and the consumer each open "/ready",
 * whoever comes first creating it at 0; the data is written, then posted; the consumer
 * waits for the post and must see the data (a post is a release, a wait an acquire, as for
 * sem_init's semaphores: examples/c11/semaphore.c). sem_open is one atomic step of the
 * kernel's, so exactly one of them creates the semaphore and both get the same one.
 * EXCL: both open with O_CREAT | O_EXCL and assert they got it: the second fails with
 * EEXIST (SEM_FAILED), on every architecture. NOCREATE: the consumer opens without O_CREAT
 * and gives up when the name does not exist yet (ENOENT): still safe. UNLINK: the
 * producer unlinks the name after posting; with NOCREATE the consumer's open then fails
 * or gets the posted semaphore: safe. UNLINK alone: a consumer opening after the unlink
 * creates a second semaphore, at 0, and waits for good: still safe. RECREATE: main opens
 * "/gate" at 0; a thread unlinks the name and creates it again at 1; the old semaphore is
 * another one and stays at 0, so a sem_trywait on main's handle fails: safe (a model
 * with one semaphore per name would give the new count to the old handle, and fail).
 * SEEN: one thread creates "/one" at 1, another opens it without O_CREAT; when it gets it,
 * it sees the count 1 and its sem_trywait succeeds: safe (sem_open is a system call, a
 * full barrier: no architecture shows the name before the count).
 * expect: sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DEXCL): sc=fail tso=fail pso=fail rmo=fail power=fail arm=fail aarch64=fail
 * expect(-DNOCREATE): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DUNLINK): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DSEEN): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DRECREATE): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * expect(-DUNLINK -DNOCREATE): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>

int data;

#ifdef EXCL
#define OPEN_FLAGS (O_CREAT | O_EXCL)
#else
#define OPEN_FLAGS O_CREAT
#endif

void *producer(void *arg) {
  sem_t *s = sem_open("/ready", OPEN_FLAGS, 0600, 0);
  assert(s != SEM_FAILED);
  if (s == SEM_FAILED)
    return 0;
  data = 42;
  sem_post(s);
#ifdef UNLINK
  assert(sem_unlink("/ready") == 0);
#endif
  sem_close(s);
  return 0;
}

void *consumer(void *arg) {
#ifdef NOCREATE
  sem_t *s = sem_open("/ready", 0);
  if (s == SEM_FAILED)
    return 0;
#else
  sem_t *s = sem_open("/ready", OPEN_FLAGS, 0600, 0);
  assert(s != SEM_FAILED);
  if (s == SEM_FAILED)
    return 0;
#endif
  sem_wait(s);
  assert(data == 42);
  sem_close(s);
  return 0;
}

#ifdef SEEN
void *create_one(void *arg) {
  sem_open("/one", O_CREAT, 0600, 1);
  return 0;
}
void *open_one(void *arg) {
  sem_t *s = sem_open("/one", 0);
  if (s != SEM_FAILED)
    assert(sem_trywait(s) == 0);
  return 0;
}
#endif

#ifdef RECREATE
void *recreate(void *arg) {
  if (sem_unlink("/gate") == 0)
    sem_open("/gate", O_CREAT, 0600, 1);
  return 0;
}
#endif

int main(void) {
  pthread_t a, b;
#ifdef SEEN
  pthread_t c, d;
  pthread_create(&c, 0, create_one, 0);
  pthread_create(&d, 0, open_one, 0);
#endif
#ifdef RECREATE
  pthread_t c;
  sem_t *old = sem_open("/gate", O_CREAT, 0600, 0);
  pthread_create(&c, 0, recreate, 0);
  assert(sem_trywait(old) != 0);
  pthread_join(c, 0);
  assert(sem_trywait(old) != 0);
#endif
  pthread_create(&a, 0, producer, 0);
  pthread_create(&b, 0, consumer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
