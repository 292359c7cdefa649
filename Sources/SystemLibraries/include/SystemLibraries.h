#ifndef GEO_SYSTEM_LIBRARIES_H
#define GEO_SYSTEM_LIBRARIES_H

// How geo runs the C libraries it uses (each file says why):
// - lazy_proj.c, lazy_cairo.c, lazy_sqlite.c, lazy_zlib.c: PROJ's, cairo's, SQLite's and zlib's functions, each library loaded on the first
//   call of one of them, not at every start (lazy_library.h has the mechanism);
// - hypot.c: a fast hypot, for PROJ's geodesics;
// - remainder.c: remainder and remquo, glibc's results bit for bit, fast for small quotients.
// The executable exports these three and nothing else, so they replace libm's for the whole
// process (PROJ's projections and cairo call them too); each file says why that is safe.

/// sqrt(x² + y²) without undue overflow or underflow, within 1.2 ulp: the function this module
/// also exports as `hypot`.
double geo_hypot(double x, double y);

/// IEEE remainder and remquo, exactly as glibc's: the functions this module also exports as
/// `remainder` and `remquo`.
double geo_remainder(double x, double y);
double geo_remquo(double x, double y, int *quotient);

#endif
