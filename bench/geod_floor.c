/* geod_floor: the raw cost of PROJ's geod_inverse on the corpus edges, no I/O, one core.
 *
 * usage: geod_floor EDGES.bin [REPEATS]
 *
 * EDGES.bin is what bench/run.py writes: native-endian doubles, four per edge
 * (lat1 lon1 lat2 lon2, degrees), every consecutive vertex pair of every path in paths.ndjson.
 * The whole file is read into memory first; then
 *     geod_inverse(&g, lat1, lon1, lat2, lon2, &s12, NULL, NULL)
 * runs over all edges REPEATS times (default 3) on WGS84, each pass timed with
 * clock_gettime(CLOCK_MONOTONIC); the best pass is reported. Each s12 is stored into an array
 * (so the calls cannot be optimised away), summed with compensation after the timing.
 *
 * Output, one "key value" per line (run.py parses it):
 *     edges N
 *     seconds S        best pass
 *     ns_per_edge X
 *     passes S1,S2,S3
 *     sum_s12_m M      Kahan sum of s12 over all edges, %.6f
 *
 * build: cc -O2 bench/geod_floor.c -lproj -o bench/out/geod_floor
 */
#include <geodesic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s EDGES.bin [REPEATS]\n", argv[0]);
        return 2;
    }
    int repeats = argc == 3 ? atoi(argv[2]) : 3;
    if (repeats < 1) repeats = 1;

    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    if (fseek(f, 0, SEEK_END) != 0) { perror("fseek"); return 1; }
    long bytes = ftell(f);
    rewind(f);
    if (bytes < 0 || bytes % (4 * (long)sizeof(double)) != 0) {
        fprintf(stderr, "%s: size %ld is not a whole number of edges (4 doubles each)\n", argv[1], bytes);
        return 1;
    }
    size_t n = (size_t)bytes / (4 * sizeof(double));
    double *e = malloc(n * 4 * sizeof(double) + 1);
    double *s = malloc(n * sizeof(double) + 1);
    if (!e || !s) { fprintf(stderr, "out of memory\n"); return 1; }
    if (fread(e, sizeof(double), 4 * n, f) != 4 * n) { fprintf(stderr, "short read\n"); return 1; }
    fclose(f);

    struct geod_geodesic g;
    geod_init(&g, 6378137, 1 / 298.257223563);

    double best = 0;
    printf("edges %zu\n", n);
    printf("passes ");
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        for (size_t i = 0; i < n; i++) {
            const double *p = e + 4 * i;
            double s12;
            geod_inverse(&g, p[0], p[1], p[2], p[3], &s12, NULL, NULL);
            s[i] = s12;
        }
        double t = now() - t0;
        if (r == 0 || t < best) best = t;
        printf("%s%.6f", r ? "," : "", t);
    }
    printf("\n");

    double sum = 0, c = 0;                  /* Kahan-Babuska (Neumaier) */
    for (size_t i = 0; i < n; i++) {
        double t = sum + s[i];
        c += fabs(sum) >= fabs(s[i]) ? (sum - t) + s[i] : (s[i] - t) + sum;
        sum = t;
    }
    printf("seconds %.6f\n", best);
    printf("ns_per_edge %.1f\n", n ? best * 1e9 / (double)n : 0.0);
    printf("sum_s12_m %.6f\n", sum + c);
    free(e);
    free(s);
    return 0;
}
