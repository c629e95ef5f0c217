/* Shared definitions for the STM libraries of this directory (FOIL's TL2, DSTM and McRT
 * STM: Guerraoui, Henzinger, Singh, "Verification of STM on relaxed memory models", FMSD
 * 2011, Algorithms 3-5 and Table 3), checked with `weakc check --spec stm_spec.c`.
 *
 * Accesses. FOIL's RML has plain loads and stores of 32-bit words and a compare-and-swap
 * that orders nothing beyond what the memory model gives every instruction. Here they are
 * GCC __atomic builtins with __ATOMIC_RELAXED: an ordinary load/store/CAS of the target
 * machine (no barrier on any architecture weakc models), but no data race in C.
 *
 * Fences. FOIL's two fences as C11 fences (as in ../datatypes/fences.h):
 *   STORE_FENCE()  `sfence` (store-store): atomic_thread_fence(memory_order_release)
 *   LOAD_FENCE()   `ld fence` (load-load): atomic_thread_fence(memory_order_acquire)
 * GCC compiles both to nothing on x86, `membar` on SPARC PSO/RMO, `lwsync` on Power,
 * `dmb ish` on ARMv7, `dmb ish` / `dmb ishld` on AArch64. Each library names its fence
 * sites; a site is compiled in unless one of these is defined:
 *   -DNO_FENCES          every fence of the file
 *   -DNO_STORE_FENCES    every store fence
 *   -DNO_LOAD_FENCES     every load fence
 *   -DNO_<SITE>          that site only (names in each file's header comment)
 * Sites that are not in FOIL's Table 3 (fences weakc's models need and FOIL's do not) are
 * compiled in only with -D<SITE> or -DEXTRA_FENCES (all of them; -DNO_<SITE> still
 * removes one).
 */
#ifndef STM_FENCES_H
#define STM_FENCES_H
#include <stdatomic.h>

#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* One compare-and-swap attempt: 1 when x held e and now holds d. */
#define CAS(x, e, d) ({ int cas_e_ = (e); \
    __atomic_compare_exchange_n(&(x), &cas_e_, (d), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); })
#define FETCH_ADD(x, n) __atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED)

#define STORE_FENCE() atomic_thread_fence(memory_order_release)
#define LOAD_FENCE() atomic_thread_fence(memory_order_acquire)

/* The encoding of a read transaction's result (tx_r, tx_rw): see stm_spec.c. */
#define UNREAD 9
#endif
