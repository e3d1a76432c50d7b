#ifndef KBENCH_MACHINE_H
#define KBENCH_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A description of the machine a number was measured on: operating system, CPU, caches and
 * clock. Probing never fails: whatever a system does not expose (no cpufreq in a VM, no cache
 * information under an emulator) is left "unknown" for strings and 0 for numbers. */

typedef enum kb_cache_level {
    KB_CACHE_L1D,
    KB_CACHE_L1I,
    KB_CACHE_L2,
    KB_CACHE_L3,
    KB_CACHE_LEVEL_COUNT
} kb_cache_level;

/* "L1d", "L1i", "L2", "L3"; "?" for an invalid value. */
const char *kb_cache_name(kb_cache_level level);

typedef struct kb_cache {
    int64_t size;  /* bytes of one instance; 0 when unknown */
    int line_size; /* bytes; 0 when unknown */
    int shared_by; /* logical CPUs sharing one instance; 0 when unknown */
} kb_cache;

/* Where the nominal clock came from, best first. */
typedef enum kb_clock_source {
    KB_CLOCK_UNKNOWN,
    KB_CLOCK_BASE_FREQUENCY, /* cpufreq base_frequency */
    KB_CLOCK_MAX_FREQ,       /* cpufreq cpuinfo_max_freq */
    KB_CLOCK_MODEL_NAME,     /* "@ 2.60GHz" in the CPU's model name */
    KB_CLOCK_CPUID,          /* x86 CPUID: base frequency (0x16) or TSC frequency */
    KB_CLOCK_CPUINFO_MHZ,    /* "cpu MHz" in /proc/cpuinfo */
    KB_CLOCK_SOURCE_COUNT
} kb_clock_source;

/* Stable names: "unknown", "base_frequency", "cpuinfo_max_freq", "model_name", "cpuid",
 * "cpu_mhz". */
const char *kb_clock_source_name(kb_clock_source source);

#define KB_MACHINE_NAME_SIZE 128

/* What identifies a CPU model when its brand string does not (under KVM an AMD EPYC is just
 * "AMD EPYC"): x86 CPUID family and model, extended fields included (AMD Genoa is family 25,
 * model 17), or the implementer and part number of an Arm MIDR_EL1. -1 when unknown. */
typedef struct kb_cpu_signature {
    int x86_family;
    int x86_model;
    int arm_implementer;
    int arm_part;
} kb_cpu_signature;

typedef struct kb_machine {
    char os[KB_MACHINE_NAME_SIZE];             /* PRETTY_NAME of os-release, else kernel name */
    char kernel_name[KB_MACHINE_NAME_SIZE];    /* "Linux" */
    char kernel_release[KB_MACHINE_NAME_SIZE]; /* "6.1.0-18-amd64" */
    char kernel_version[KB_MACHINE_NAME_SIZE]; /* "#1 SMP PREEMPT_DYNAMIC Debian ..." */
    char hostname[KB_MACHINE_NAME_SIZE];
    char arch[KB_MACHINE_NAME_SIZE];       /* "x86_64", "aarch64" */
    char cpu_vendor[KB_MACHINE_NAME_SIZE]; /* "GenuineIntel", "AuthenticAMD", "ARM", ... */
    char cpu_model[KB_MACHINE_NAME_SIZE];  /* "AMD EPYC 7R13 Processor", "Neoverse V1", ... */
    char hypervisor[KB_MACHINE_NAME_SIZE]; /* "KVM", "xen", ...; "" when none was detected */
    int logical_cpus;                      /* online, at least 1 */
    int physical_cores;                    /* 0 when unknown */
    int sockets;                           /* 0 when unknown */
    kb_cache caches[KB_CACHE_LEVEL_COUNT];
    double nominal_mhz; /* 0 when unknown */
    kb_clock_source nominal_source;
    kb_cpu_signature signature;
} kb_machine;

/* Describes this machine. Reads /proc, /sys and /etc and, on x86-64, CPUID. */
void kb_machine_probe(kb_machine *out);

/* The same, reading /proc, /sys and /etc under root instead (a fake tree in tests). A
 * non-empty root describes that tree alone: CPUID and uname, which can only describe the
 * live system, are not consulted. An empty root is kb_machine_probe. */
void kb_machine_probe_at(kb_machine *out, const char *root);

/* The hypervisor this system runs under, from CPUID (x86-64, only when use_cpuid), the
 * "hypervisor" CPU flag in root/proc/cpuinfo or root/sys/hypervisor/type. Writes its name
 * ("KVM", "Microsoft Hyper-V", "xen", "unknown" when present but unnamed) and returns true,
 * or writes "" and returns false when nothing indicates one. */
bool kb_hypervisor_detect(const char *root, bool use_cpuid, char *name, int size);

/* The core clock measured with a chain of dependent integer adds, one cycle each. */
typedef struct kb_clock_measurement {
    double mhz;     /* median over the repetitions, each its fastest slice */
    double min_mhz; /* the spread of the repetitions */
    double max_mhz;
    int repetitions;
} kb_clock_measurement;

#define KB_CLOCK_MAX_REPETITIONS 64

/* Measures the core clock: a short warm-up, then repetitions (0 means 5) of seconds each (0
 * means 0.02), each the rate of its fastest slice of a million dependent adds, timed with
 * CLOCK_MONOTONIC_RAW (a shared core only slows a slice down). KB_EUNSUPPORTED on architectures
 * without the add chain (neither x86-64 nor aarch64), KB_EINVAL for out-of-range arguments; out is
 * zeroed on failure. The result is the clock the core ran at, turbo included. */
kb_status kb_clock_measure(double seconds, int repetitions, kb_clock_measurement *out);

#ifdef __cplusplus
}
#endif

#endif
