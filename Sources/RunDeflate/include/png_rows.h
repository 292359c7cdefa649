#ifndef GEO_PNG_ROWS_H
#define GEO_PNG_ROWS_H

#include <stdint.h>

// png_rows.c: PNG rows made from cairo's premultiplied pixels, RGBA or palette indices, for the
// deflate of run_deflate.h (tiles) or zlib (a picture).

/// PNG rows from cairo's premultiplied native-endian ARGB words: for each of `rows` rows, the
/// filter byte 0 (None) and `width` RGBA pixels, unpremultiplied as cairo's PNG writer does it
/// (each channel (c * 255 + a / 2) / a, exactly). Rows are `row_words` words apart in `pixels`
/// and 1 + 4 * width bytes apart in `out`.
void geo_png_rows(const uint32_t *pixels, long width, long rows, long row_words, uint8_t *out);

/// Whether the picture's premultiplied words fit a palette indexed by alpha: 1 when no two pixels
/// of the same alpha differ (a picture in one colour over a transparent background, whatever its
/// antialiasing), and then `by_alpha[a]` (256 words) is the word of alpha a where a occurs, 0
/// elsewhere; 0 otherwise.
int geo_png_alpha_palette(const uint32_t *pixels, long width, long height, long row_words, uint32_t *by_alpha);

/// The largest alpha of the picture's premultiplied words.
int geo_png_largest_alpha(const uint32_t *pixels, long width, long height, long row_words);

/// PNG palette rows whose index is the alpha: for each of `rows` rows, the filter byte 0 (None)
/// and `width` bytes, each pixel's alpha. Rows are `row_words` words apart in `pixels` and
/// 1 + width bytes apart in `out`.
void geo_png_alpha_rows(const uint32_t *pixels, long width, long rows, long row_words, uint8_t *out);

#endif
