#ifndef ORRERY_CZLIB_SHIM_H
#define ORRERY_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 is a function-like macro, which Swift cannot see.
static inline int CZlib_deflateInit2(z_streamp stream, int level, int method, int windowBits, int memLevel,
                                     int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

#endif
