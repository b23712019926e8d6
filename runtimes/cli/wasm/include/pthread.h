/* The part of pthread.h zstd's multithreaded compressor takes (lib/common/threading.h),
 * for a WebAssembly module with one thread (cc.sh). Its jobs run to the end when they
 * are handed to the pool, so every lock is free and every condition already holds
 * when it is checked: a wait would never return, and traps instead of hanging. */
#ifndef VATBAKE_WASM_PTHREAD_H
#define VATBAKE_WASM_PTHREAD_H
typedef int pthread_t;
typedef int pthread_attr_t;
typedef int pthread_mutex_t;
typedef int pthread_mutexattr_t;
typedef int pthread_cond_t;
typedef int pthread_condattr_t;
static inline int pthread_mutex_init(pthread_mutex_t* m, const pthread_mutexattr_t* a) { (void)a; *m = 0; return 0; }
static inline int pthread_mutex_destroy(pthread_mutex_t* m) { (void)m; return 0; }
static inline int pthread_mutex_lock(pthread_mutex_t* m) { (void)m; return 0; }
static inline int pthread_mutex_unlock(pthread_mutex_t* m) { (void)m; return 0; }
static inline int pthread_cond_init(pthread_cond_t* c, const pthread_condattr_t* a) { (void)a; *c = 0; return 0; }
static inline int pthread_cond_destroy(pthread_cond_t* c) { (void)c; return 0; }
static inline int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) { (void)c; (void)m; __builtin_trap(); }
static inline int pthread_cond_signal(pthread_cond_t* c) { (void)c; return 0; }
static inline int pthread_cond_broadcast(pthread_cond_t* c) { (void)c; return 0; }
/* No thread is ever started: pool.c is built without ZSTD_MULTITHREAD. */
static inline int pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*f)(void*), void* arg) { (void)t; (void)a; (void)f; (void)arg; return 11; }
static inline int pthread_join(pthread_t t, void** r) { (void)t; (void)r; return 0; }
#endif
