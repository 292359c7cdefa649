// PNG rows from cairo's pixels, ready for a deflate (run_deflate.c or zlib): unpremultiplied
// RGBA rows, and palette rows indexed by alpha. Declared in png_rows.h.
#include "png_rows.h"
#include <string.h>
#include <emmintrin.h>   // SSE2: in every x86-64

// ---- PNG rows.

// (c * 255 + a / 2) / a for c, a < 256 is (c * 255 + a / 2) * reciprocal[a] >> 24 exactly:
// ceil(2^24 / a) errs by under 2^-24 a unit, and the numerator is under 2^16, so the product's
// error stays under 1/256 <= 1/a of the distance to the next whole number (checked for every
// c and a by the tests).
static uint32_t reciprocal(uint32_t a) { return ((1u << 24) + a - 1) / a; }

void geo_png_rows(const uint32_t *pixels, long width, long rows, long row_words, uint8_t *out) {
    uint32_t inverse[256];
    inverse[0] = 0;
    for (uint32_t a = 1; a < 256; a++) inverse[a] = reciprocal(a);
    for (long row = 0; row < rows; row++) {
        const uint32_t *words = pixels + row * row_words;
        uint8_t *line = out + row * (1 + 4 * width);
        *line++ = 0;   // filter type None
        long x = 0;
        while (x < width) {
            if (x + 4 <= width) {   // four transparent pixels at a time
                __m128i four = _mm_loadu_si128((const __m128i *)(words + x));
                if (_mm_movemask_epi8(_mm_cmpeq_epi8(four, _mm_setzero_si128())) == 0xFFFF) {
                    memset(line + 4 * x, 0, 16);
                    x += 4;
                    continue;
                }
            }
            // No branch on alpha: 0 has reciprocal 0 (and premultiplied channels 0), and 255's
            // gives each channel back.
            uint32_t word = words[x], a = word >> 24;
            uint8_t *p = line + 4 * x;
            uint64_t m = inverse[a], half = a / 2;
            uint32_t r = (uint32_t)(((word >> 16 & 0xFF) * 255 + half) * m >> 24);
            uint32_t g = (uint32_t)(((word >> 8 & 0xFF) * 255 + half) * m >> 24);
            uint32_t b = (uint32_t)(((word & 0xFF) * 255 + half) * m >> 24);
            p[0] = (uint8_t)r; p[1] = (uint8_t)g; p[2] = (uint8_t)b; p[3] = (uint8_t)a;
            x++;
        }
    }
}

// ---- PNG palette rows: a picture of one colour over a transparent background (most map tiles)
// has one premultiplied word for each alpha, so a palette indexed by alpha holds it exactly, in a
// quarter of the bytes to deflate; a pixel's index is its alpha.

// The 16 words at `words` OR'd together, lane by lane: all zero when the 16 are transparent.
static inline __m128i sixteen_ored(const uint32_t *words) {
    return _mm_or_si128(_mm_or_si128(_mm_loadu_si128((const __m128i *)words), _mm_loadu_si128((const __m128i *)(words + 4))),
                        _mm_or_si128(_mm_loadu_si128((const __m128i *)(words + 8)), _mm_loadu_si128((const __m128i *)(words + 12))));
}

static inline int all_zero(__m128i v) { return _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) == 0xFFFF; }

// Whether `word` is the one word of its alpha so far (recording it when it is the first).
static inline int one_word_an_alpha(uint32_t word, uint32_t *by_alpha) {
    const uint32_t alpha = word >> 24;
    if (by_alpha[alpha] == word) return 1;
    // Another word of this alpha already, or colour without alpha: not one colour.
    if (by_alpha[alpha] != 0 || alpha == 0) return 0;
    by_alpha[alpha] = word;
    return 1;
}

int geo_png_alpha_palette(const uint32_t *pixels, long width, long height, long row_words, uint32_t *by_alpha) {
    memset(by_alpha, 0, 256 * sizeof *by_alpha);
    for (long row = 0; row < height; row++) {
        const uint32_t *words = pixels + row * row_words;
        long x = 0;
        for (; x + 16 <= width; x += 16) {
            if (all_zero(sixteen_ored(words + x))) continue;
            for (long i = x; i < x + 16; i++) if (!one_word_an_alpha(words[i], by_alpha)) return 0;
        }
        for (; x < width; x++) if (!one_word_an_alpha(words[x], by_alpha)) return 0;
    }
    return 1;
}

int geo_png_largest_alpha(const uint32_t *pixels, long width, long height, long row_words) {
    __m128i most = _mm_setzero_si128();   // byte by byte: the top byte of each lane is an alpha
    uint32_t tail = 0;
    for (long row = 0; row < height; row++) {
        const uint32_t *words = pixels + row * row_words;
        long x = 0;
        for (; x + 4 <= width; x += 4) most = _mm_max_epu8(most, _mm_loadu_si128((const __m128i *)(words + x)));
        for (; x < width; x++) tail = words[x] >> 24 > tail ? words[x] >> 24 : tail;
    }
    uint32_t lanes[4];
    _mm_storeu_si128((__m128i *)lanes, most);
    for (int i = 0; i < 4; i++) tail = lanes[i] >> 24 > tail ? lanes[i] >> 24 : tail;
    return (int)tail;
}

void geo_png_alpha_rows(const uint32_t *pixels, long width, long rows, long row_words, uint8_t *out) {
    for (long row = 0; row < rows; row++) {
        const uint32_t *words = pixels + row * row_words;
        uint8_t *line = out + row * (1 + width);
        *line++ = 0;   // filter type None
        long x = 0;
        for (; x + 16 <= width; x += 16) {
            // Each word's top byte, 16 at a time: shifted down, then packed 32 -> 16 -> 8 bits.
            const __m128i a = _mm_srli_epi32(_mm_loadu_si128((const __m128i *)(words + x)), 24);
            const __m128i b = _mm_srli_epi32(_mm_loadu_si128((const __m128i *)(words + x + 4)), 24);
            const __m128i c = _mm_srli_epi32(_mm_loadu_si128((const __m128i *)(words + x + 8)), 24);
            const __m128i d = _mm_srli_epi32(_mm_loadu_si128((const __m128i *)(words + x + 12)), 24);
            _mm_storeu_si128((__m128i *)(line + x), _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
        }
        for (; x < width; x++) line[x] = (uint8_t)(words[x] >> 24);
    }
}
