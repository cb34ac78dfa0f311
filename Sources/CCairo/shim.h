// Cairo (image, SVG and PDF surfaces) with its FreeType font backend, for the image
// export (ChartExport). Only ChartExport imports this module.
#include <cairo.h>
#include <cairo-ft.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
#include <ft2build.h>
#include FT_FREETYPE_H
