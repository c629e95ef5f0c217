/*
 * weakc.h: runtime declarations for C files emitted by weakc.
 *
 * Every file weakc prints starts with `#include "weakc.h"` and includes nothing else, so
 * this header declares everything the printed code refers to without a definition of its
 * own: the verifier primitives (__VERIFIER_*), the few libc and pthread functions the
 * rewriter and the printer call by name, and the fence macros. It is self-contained (no
 * system header), so an emitted file compiles the same way on every machine and is read
 * the same way by every verifier front end (CBMC, ESBMC, CPAchecker, ...).
 *
 * Types in the printed program are fully resolved (typedefs expanded), so a user's
 * `pthread_mutex_t m;` is printed as the union glibc defines; that is why the pthread
 * functions below take `void *` where POSIX names a pthread type: any object pointer the
 * printed code passes converts to it without a diagnostic.
 *
 * Knobs (define before including, e.g. with -D):
 *   __weakc_no_pthread_decls  do not declare pthread_t and the pthread functions (when the
 *                             including file brings the real <pthread.h> itself);
 *   __weakc_no_libc_decls     do not declare malloc, free, abort, exit, memset, memcpy;
 *   __WEAKC_NO_ASM            make every fence macro a no-op (for tools that reject asm).
 *
 * The list of functions and types declared here is mirrored in weakc's printer
 * (src/cprint.rs, RUNTIME_NAMES): the printer omits its own prototypes for them.
 */
#ifndef WEAKC_H
#define WEAKC_H

/* The size type of the target, as the compiler's builtins expect it (unsigned long on LP64,
 * unsigned int on ILP32), so the libc prototypes below match GCC's and Clang's builtins. */
#ifdef __SIZE_TYPE__
typedef __SIZE_TYPE__ __weakc_size_t;
#else
typedef unsigned long __weakc_size_t;
#endif

/* Marks functions that do not return, where the compiler understands it. */
#if defined(__GNUC__) || defined(__clang__)
#define __WEAKC_NORETURN __attribute__((__noreturn__))
#else
#define __WEAKC_NORETURN
#endif

/* ------------------------------------------------------------------------------------ */
/* Verifier primitives (SV-COMP conventions). Verifiers give them their meaning; for a    */
/* plain compile they are only declared.                                                   */
/* ------------------------------------------------------------------------------------ */

/* Assertions (`assert`, reach_error(), ...) are printed as __VERIFIER_assert(cond). */
void __VERIFIER_assert(int cond);
/* Assumptions (`assume`, and the paths abort()/exit() end) are printed as
 * __VERIFIER_assume(cond). */
void __VERIFIER_assume(int cond);
/* Reaching this call is an error (SV-COMP's reach_error target). */
void __VERIFIER_error(void) __WEAKC_NORETURN;
/* Atomic sections: the code between begin and end runs without interleaving; the
 * rewriter uses them to make its buffer updates atomic. */
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

/* Nondeterministic values, one per C type: the printer picks the one matching the type of
 * an IR `Nondet` expression (signed 8-bit values use nondet_char, whose SV-COMP type is
 * plain char). */
_Bool __VERIFIER_nondet_bool(void);
char __VERIFIER_nondet_char(void);
unsigned char __VERIFIER_nondet_uchar(void);
short __VERIFIER_nondet_short(void);
unsigned short __VERIFIER_nondet_ushort(void);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
long __VERIFIER_nondet_long(void);
unsigned long __VERIFIER_nondet_ulong(void);
float __VERIFIER_nondet_float(void);
double __VERIFIER_nondet_double(void);
void *__VERIFIER_nondet_pointer(void);
#ifdef __SIZEOF_INT128__
__int128 __VERIFIER_nondet_int128(void);
unsigned __int128 __VERIFIER_nondet_uint128(void);
#endif

/* ------------------------------------------------------------------------------------ */
/* pthreads: what the printer emits for Spawn, Join, Lock and Unlock, plus the mutex and  */
/* thread calls programs make around them.                                                 */
/* ------------------------------------------------------------------------------------ */
#ifndef __weakc_no_pthread_decls
/* Thread ids: `Spawn` without a user-visible id stores into a fresh `pthread_t` global.
 * unsigned long is glibc's and musl's definition, so a user's expanded pthread_t
 * (printed as unsigned long) is the same type. */
typedef unsigned long pthread_t;
/* Spawn: pthread_create(&tid, 0, func, arg). The attribute is never passed (always 0). */
int pthread_create(pthread_t *thread, const void *attr, void *(*start)(void *), void *arg);
/* Join: pthread_join(tid, retp); retp is `void **` in POSIX, `void *` here so that any
 * object pointer the program passes is accepted. */
int pthread_join(pthread_t thread, void *retval);
/* Thread functions may end with pthread_exit(v) instead of returning v. */
void pthread_exit(void *retval) __WEAKC_NORETURN;
pthread_t pthread_self(void);
/* Lock/Unlock: pthread_mutex_lock(&m) / pthread_mutex_unlock(&m); the mutex is the user's
 * expanded pthread_mutex_t, hence `void *`. */
int pthread_mutex_init(void *mutex, const void *attr);
int pthread_mutex_destroy(void *mutex);
int pthread_mutex_lock(void *mutex);
int pthread_mutex_trylock(void *mutex);
int pthread_mutex_unlock(void *mutex);
#endif

/* ------------------------------------------------------------------------------------ */
/* libc: allocation for the rewriter's buffers, program exit, and block copies. The       */
/* signatures are the standard ones so that they agree with the compilers' builtins.      */
/* ------------------------------------------------------------------------------------ */
#ifndef __weakc_no_libc_decls
void *malloc(__weakc_size_t size);
void free(void *ptr);
void abort(void) __WEAKC_NORETURN;
void exit(int status) __WEAKC_NORETURN;
void *memset(void *s, int c, __weakc_size_t n);
void *memcpy(void *dest, const void *src, __weakc_size_t n);
#endif

/* ------------------------------------------------------------------------------------ */
/* Fences: each IR fence is printed as a call of one of these macros. They expand to the  */
/* real instruction when compiling for the architecture that has it (so the emitted       */
/* program still runs correctly on hardware) and to nothing otherwise (a fence of another */
/* architecture, or __WEAKC_NO_ASM). The portable ones (full, acqrel) pick the matching   */
/* instruction for each architecture.                                                      */
/* ------------------------------------------------------------------------------------ */
#define __weakc_fence_nop() ((void)0)

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__WEAKC_NO_ASM)
#define __weakc_asm_fence(insn) __asm__ __volatile__(insn ::: "memory")
/* A compiler-only barrier: orders nothing in hardware, stops compiler reordering. */
#define __weakc_fence_compiler() __weakc_asm_fence("")

#if defined(__x86_64__) || defined(__i386__)
#define __WEAKC_ARCH_X86 1
#elif defined(__powerpc__) || defined(__powerpc64__) || defined(__PPC__) || defined(_ARCH_PPC)
#define __WEAKC_ARCH_POWER 1
#elif defined(__aarch64__)
#define __WEAKC_ARCH_ARM64 1
#elif defined(__arm__)
#define __WEAKC_ARCH_ARM 1
#endif

#ifdef __WEAKC_ARCH_X86
#define __weakc_fence_mfence() __weakc_asm_fence("mfence")
#define __weakc_fence_full() __weakc_asm_fence("mfence")
/* x86-TSO needs no instruction for acquire/release ordering. */
#define __weakc_fence_acqrel() __weakc_asm_fence("")
#endif

#ifdef __WEAKC_ARCH_POWER
#define __weakc_fence_sync() __weakc_asm_fence("sync")
#define __weakc_fence_lwsync() __weakc_asm_fence("lwsync")
#define __weakc_fence_isync() __weakc_asm_fence("isync")
#define __weakc_fence_eieio() __weakc_asm_fence("eieio")
#define __weakc_fence_full() __weakc_asm_fence("sync")
#define __weakc_fence_acqrel() __weakc_asm_fence("lwsync")
#endif

#if defined(__WEAKC_ARCH_ARM) || defined(__WEAKC_ARCH_ARM64)
/* Bare `dmb`/`dsb` mean the full-system variant on ARMv7 but are not accepted by AArch64
 * assemblers: spell the option out. `dmb ld` exists from ARMv8 on. */
#define __weakc_fence_dmb() __weakc_asm_fence("dmb sy")
#define __weakc_fence_dmb_st() __weakc_asm_fence("dmb st")
#define __weakc_fence_dmb_ld() __weakc_asm_fence("dmb ld")
#define __weakc_fence_dsb() __weakc_asm_fence("dsb sy")
#define __weakc_fence_isb() __weakc_asm_fence("isb")
#define __weakc_fence_full() __weakc_asm_fence("dmb ish")
#define __weakc_fence_acqrel() __weakc_asm_fence("dmb ish")
#endif

#if defined(__sparc__)
#define __weakc_fence_membar_release() __weakc_asm_fence("membar #LoadStore | #StoreStore")
#define __weakc_fence_membar_ll() __weakc_asm_fence("membar #LoadLoad")
#define __weakc_fence_membar_sl() __weakc_asm_fence("membar #StoreLoad")
#define __weakc_fence_membar_to_loads() __weakc_asm_fence("membar #StoreLoad | #LoadLoad")
#define __weakc_fence_membar_from_stores() __weakc_asm_fence("membar #StoreLoad | #StoreStore")
#endif

/* Elsewhere, the portable barriers fall back on the compiler's builtins. */
#ifndef __weakc_fence_full
#define __weakc_fence_full() __sync_synchronize()
#endif
#ifndef __weakc_fence_acqrel
#define __weakc_fence_acqrel() __atomic_thread_fence(__ATOMIC_ACQ_REL)
#endif
#ifndef __weakc_fence_acquire
#define __weakc_fence_acquire() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif
#ifndef __weakc_fence_release
#define __weakc_fence_release() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif

#else /* no GNU asm, or __WEAKC_NO_ASM */
#define __weakc_fence_compiler() __weakc_fence_nop()
#endif

/* Every fence not defined above for this target is a no-op. */
#ifndef __weakc_fence_full
#define __weakc_fence_full() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_acqrel
#define __weakc_fence_acqrel() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_mfence
#define __weakc_fence_mfence() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_sync
#define __weakc_fence_sync() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_lwsync
#define __weakc_fence_lwsync() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_isync
#define __weakc_fence_isync() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_eieio
#define __weakc_fence_eieio() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_dmb
#define __weakc_fence_dmb() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_dmb_st
#define __weakc_fence_dmb_st() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_dmb_ld
#define __weakc_fence_dmb_ld() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_dsb
#define __weakc_fence_dsb() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_isb
#define __weakc_fence_isb() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_membar_release
#define __weakc_fence_membar_release() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_membar_ll
#define __weakc_fence_membar_ll() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_membar_sl
#define __weakc_fence_membar_sl() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_membar_to_loads
#define __weakc_fence_membar_to_loads() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_membar_from_stores
#define __weakc_fence_membar_from_stores() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_acquire
#define __weakc_fence_acquire() __weakc_fence_nop()
#endif
#ifndef __weakc_fence_release
#define __weakc_fence_release() __weakc_fence_nop()
#endif

#endif /* WEAKC_H */
