// The sensor readers against tests/data/fake-sysfs, a fake sysfs tree (named as one: this
// machine exposes none of these sensors), and against in-memory snapshots.
#include "pipette/env/sensors.h"

#include <gtest/gtest.h>

#include "pipette/testing/paths.h"

namespace pipette::env {
namespace {

const std::string kFakeRoot = pipette::testing::SourceDir() + "/tests/data/fake-sysfs";

TEST(Sensors, ReadsTheFakeTree) {
  const LocalFiles disk;
  const Sensors s = ReadSensors(RootedFiles(kFakeRoot, disk));
  EXPECT_EQ(s.cpu_freq_khz, (std::map<int, int64_t>{{0, 1800000}, {1, 2400000}}));
  ASSERT_EQ(s.thermal.size(), 2u);
  EXPECT_EQ(s.thermal[0].type, "cpu-thermal");
  EXPECT_DOUBLE_EQ(s.thermal[0].temp_c, 48.5);
  EXPECT_EQ(HottestC(s), 48.5);  // the CPU's zone, not the battery's
  const PowerSupply* battery = Battery(s);
  ASSERT_NE(battery, nullptr);
  EXPECT_EQ(battery->status, "Discharging");
  EXPECT_EQ(battery->capacity_pct, 87);
  ASSERT_TRUE(battery->power_w.has_value());
  EXPECT_NEAR(*battery->power_w, 0.45 * 3.9, 1e-12);  // current_now x voltage_now
  ASSERT_EQ(s.power.size(), 2u);
  EXPECT_EQ(s.power[1].name, "usb");
  EXPECT_EQ(s.power[1].online, false);
  ASSERT_EQ(s.energy.size(), 1u);  // the package, not its core part
  EXPECT_EQ(s.energy[0].name, "package-0");
  EXPECT_EQ(s.energy[0].energy_uj, 1000000);
  EXPECT_TRUE(s.na.empty());
  const nlohmann::json j = ToJson(s);
  EXPECT_EQ(j["cpu_freq_khz"]["cpu1"], 2400000);
  EXPECT_EQ(j["thermal"][1]["type"], "battery");
  EXPECT_FALSE(j.contains("na"));
}

TEST(Sensors, WhatADeviceDoesNotExposeIsNaWithTheReason) {
  const Sensors s = ReadSensors(SnapshotFiles({}));
  EXPECT_TRUE(s.cpu_freq_khz.empty());
  EXPECT_EQ(HottestC(s), std::nullopt);
  EXPECT_EQ(Battery(s), nullptr);
  EXPECT_EQ(s.na.at("thermal"), "no thermal zone under /sys/class/thermal");
  EXPECT_EQ(s.na.at("power"), "no power supply under /sys/class/power_supply");
  EXPECT_NE(s.na.at("energy").find("no readable energy counter"), std::string::npos);
  EXPECT_NE(s.na.at("cpu_freq").find("no cpufreq"), std::string::npos);
  const auto energy = EnergyBetween(s, s);
  ASSERT_FALSE(energy.ok());
  EXPECT_EQ(energy.error().message, s.na.at("energy"));
}

TEST(Sensors, EnergyBetweenTwoReadingsCountsAWrappedCounter) {
  auto reading = [](int64_t uj) {
    return ReadSensors(
        SnapshotFiles({{"/sys/class/powercap/intel-rapl:0/energy_uj", std::to_string(uj) + "\n"},
                       {"/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "1000000000\n"}}));
  };
  EXPECT_DOUBLE_EQ(*EnergyBetween(reading(1000000), reading(3500000)), 2.5);
  // The counter wrapped at its range (1000 J): 999.5 J -> 0.5 J is 1 J.
  EXPECT_DOUBLE_EQ(*EnergyBetween(reading(999500000), reading(500000)), 1.0);
}

TEST(Sensors, PowerNowIsPreferredAndTheHottestZoneStandsInWithoutACpuZone) {
  const Sensors s = ReadSensors(SnapshotFiles({
      {"/sys/class/power_supply/BAT0/type", "Battery\n"},
      {"/sys/class/power_supply/BAT0/power_now", "7250000\n"},
      {"/sys/class/power_supply/BAT0/current_now", "1\n"},
      {"/sys/class/power_supply/BAT0/voltage_now", "1\n"},
      {"/sys/class/thermal/thermal_zone0/type", "acpitz\n"},
      {"/sys/class/thermal/thermal_zone0/temp", "41000\n"},
      {"/sys/class/thermal/thermal_zone1/type", "skin\n"},
      {"/sys/class/thermal/thermal_zone1/temp", "36000\n"},
  }));
  EXPECT_DOUBLE_EQ(*Battery(s)->power_w, 7.25);
  EXPECT_EQ(HottestC(s), 41.0);
}

// Energy of a measured stretch: the powercap counters, else a discharging battery's power.
TEST(Sensors, EnergyFactsFromCountersElseTheBattery) {
  const LocalFiles disk;
  Sensors before = ReadSensors(RootedFiles(kFakeRoot, disk));
  Sensors after = before;
  after.energy[0].energy_uj += 3000000;
  EXPECT_TRUE(HasEnergySource(before));
  EXPECT_EQ(EnergyFacts(before, after, 2.0),
            nlohmann::json({{"joules", 3.0}, {"seconds", 2.0}, {"source", "powercap"}}));
  // No counter: the battery's mean power over the stretch (0.45 A x 3.9 V, then 2 W).
  before.energy.clear();
  after.energy.clear();
  after.power[0].power_w = 2.0;
  const nlohmann::json battery = EnergyFacts(before, after, 4.0);
  EXPECT_EQ(battery["source"], "battery power_now");
  EXPECT_NEAR(battery["joules"].get<double>(), (0.45 * 3.9 + 2.0) / 2 * 4.0, 1e-12);
  // A charging battery's power is not the device's draw.
  after.power[0].status = "Charging";
  EXPECT_EQ(EnergyFacts(before, after, 4.0)["na"],
            "the battery is charging, not discharging: its power is not the device's draw");
  // Nothing to read (this development machine): n/a with the reason.
  const Sensors none = ReadSensors(SnapshotFiles({}));
  EXPECT_FALSE(HasEnergySource(none));
  const std::string why = EnergyFacts(none, none, 1.0)["na"];
  EXPECT_EQ(why.rfind("no powercap energy counter and no battery power reading (", 0), 0u) << why;
}

}  // namespace
}  // namespace pipette::env
