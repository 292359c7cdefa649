#ifndef GEO_RASTER_KERNELS_H
#define GEO_RASTER_KERNELS_H

#include <stdint.h>

// The inner loops of geo's line rasterizer (Drawing/LineRasterizer.swift) that are bound by
// memory rather than arithmetic, in C for the one thing Swift cannot say: prefetching.

/// Lays a line's coverage onto the picture, source over: for each of the `count` pixel indices
/// in `touched`, `pixels[index]` (premultiplied ARGB32) gets `colour` (unpremultiplied
/// 0xAARRGGBB) at `coverage[index]`/255 of its alpha, and `coverage[index]` is cleared. The
/// pixels of a line are scattered over a picture too large for the caches: each is asked for a
/// few iterations before it is needed.
void geo_composite_coverage(uint8_t *coverage, const int32_t *touched, long count, uint32_t *pixels, uint32_t colour);

#endif
