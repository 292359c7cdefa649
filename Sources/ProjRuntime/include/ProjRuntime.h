#ifndef GEO_PROJ_RUNTIME_H
#define GEO_PROJ_RUNTIME_H

// How geo runs PROJ (both files say why):
// - lazy_proj.c: PROJ's functions, loaded from libproj on first use, not at every start;
// - hypot.c: a fast hypot that PROJ's geodesics call instead of glibc's.

/// sqrt(x² + y²) without undue overflow or underflow, within 1.2 ulp: the function this module
/// also exports as `hypot`.
double geo_hypot(double x, double y);

/// Whether libproj has been loaded into this process (it is, on the first call to any of its
/// functions).
int geo_proj_is_loaded(void);

#endif
