// The readiness gate's looks at a device (run/readiness.h): this machine's own /proc and /sys,
// or another device's through its shell.
#pragma once

#include <memory>
#include <string>

#include "pipette/device/device.h"
#include "pipette/run/readiness.h"

namespace pipette::app {

// The folder the sensors are read under instead of / (PIPETTE_SYSFS_ROOT): a fake sysfs tree in
// tests; "" for the device's own.
std::string SensorsRootFromEnvironment();

// This machine: other processes' share of the CPUs over the window (everything but this process
// and the processes under it: Pipette's workers), and the hottest CPU zone of /sys, or of
// `sensors_root`/sys when given (a fake tree; every look records it).
std::unique_ptr<run::ReadyProbe> LocalReadyProbe(std::string sensors_root = "");

// A device reached through a shell (ssh, adb): /proc/stat twice, `window` apart, and its thermal
// zones, in one script. Pipette's worker there is idle while the gate looks, so all busy time
// is counted as others'.
std::unique_ptr<run::ReadyProbe> ShellReadyProbe(device::Device& device);

// The probe for `device`: ShellReadyProbe for a device reached through a shell, else the local.
std::unique_ptr<run::ReadyProbe> ReadyProbeFor(device::Device& device,
                                               const std::string& sensors_root);

}  // namespace pipette::app
