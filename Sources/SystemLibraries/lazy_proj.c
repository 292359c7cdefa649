// PROJ (libproj), loaded on first use: see lazy_library.h. PROJ's calls to hypot(), remainder()
// and remquo() still bind to hypot.c's and remainder.c's: the executable's exported symbols come
// first in the lookup scope, also for a library loaded later. Its calls of its own functions
// (proj_create, geod_inverse, ...) do not bind to the wrappers below, which are hidden.
// The headers' own export macros, set to hidden: these wrappers stay inside the executable.
#define PROJ_DLL __attribute__((visibility("hidden")))
#define GEOD_DLL __attribute__((visibility("hidden")))
#include <geodesic.h>
#include <proj.h>

#include "lazy_library.h"

// PROJ 9's soname, then the development symlink.
static struct lazy_library proj = {
    {"libproj.so.25", "libproj.so"}, "PROJ", "libproj25", PTHREAD_MUTEX_INITIALIZER, NULL,
};
#define LAZY_LIBRARY proj

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
FORWARD(PJ *, proj_clone, (PJ_CONTEXT *ctx, const PJ *obj), (ctx, obj))
FORWARD(size_t, proj_trans_generic, (PJ *P, PJ_DIRECTION direction, double *x, size_t sx, size_t nx, double *y, size_t sy,
                                     size_t ny, double *z, size_t sz, size_t nz, double *t, size_t st, size_t nt),
        (P, direction, x, sx, nx, y, sy, ny, z, sz, nz, t, st, nt))
FORWARD(int, proj_errno_reset, (const PJ *P), (P))
