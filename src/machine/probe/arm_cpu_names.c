/* Arm CPU names by implementer and part number (MIDR_EL1). */
#include <stddef.h>

#include "machine/probe/arm_cpu_names.h"

/* Values from the vendors' technical reference manuals (the MIDR_EL1 description) and from
 * Linux's arch/arm64/include/asm/cputype.h. Server cores come first: they are where kbench
 * results are compared. */
static const struct {
    unsigned implementer;
    const char *name;
} implementers[] = {
    {0x41, "ARM"},       {0x42, "Broadcom"},  {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},    {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x61, "Apple"},     {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

static const struct {
    unsigned implementer, part;
    const char *name;
} parts[] = {
    {0x41, 0xd0c, "Neoverse N1"}, {0x41, 0xd40, "Neoverse V1"}, {0x41, 0xd49, "Neoverse N2"},
    {0x41, 0xd4f, "Neoverse V2"}, {0x41, 0xd84, "Neoverse V3"}, {0x41, 0xd8e, "Neoverse N3"},
    {0x41, 0xd4a, "Neoverse E1"}, {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd04, "Cortex-A35"},
    {0x41, 0xd05, "Cortex-A55"},  {0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},
    {0x41, 0xd09, "Cortex-A73"},  {0x41, 0xd0a, "Cortex-A75"},  {0x41, 0xd0b, "Cortex-A76"},
    {0x41, 0xd0d, "Cortex-A77"},  {0x41, 0xd41, "Cortex-A78"},  {0x41, 0xd44, "Cortex-X1"},
    {0x41, 0xd46, "Cortex-A510"}, {0x41, 0xd47, "Cortex-A710"}, {0x41, 0xd48, "Cortex-X2"},
    {0x41, 0xd4b, "Cortex-A78C"}, {0x41, 0xd4d, "Cortex-A715"}, {0x41, 0xd4e, "Cortex-X3"},
    {0x41, 0xd80, "Cortex-A520"}, {0x41, 0xd81, "Cortex-A720"}, {0x41, 0xd82, "Cortex-X4"},
    {0x42, 0x516, "ThunderX2"},   {0x43, 0x0af, "ThunderX2"},   {0x46, 0x001, "A64FX"},
    {0x48, 0xd01, "Kunpeng 920"}, {0x4e, 0x004, "Carmel"},      {0x51, 0x001, "Oryon"},
    {0xc0, 0xac3, "AmpereOne"},   {0xc0, 0xac4, "AmpereOne A"}, {0x6d, 0xd49, "Azure Cobalt 100"},
};

const char *kb_arm_implementer_name(unsigned implementer) {
    for (size_t i = 0; i < sizeof implementers / sizeof implementers[0]; i++)
        if (implementers[i].implementer == implementer)
            return implementers[i].name;
    return NULL;
}

const char *kb_arm_part_name(unsigned implementer, unsigned part) {
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].implementer == implementer && parts[i].part == part)
            return parts[i].name;
    return NULL;
}
