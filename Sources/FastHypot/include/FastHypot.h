#ifndef GEO_FAST_HYPOT_H
#define GEO_FAST_HYPOT_H

/// sqrt(x² + y²) without undue overflow or underflow, within 1.2 ulp: the function this module
/// also exports as `hypot`, so that PROJ's geodesics call it instead of glibc's (see hypot.c).
double geo_hypot(double x, double y);

#endif
