// cairo's drawing API and its PNG, PDF and SVG surfaces (libcairo2-dev). Headers only:
// SystemLibraries loads libcairo on first use.
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>
