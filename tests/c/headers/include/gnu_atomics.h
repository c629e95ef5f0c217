/* GNU and C11 constructs the way lock libraries' headers write them. */
#ifndef GNU_ATOMICS_H
#define GNU_ATOMICS_H
#include <stddef.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define LOAD_ACQ(p) ({ __typeof__(*(p)) __v = __atomic_load_n((p), __ATOMIC_ACQUIRE); __v; })
#define STORE_REL(p, v) __extension__ ({ __typeof__(*(p)) __w = (v); __atomic_store_n((p), __w, __ATOMIC_RELEASE); })
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

struct node {
    long key;
    _Atomic(int) state;
    struct node *next;
} __attribute__((aligned(16)));

_Static_assert(__builtin_offsetof(struct node, state) == 8, "state after key");

/* Declared but never used: must not stop the load. */
static __int128 unused_wide;
extern unsigned __int128 unused_wide_fn(unsigned __int128 x);

static inline __attribute__((always_inline)) int get(_Atomic(int) *p) { return LOAD_ACQ(p); }
static inline void put(_Atomic int *p, int v) { STORE_REL(p, v); }

static inline struct node *node_of(_Atomic(int) *s) { return container_of(s, struct node, state); }

__attribute__((noreturn)) static inline void die(void) { __builtin_unreachable(); }
#endif
