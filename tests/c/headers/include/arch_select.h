/* Like a portable atomics library: each architecture gets its own code. */
#if defined(__aarch64__)
#define ARCH_ID 2
static inline void arch_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#elif defined(__x86_64__) && defined(__amd64__)
#define ARCH_ID 1
static inline void arch_fence(void) { __asm__ __volatile__("mfence" ::: "memory"); }
#elif defined(__powerpc64__) && defined(_ARCH_PPC64)
#define ARCH_ID 3
static inline void arch_fence(void) { __asm__ __volatile__("sync" ::: "memory"); }
#elif defined(__sparc_v9__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARCH_ID 4
static inline void arch_fence(void) { __sync_synchronize(); }
#elif defined(__arm__) && __ARM_ARCH == 7
#define ARCH_ID 5
static inline void arch_fence(void) { __asm__ __volatile__("dmb" ::: "memory"); }
#else
#error "unknown architecture"
#endif
#if __SIZEOF_POINTER__ != 8 || __SIZEOF_LONG__ != 8 || !defined(__linux__) || !defined(__GNUC__)
#error "the LP64 Linux macros are missing"
#endif
