/* CheckFence's two fences (PLDI 2007 §4.2) as C11 fences, for the data types of this
 * directory: STORE_STORE() a release fence, LOAD_LOAD() an acquire fence (GCC: lwsync on
 * Power, dmb ish on ARM, a membar on SPARC, nothing on x86). -DNO_FENCES removes both,
 * -DNO_STORE_STORE or -DNO_LOAD_LOAD one kind. */
#ifndef FENCES_H
#define FENCES_H
#include <stdatomic.h>

#ifdef NO_FENCES
#define NO_STORE_STORE
#define NO_LOAD_LOAD
#endif
#ifdef NO_STORE_STORE
#define STORE_STORE() ((void)0)
#else
#define STORE_STORE() atomic_thread_fence(memory_order_release)
#endif
#ifdef NO_LOAD_LOAD
#define LOAD_LOAD() ((void)0)
#else
#define LOAD_LOAD() atomic_thread_fence(memory_order_acquire)
#endif

#endif
