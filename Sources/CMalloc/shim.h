// glibc's malloc tuning (mallopt and its M_* parameters), which Swift's Glibc module leaves out.
#include <malloc.h>
