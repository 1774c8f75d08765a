// ARM cores by the ids /proc/cpuinfo prints (MIDR implementer and part, as lscpu names them):
// the device facts of a phone or a board.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipette::env {

// "ARM", "Qualcomm", ...; "implementer 0x??" for one not in the table.
std::string ArmImplementerName(int64_t id);
// "Cortex-A76", ... for ARM Ltd's parts; "part 0x???" for another.
std::string ArmPartName(int64_t implementer, int64_t part);
// "ARM Cortex-A76" for a uniform CPU; "ARM Cortex-A55 x4 + ARM Cortex-A76 x4" for big.LITTLE;
// nullopt for no cores.
std::optional<std::string> DescribeArmCores(const std::vector<std::string>& cores);

}  // namespace pipette::env
