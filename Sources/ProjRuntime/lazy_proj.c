// PROJ, loaded on first use.
//
// Why: linking libproj makes every run load it and the ~40 libraries it depends on (curl,
// gnutls, sqlite, tiff, krb5, ...): 7-8 ms of relocations before main and 10 MB resident, even
// for `geo decode` and `geo encode`, which never compute a geodesic. So geo does not link
// libproj. This file defines each PROJ function geo calls, with PROJ's own prototype (from
// proj.h and geodesic.h); the first call of any of them dlopen()s libproj, and each resolves
// the real function once (dlsym) and calls through to it: an indirect call per PROJ call, a
// nanosecond against the microsecond of a geodesic.
//
// libproj's own calls between its functions stay inside it: these definitions are not
// exported from the executable. Its calls to hypot() still bind to hypot.c's (the executable's
// exported symbols come first in the lookup scope, also for a library loaded later).
//
// Adding a PROJ function to geo: add a FORWARD line below (the build fails with an undefined
// symbol until you do).
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <geodesic.h>
#include <proj.h>

#include "ProjRuntime.h"

// The sonames to try: PROJ 9's, then the development symlink.
static const char *const library_names[] = {"libproj.so.25", "libproj.so"};
static void *library;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// EX_UNAVAILABLE (sysexits.h): a service geo needs is missing.
enum { exit_unavailable = 69 };

static void load_library(void) {
    for (size_t i = 0; i < sizeof library_names / sizeof *library_names; i++) {
        library = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
        if (library) return;
    }
    fprintf(stderr, "geo: cannot load PROJ: %s (on Debian: apt-get install libproj25)\n", dlerror());
    exit(exit_unavailable);
}

int geo_proj_is_loaded(void) {
    return __atomic_load_n(&library, __ATOMIC_ACQUIRE) != NULL;
}

static void *resolve(const char *name) {
    pthread_once(&load_once, load_library);
    void *function = dlsym(library, name);
    if (!function) {
        fprintf(stderr, "geo: the PROJ library loaded has no %s: %s\n", name, dlerror());
        exit(exit_unavailable);
    }
    return function;
}

// One definition per PROJ function: find the real one once (threads that race store the same
// pointer), then call it.
#define REAL(name, type, params) \
    static type (*real) params; \
    type (*function) params = __atomic_load_n(&real, __ATOMIC_ACQUIRE); \
    if (!function) { \
        function = (type (*) params) resolve(#name); \
        __atomic_store_n(&real, function, __ATOMIC_RELEASE); \
    }
#define FORWARD(type, name, params, arguments) \
    type name params { REAL(name, type, params) return function arguments; }
#define FORWARD_VOID(name, params, arguments) \
    void name params { REAL(name, void, params) function arguments; }

// geodesic.h
FORWARD_VOID(geod_init, (struct geod_geodesic *g, double a, double f), (g, a, f))
FORWARD_VOID(geod_direct, (const struct geod_geodesic *g, double lat1, double lon1, double azi1, double s12,
                           double *plat2, double *plon2, double *pazi2),
             (g, lat1, lon1, azi1, s12, plat2, plon2, pazi2))
FORWARD_VOID(geod_inverse, (const struct geod_geodesic *g, double lat1, double lon1, double lat2, double lon2,
                            double *ps12, double *pazi1, double *pazi2),
             (g, lat1, lon1, lat2, lon2, ps12, pazi1, pazi2))
FORWARD(double, geod_geninverse, (const struct geod_geodesic *g, double lat1, double lon1, double lat2, double lon2,
                                  double *ps12, double *pazi1, double *pazi2, double *pm12, double *pM12,
                                  double *pM21, double *pS12),
        (g, lat1, lon1, lat2, lon2, ps12, pazi1, pazi2, pm12, pM12, pM21, pS12))
FORWARD_VOID(geod_inverseline, (struct geod_geodesicline *l, const struct geod_geodesic *g, double lat1,
                                double lon1, double lat2, double lon2, unsigned caps),
             (l, g, lat1, lon1, lat2, lon2, caps))
FORWARD_VOID(geod_position, (const struct geod_geodesicline *l, double s12, double *plat2, double *plon2,
                             double *pazi2),
             (l, s12, plat2, plon2, pazi2))
FORWARD(double, geod_genposition, (const struct geod_geodesicline *l, unsigned flags, double s12_a12,
                                   double *plat2, double *plon2, double *pazi2, double *ps12, double *pm12,
                                   double *pM12, double *pM21, double *pS12),
        (l, flags, s12_a12, plat2, plon2, pazi2, ps12, pm12, pM12, pM21, pS12))
FORWARD(unsigned, geod_polygon_compute, (const struct geod_geodesic *g, const struct geod_polygon *p, int reverse,
                                         int sign, double *pA, double *pP),
        (g, p, reverse, sign, pA, pP))

// proj.h
FORWARD(PJ_INFO, proj_info, (void), ())
FORWARD(const PJ_ELLPS *, proj_list_ellps, (void), ())
FORWARD(PJ_CONTEXT *, proj_context_create, (void), ())
FORWARD(PJ_CONTEXT *, proj_context_destroy, (PJ_CONTEXT *ctx), (ctx))
FORWARD(PJ_LOG_LEVEL, proj_log_level, (PJ_CONTEXT *ctx, PJ_LOG_LEVEL level), (ctx, level))
FORWARD(PJ *, proj_create, (PJ_CONTEXT *ctx, const char *definition), (ctx, definition))
FORWARD(PJ *, proj_destroy, (PJ *P), (P))
FORWARD(PJ *, proj_get_ellipsoid, (PJ_CONTEXT *ctx, const PJ *obj), (ctx, obj))
FORWARD(int, proj_ellipsoid_get_parameters, (PJ_CONTEXT *ctx, const PJ *ellipsoid, double *out_semi_major_metre,
                                             double *out_semi_minor_metre, int *out_is_semi_minor_computed,
                                             double *out_inv_flattening),
        (ctx, ellipsoid, out_semi_major_metre, out_semi_minor_metre, out_is_semi_minor_computed, out_inv_flattening))
FORWARD(PJ *, proj_create_crs_to_crs, (PJ_CONTEXT *ctx, const char *source_crs, const char *target_crs, PJ_AREA *area),
        (ctx, source_crs, target_crs, area))
FORWARD(PJ *, proj_normalize_for_visualization, (PJ_CONTEXT *ctx, const PJ *obj), (ctx, obj))
FORWARD(size_t, proj_trans_generic, (PJ *P, PJ_DIRECTION direction, double *x, size_t sx, size_t nx, double *y, size_t sy,
                                     size_t ny, double *z, size_t sz, size_t nz, double *t, size_t st, size_t nt),
        (P, direction, x, sx, nx, y, sy, ny, z, sz, nz, t, st, nt))
FORWARD(int, proj_errno_reset, (const PJ *P), (P))
