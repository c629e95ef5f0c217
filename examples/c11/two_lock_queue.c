/* The Michael-Scott two-lock queue (PODC 1996) with pthread mutexes and a dummy node,
 * nodes from a static pool (never freed): the producer initialises a node, then links it
 * under the tail lock; the consumer dequeues under the head lock and must see the value
 * the node was initialised with. two_lock_mp.c is its distilled form. -D RELEASE_FENCE is
 * the fix: a release fence between the node's initialisation and the tail lock.
 * expect: sc=safe tso=safe pso=safe rmo=safe power=fail arm=safe aarch64=fail
 * expect(--locks full): power=safe aarch64=safe
 * expect(-D RELEASE_FENCE): sc=safe tso=safe pso=safe rmo=safe power=safe arm=safe aarch64=safe
 * why: the threads share no lock, so only the producer's lock can order the initialisation
 *      before the link (glibc: lock = atomic exchange + acquire barrier). x86's locked
 *      instruction and SPARC's membar after the cas are full barriers, ARMv7's dmb after
 *      the ldrex/strex loop orders the earlier stores before the link; Power's isync after
 *      the lwarx/stwcx. loop does not order an earlier store, nor AArch64's ldaxr. The
 *      consumer's loads of next and value are ordered by the address dependency
 *      (new_head->value) on every architecture. The release fence is lwsync on Power, dmb
 *      ish on ARMv7 and AArch64, a membar on SPARC and nothing on x86 (stores stay in
 *      order). Initialising the node inside the tail lock instead is no fix: the two stores
 *      of the critical section stay unordered on PSO, RMO, Power, ARM and AArch64. (In C11
 *      terms the node's fields are still plain data read under another lock; a race-free
 *      queue makes next atomic, stored with release and loaded with acquire.)
 */
#include <stdatomic.h>
#include <pthread.h>
#include <assert.h>

struct node {
  int value;
  struct node *next;
};

struct node pool[2]; /* pool[0] is the dummy */
struct node *head, *tail;
pthread_mutex_t head_lock = PTHREAD_MUTEX_INITIALIZER, tail_lock = PTHREAD_MUTEX_INITIALIZER;

void enqueue(struct node *node, int value) {
  node->value = value;
  node->next = 0;
#ifdef RELEASE_FENCE
  atomic_thread_fence(memory_order_release);
#endif
  pthread_mutex_lock(&tail_lock);
  tail->next = node;
  tail = node;
  pthread_mutex_unlock(&tail_lock);
}

int dequeue(int *pvalue) {
  pthread_mutex_lock(&head_lock);
  struct node *node = head;
  struct node *new_head = node->next;
  if (new_head == 0) {
    pthread_mutex_unlock(&head_lock);
    return 0;
  }
  *pvalue = new_head->value;
  head = new_head;
  pthread_mutex_unlock(&head_lock);
  return 1;
}

void *producer(void *arg) {
  enqueue(&pool[1], 42);
  return 0;
}

void *consumer(void *arg) {
  int v;
  if (dequeue(&v))
    assert(v == 42);
  return 0;
}

void initialize(void) {
  struct node *node = &pool[0];
  node->next = 0;
  head = tail = node;
}

int main(void) {
  pthread_t a, b;
  initialize();
  pthread_create(&a, 0, producer, 0);
  pthread_create(&b, 0, consumer, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
