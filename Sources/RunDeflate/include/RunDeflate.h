#ifndef GEO_RUN_DEFLATE_H
#define GEO_RUN_DEFLATE_H

// The module's two halves, each a C file of its own: a PNG's rows made from cairo's pixels
// (png_rows.h, png_rows.c), then deflated (run_deflate.h, run_deflate.c).
#include "png_rows.h"
#include "run_deflate.h"

#endif
