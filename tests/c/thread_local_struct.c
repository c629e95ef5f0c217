// Two instances of one thread function, each filling a descriptor of its own through
// helpers. The descriptor is a local whose address is taken, but it never leaves its
// thread: no critical cycle may run through it. Each -D makes its address reach another
// thread (a global, the thread's argument, an integer), and then its cycles are real.
#include <pthread.h>

struct desc { int a; int b; };

#ifdef PUBLISH
struct desc *pub;
#endif
#ifdef AS_INTEGER
long pub_bits;
#endif

static void fill(struct desc *p, int v) { p->a = v; p->b = v + 1; }
static int sum(const struct desc *p) { return p->a + p->b; }

void *worker(void *arg) {
    struct desc own;
    struct desc *d = &own;
#ifdef VIA_ARG
    d = arg;
#endif
#ifdef PUBLISH
    pub = d;
    d = pub;
#endif
#ifdef AS_INTEGER
    pub_bits = (long)d;
    d = (struct desc *)pub_bits;
#endif
    fill(d, 1);
    return (void *)(long)sum(d);
}

int main(void) {
    struct desc shared;
    pthread_t t1, t2;
    pthread_create(&t1, 0, worker, &shared);
    pthread_create(&t2, 0, worker, &shared);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
