// cairo's drawing API and its PNG, PDF and SVG surfaces (libcairo2-dev).
#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
