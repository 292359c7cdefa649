// cairo (libcairo), loaded on first use, so that only `geo render` and `geo tiles` load it and the ~20
// libraries it pulls in: see lazy_library.h.
// The header's own export macro, set to hidden: these wrappers stay inside the executable.
#define cairo_public __attribute__((visibility("hidden")))
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <cairo/cairo-svg.h>

#include "lazy_library.h"

static struct lazy_library cairo = {
    {"libcairo.so.2", "libcairo.so"}, "cairo", "libcairo2", PTHREAD_MUTEX_INITIALIZER, NULL,
};
#define LAZY_LIBRARY cairo

FORWARD_VOID(cairo_arc, (cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2),
        (cr, xc, yc, radius, angle1, angle2))
FORWARD_VOID(cairo_clip, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_close_path, (cairo_t *cr), (cr))
FORWARD(cairo_rectangle_list_t *, cairo_copy_clip_rectangle_list, (cairo_t *cr), (cr))
FORWARD(cairo_t *, cairo_create, (cairo_surface_t *target), (target))
FORWARD_VOID(cairo_destroy, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_fill, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_fill_preserve, (cairo_t *cr), (cr))
FORWARD(cairo_surface_t *, cairo_get_group_target, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_get_matrix, (cairo_t *cr, cairo_matrix_t *matrix), (cr, matrix))
FORWARD(cairo_operator_t, cairo_get_operator, (cairo_t *cr), (cr))
FORWARD(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height),
        (format, width, height))
FORWARD(cairo_surface_t *, cairo_image_surface_create_from_png, (const char *filename), (filename))
FORWARD(unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *surface), (surface))
FORWARD(cairo_format_t, cairo_image_surface_get_format, (cairo_surface_t *surface), (surface))
FORWARD(int, cairo_image_surface_get_height, (cairo_surface_t *surface), (surface))
FORWARD(int, cairo_image_surface_get_stride, (cairo_surface_t *surface), (surface))
FORWARD(int, cairo_image_surface_get_width, (cairo_surface_t *surface), (surface))
FORWARD_VOID(cairo_line_to, (cairo_t *cr, double x, double y), (cr, x, y))
FORWARD(cairo_status_t, cairo_matrix_invert, (cairo_matrix_t *matrix), (matrix))
FORWARD_VOID(cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
FORWARD_VOID(cairo_new_path, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_paint, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_pattern_add_color_stop_rgba, (cairo_pattern_t *pattern, double offset,
                                                 double red, double green, double blue, double alpha),
        (pattern, offset, red, green, blue, alpha))
FORWARD(cairo_pattern_t *, cairo_pattern_create_for_surface, (cairo_surface_t *surface), (surface))
FORWARD(cairo_pattern_t *, cairo_pattern_create_linear, (double x0, double y0, double x1, double y1),
        (x0, y0, x1, y1))
FORWARD_VOID(cairo_pattern_destroy, (cairo_pattern_t *pattern), (pattern))
FORWARD_VOID(cairo_pattern_set_extend, (cairo_pattern_t *pattern, cairo_extend_t extend), (pattern, extend))
FORWARD_VOID(cairo_pattern_set_matrix, (cairo_pattern_t *pattern, const cairo_matrix_t *matrix), (pattern, matrix))
FORWARD(cairo_surface_t *, cairo_pdf_surface_create_for_stream, (cairo_write_func_t write_func,
                                                                 void *closure, double width_in_points, double height_in_points),
        (write_func, closure, width_in_points, height_in_points))
FORWARD(cairo_pattern_t *, cairo_pop_group, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_push_group, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_rectangle, (cairo_t *cr, double x, double y, double width, double height), (cr, x, y, width, height))
FORWARD_VOID(cairo_rectangle_list_destroy, (cairo_rectangle_list_t *rectangle_list), (rectangle_list))
FORWARD_VOID(cairo_restore, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_rotate, (cairo_t *cr, double angle), (cr, angle))
FORWARD_VOID(cairo_save, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_scale, (cairo_t *cr, double sx, double sy), (cr, sx, sy))
FORWARD_VOID(cairo_set_antialias, (cairo_t *cr, cairo_antialias_t antialias), (cr, antialias))
FORWARD_VOID(cairo_set_fill_rule, (cairo_t *cr, cairo_fill_rule_t fill_rule), (cr, fill_rule))
FORWARD_VOID(cairo_set_line_cap, (cairo_t *cr, cairo_line_cap_t line_cap), (cr, line_cap))
FORWARD_VOID(cairo_set_line_join, (cairo_t *cr, cairo_line_join_t line_join), (cr, line_join))
FORWARD_VOID(cairo_set_line_width, (cairo_t *cr, double width), (cr, width))
FORWARD_VOID(cairo_set_operator, (cairo_t *cr, cairo_operator_t op), (cr, op))
FORWARD_VOID(cairo_set_source, (cairo_t *cr, cairo_pattern_t *source), (cr, source))
FORWARD_VOID(cairo_set_source_rgba, (cairo_t *cr, double red, double green, double blue, double alpha),
        (cr, red, green, blue, alpha))
FORWARD_VOID(cairo_set_source_surface, (cairo_t *cr, cairo_surface_t *surface, double x, double y),
        (cr, surface, x, y))
FORWARD(const char *, cairo_status_to_string, (cairo_status_t status), (status))
FORWARD_VOID(cairo_stroke, (cairo_t *cr), (cr))
FORWARD_VOID(cairo_surface_destroy, (cairo_surface_t *surface), (surface))
FORWARD_VOID(cairo_surface_finish, (cairo_surface_t *surface), (surface))
FORWARD_VOID(cairo_surface_flush, (cairo_surface_t *surface), (surface))
FORWARD_VOID(cairo_surface_get_device_offset, (cairo_surface_t *surface, double *x_offset, double *y_offset),
        (surface, x_offset, y_offset))
FORWARD(cairo_surface_type_t, cairo_surface_get_type, (cairo_surface_t *surface), (surface))
FORWARD_VOID(cairo_surface_mark_dirty_rectangle, (cairo_surface_t *surface, int x, int y, int width, int height),
        (surface, x, y, width, height))
FORWARD(cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface))
FORWARD(cairo_surface_t *, cairo_svg_surface_create_for_stream, (cairo_write_func_t write_func,
                                                                 void *closure, double width_in_points, double height_in_points),
        (write_func, closure, width_in_points, height_in_points))
FORWARD_VOID(cairo_svg_surface_set_document_unit, (cairo_surface_t *surface, cairo_svg_unit_t unit), (surface, unit))
FORWARD_VOID(cairo_translate, (cairo_t *cr, double tx, double ty), (cr, tx, ty))
