#include <math.h>
#include <stdlib.h>

#include "RasterKernels.h"

static inline double smaller(double a, double b) { return a < b ? a : b; }
static inline double larger(double a, double b) { return a > b ? a : b; }

void geo_cover_table_fill(struct geo_cover_table *table, double half) {
    const double reach = half + 0.5, step = reach * reach / GEO_COVER_STEPS;
    table->half = half;
    table->scale = 1 / step;
    for (int index = 0; index < GEO_COVER_STEPS; index++) {
        const double distance = sqrt((index + 0.5) * step);
        const double covered = smaller(distance + 0.5, half) - larger(distance - 0.5, -half);
        table->values[index] = covered <= 0 ? 0 : (uint8_t)(smaller(1, covered) * 255 + 0.5);
    }
}

static void grow(struct geo_touched *touched) {
    long capacity = touched->capacity ? 2 * touched->capacity : 4096;
    struct geo_touched_pixel *items = realloc(touched->items, capacity * sizeof *items);
    if (!items) abort();  // as Swift does when an allocation fails
    touched->items = items;
    touched->capacity = capacity;
}

void geo_cover_row(uint8_t *cells, long first, long last, double along, double across, double ux, double uy,
                   double length, const struct geo_cover_table *table, int32_t cellBase, int32_t pixelBase,
                   struct geo_touched *touched) {
    const double scale = table->scale;
    for (long column = first; column <= last; column++, along += ux, across -= uy) {
        const double beyond = along < 0 ? -along : along > length ? along - length : 0;
        const double step = (beyond * beyond + across * across) * scale;
        if (!(step < GEO_COVER_STEPS)) continue;
        const uint8_t value = table->values[(long)step];
        const uint8_t old = cells[column];
        if (value <= old) continue;
        if (old == 0) {
            if (touched->count == touched->capacity) grow(touched);
            touched->items[touched->count++] = (struct geo_touched_pixel){cellBase + (int32_t)column, pixelBase + (int32_t)column};
        }
        cells[column] = value;
    }
}
