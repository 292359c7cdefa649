// PROJ's coordinate operations and Karney's geodesic routines (libproj-dev).
#include <proj.h>
#include <geodesic.h>
