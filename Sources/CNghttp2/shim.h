#ifndef ORRERY_CNGHTTP2_SHIM_H
#define ORRERY_CNGHTTP2_SHIM_H

// nghttp2.h uses ssize_t without including what defines it.
#include <sys/types.h>
#include <nghttp2/nghttp2.h>

#endif
