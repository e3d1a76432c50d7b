#ifndef KB_MACHINE_PROBE_ARM_CPU_NAMES_H
#define KB_MACHINE_PROBE_ARM_CPU_NAMES_H

/* Names for the implementer and part numbers of an Arm MIDR_EL1 register, as reported by
 * /proc/cpuinfo ("CPU implementer : 0x41", "CPU part : 0xd0c"). NULL when not in the table. */
const char *kb_arm_implementer_name(unsigned implementer);
const char *kb_arm_part_name(unsigned implementer, unsigned part);

#endif
