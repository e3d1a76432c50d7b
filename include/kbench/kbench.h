#ifndef KBENCH_KBENCH_H
#define KBENCH_KBENCH_H

/* Everything public in libkbench. Link with `pkg-config --cflags --libs kbench`. */

#include "kbench/array.h"
#include "kbench/bench.h"
#include "kbench/bench_main.h"
#include "kbench/change_points.h"
#include "kbench/compare.h"
#include "kbench/cpu.h"
#include "kbench/datasheet.h"
#include "kbench/dtype.h"
#include "kbench/environment.h"
#include "kbench/error.h"
#include "kbench/expr.h"
#include "kbench/gpus.h"
#include "kbench/half.h"
#include "kbench/history.h"
#include "kbench/info.h"
#include "kbench/machine.h"
#include "kbench/memory.h"
#include "kbench/monitor.h"
#include "kbench/npy.h"
#include "kbench/peaks.h"
#include "kbench/reduce.h"
#include "kbench/report.h"
#include "kbench/results.h"
#include "kbench/roofline.h"
#include "kbench/run_results.h"
#include "kbench/significance.h"
#include "kbench/simd.h"
#include "kbench/threads.h"
#include "kbench/trace.h"
#include "kbench/version.h"

#endif
