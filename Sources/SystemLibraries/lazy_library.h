// Libraries loaded on first use: the mechanism lazy_proj.c, lazy_cairo.c, lazy_sqlite.c and
// lazy_zlib.c share.
//
// Why: a linked library is loaded and relocated at every start, with everything it depends on.
// libproj pulls in ~40 libraries (curl, gnutls, sqlite, tiff, krb5, ...) and libcairo ~20 (X11,
// fontconfig, freetype, pixman, png, ...): 10 ms of relocations before main and 10 MB resident,
// also for `geo decode`, which needs neither. So geo links none of its C libraries. Each
// lazy_*.c file defines each function geo calls, with the library's own prototype from its
// header; the first call of any dlopen()s the library, and each function resolves its real
// self once (dlsym) and calls through: an indirect call, a nanosecond.
//
// The library's calls between its own functions stay inside it: these definitions are hidden
// (and the executable exports only hypot, remainder and remquo, Package.swift), so the dynamic
// linker never binds libproj's own call of, say, proj_create to them
// (Tests/EndToEnd/test_system_libraries.py reads the binary's exports and the loader's bindings). Adding
// a function to geo: add a FORWARD line to its file (the link fails with an undefined symbol
// until you do).
#ifndef GEO_LAZY_LIBRARY_H
#define GEO_LAZY_LIBRARY_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct lazy_library {
    const char *names[2];  // sonames to try, in order
    const char *what;      // for messages
    const char *package;   // what to install, on Debian
    pthread_mutex_t lock;
    void *handle;
};

// EX_UNAVAILABLE (sysexits.h): a library geo needs is missing.
enum { lazy_library_unavailable = 69 };

static inline void *lazy_library_resolve(struct lazy_library *library, const char *name) {
    pthread_mutex_lock(&library->lock);
    for (int i = 0; i < 2 && !library->handle && library->names[i]; i++) {
        library->handle = dlopen(library->names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (!library->handle) {
        fprintf(stderr, "geo: cannot load %s: %s (on Debian: apt-get install %s)\n", library->what, dlerror(),
                library->package);
        exit(lazy_library_unavailable);
    }
    void *function = dlsym(library->handle, name);
    if (!function) {
        fprintf(stderr, "geo: the %s library loaded has no %s: %s\n", library->what, name, dlerror());
        exit(lazy_library_unavailable);
    }
    pthread_mutex_unlock(&library->lock);
    return function;
}

// One definition per function of LAZY_LIBRARY (a struct lazy_library): find the real one once
// (threads that race store the same pointer), then call it.
#define LAZY_REAL(name, type, params) \
    static type (*real) params; \
    type (*function) params = __atomic_load_n(&real, __ATOMIC_ACQUIRE); \
    if (!function) { \
        function = (type (*) params) lazy_library_resolve(&LAZY_LIBRARY, #name); \
        __atomic_store_n(&real, function, __ATOMIC_RELEASE); \
    }
#define FORWARD(type, name, params, arguments) \
    __attribute__((visibility("hidden"))) type name params { LAZY_REAL(name, type, params) return function arguments; }
#define FORWARD_VOID(name, params, arguments) \
    __attribute__((visibility("hidden"))) void name params { LAZY_REAL(name, void, params) function arguments; }

#endif
