#ifndef KB_CORE_INTERNAL_H
#define KB_CORE_INTERNAL_H

/* What the core layer offers the layers below it beyond the public headers: arrays without
 * the zero fill, kb_fail, which
 * every library function that can fail reports through, typed element access, writing a file
 * atomically, removing temporaries when a signal ends the process, the L2 size kernels block
 * by, scratch memory kept per thread across calls, and the dispatch registry from which each kernel
 * family fills its tables. Other folders include this header, never core's other private
 * headers. */

#include "core/array_uninit.h"
#include "core/atomic_file.h"
#include "core/cache_size.h"
#include "core/cleanup.h"
#include "core/dispatch.h"
#include "core/element.h"
#include "core/fail.h"
#include "core/scratch.h"

#endif
