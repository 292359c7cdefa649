// remainder and remquo for PROJ's geodesics, bit for bit glibc's, without its general loop.
//
// Why: PROJ's geodesic.c (Karney's algorithms) reduces angles with remainder(x, 360) three times
// per inverse problem (AngDiff) and with remquo(x, 90, &q) three times (sincosdx, sincosde).
// glibc computes both with a general algorithm for any quotient; `perf` put 6.7% of `geo
// length` in them, for arguments that are almost always within a turn or two of zero.
//
// How: as hypot.c, these are defined in the executable and exported (`--export-dynamic-symbol`
// in Package.swift), so the dynamic linker binds PROJ's calls to them before libm's, and every
// other call in the process (PROJ's projections in geo render included). That is safe because
// they return glibc's results bit for bit, as below.
//
// Exactness: remainder is exact by definition (IEEE 754: x − n·y with n the integer nearest to
// x/y, ties to even; a zero result has the sign of x), so any correct implementation returns
// the same bits. Here the quotient's magnitude n is found for |x| ≤ 2.5·|y| by comparisons, and
// x − n·y is one subtraction that Sterbenz's lemma makes exact (a − b is exact when b/2 ≤ a ≤
// 2b): |x| − |y| for n = 1 (|y|/2 ≤ |x| ≤ 2|y|), |x| − 2|y| for n = 2 (|y| ≤ |x| ≤ 4|y|). The
// halving |y|/2 is exact because |y| is kept normal. Anything else (larger quotients, a
// subnormal, huge, zero or NaN divisor, an infinite or NaN x) goes to glibc's own. remquo's
// quotient is n with the sign of x/y, as glibc returns it (the low three bits; here n ≤ 2).
// Tests/GeoTests/RemainderTests compares both with glibc's on about two million random and edge
// inputs, bit for bit; Tests/EndToEnd/test_system_libraries checks that PROJ binds to them.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include "SystemLibraries.h"

// The magnitude of the quotient (0, 1 or 2) and the remainder of |x| by |y|, or -1 when the
// fast path does not apply.
static inline int reduce_magnitude(double ax, double ay, double *r) {
    if (!(ay >= 0x1p-1000 && ay <= 0x1p1000 && ax <= 4 * ay)) return -1;  // NaN fails too
    double half = 0.5 * ay;
    if (ax <= half) {               // n = 0 (a tie at |y|/2 goes to the even 0)
        *r = ax;
        return 0;
    }
    if (ax <= 2 * ay) {
        double r1 = ax - ay;        // exact: |y|/2 < |x| ≤ 2|y|
        if (r1 < half) { *r = r1; return 1; }
        *r = ax - 2 * ay;           // exact: |y| ≤ |x|; a tie at 1.5|y| goes to the even 2
        return 2;
    }
    double r2 = ax - 2 * ay;        // exact: 2|y| < |x| ≤ 4|y|
    if (r2 <= half) { *r = r2; return 2; }  // a tie at 2.5|y| goes to the even 2
    return -1;
}

typedef double (*remainder_function)(double, double);
typedef double (*remquo_function)(double, double, int *);

// glibc's own, for what the fast path leaves: found once, racing threads find the same one.
static void *libm_function(void **cache, const char *name) {
    void *function = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!function) {
        function = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, function, __ATOMIC_RELEASE);
    }
    return function;
}

double geo_remainder(double x, double y) {
    double r;
    if (reduce_magnitude(fabs(x), fabs(y), &r) >= 0) return signbit(x) ? -r : r;
    static void *libm_remainder;
    return ((remainder_function)libm_function(&libm_remainder, "remainder"))(x, y);
}

double geo_remquo(double x, double y, int *quotient) {
    double r;
    int n = reduce_magnitude(fabs(x), fabs(y), &r);
    if (n >= 0) {
        *quotient = signbit(x) != signbit(y) ? -n : n;
        return signbit(x) ? -r : r;
    }
    static void *libm_remquo;
    return ((remquo_function)libm_function(&libm_remquo, "remquo"))(x, y, quotient);
}

double remainder(double x, double y) {
    return geo_remainder(x, y);
}

double remquo(double x, double y, int *quotient) {
    return geo_remquo(x, y, quotient);
}
