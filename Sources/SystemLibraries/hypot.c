// A fast hypot for PROJ's geodesic routines.
//
// Why: PROJ's geodesic.c (Karney's algorithms) calls hypot() a dozen times per inverse problem, to
// normalise sine/cosine pairs. Since glibc 2.35, hypot() is a careful generic implementation that
// costs about as much as the rest of those normalisations together: `perf` puts 21% of `geo
// length` in it. The operands here are moderate numbers (|x|, |y| near 1, or a few thousand
// kilometres), for which sqrt(x*x + y*y) is already accurate to about one ulp and needs no
// scaling. (`bench/README.md` has the profile before and after.)
//
// How: this file defines `hypot` in the executable and the link exports it (`geo`'s
// `--export-dynamic-symbol=hypot` in Package.swift), so the dynamic linker binds PROJ's calls to
// it before libm's: ELF symbol interposition, as allocators replace malloc. That holds for the
// whole process, not only for the geodesics: PROJ's projections (geo render) and cairo call
// this hypot too. It is safe for them because it is a hypot as C specifies it, within 1.2 ulp
// (glibc's own is within 1 ulp, and no caller may count on its exact bits).
//
// Accuracy: in [2^-500, 2^500] the result is sqrt(fl(x²) + fl(y²)) rounded: the worst error seen
// is 1.105 ulp of the exact value (Tests/GeoTests/
// SystemLibrariesTests checks ≤ 1.2 ulp against 64-bit-mantissa arithmetic on random and edge inputs);
// outside that range the operands are first scaled by an exact power of two. The
// IEEE special cases follow C99 Annex F: hypot(±inf, NaN) is +inf, NaN otherwise propagates.
// Measured effect on lengths: at most 2.4e-12 relative (30 nm on a 12.5 km path), far inside the
// 15 nm per edge that the geodesic algorithms themselves promise.
#include <math.h>
#include "SystemLibraries.h"

double geo_hypot(double x, double y) {
    x = fabs(x);
    y = fabs(y);
    double big = x > y ? x : y, small = x > y ? y : x;
    if (big < 0x1p500 && small > 0x1p-500) {
        return sqrt(x * x + y * y);
    }
    if (isinf(x) || isinf(y)) return INFINITY;
    if (isnan(x) || isnan(y)) return x + y;
    if (small == 0) return big;
    // One of them is huge or tiny: scale both by a power of two (exact), unless one is so much
    // smaller that it cannot change the sum (2^-1000 relative).
    if (big >= 0x1p500) {
        if (small < big * 0x1p-60) return big;
        return sqrt((big * 0x1p-600) * (big * 0x1p-600) + (small * 0x1p-600) * (small * 0x1p-600)) * 0x1p600;
    }
    if (small < big * 0x1p-60) return big;
    return sqrt((big * 0x1p600) * (big * 0x1p600) + (small * 0x1p600) * (small * 0x1p600)) * 0x1p-600;
}

double hypot(double x, double y) {
    return geo_hypot(x, y);
}
