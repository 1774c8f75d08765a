#include "pipette/run/readiness.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace pipette::run {
namespace {

using nlohmann::json;

template <class T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json LookJson(const ReadyLook& l) {
  json out = {{"cpu_busy", OrNull(l.cpu_busy)}, {"temp_c", OrNull(l.temp_c)}};
  if (!l.cpu_na.empty()) out["cpu_na"] = l.cpu_na;
  if (!l.temp_na.empty()) out["temp_na"] = l.temp_na;
  if (!l.sensors_root.empty()) out["sensors_root"] = l.sensors_root;
  return out;
}

}  // namespace

ReadyClock ReadyClock::Steady() {
  return {
      [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
      },
      [](double s) {
        if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
      }};
}

json ReadyFound::ToJson() const {
  json out = {{"ready", ready}, {"waited_s", waited_s}, {"looks", looks}};
  out.update(LookJson(last));
  if (!reason.empty()) out["reason"] = reason;
  return out;
}

json CooledDown::ToJson() const {
  json out = {{"waited_s", waited_s}, {"temp_c", OrNull(temp_c)}, {"reached", reached}};
  if (start_temp_c) out["start_temp_c"] = *start_temp_c;
  if (!note.empty()) out["note"] = note;
  return out;
}

std::string NotReadyReason(const ReadyLimits& limits, const ReadyLook& look) {
  if (look.cpu_busy && *look.cpu_busy > limits.cpu_busy_max) {
    return fmt::format(
        "other processes kept the CPUs {:.0f}% busy over {:g} s, above the {:.0f}% allowed",
        *look.cpu_busy * 100, limits.window_s, limits.cpu_busy_max * 100);
  }
  if (limits.temp_max_c && look.temp_c && *look.temp_c > *limits.temp_max_c) {
    return fmt::format("the CPU is at {:.1f} °C, above the {:g} °C allowed", *look.temp_c,
                       *limits.temp_max_c);
  }
  return "";
}

Result<ReadyFound> WaitUntilReady(const ReadyLimits& limits, ReadyProbe& probe,
                                  const ReadyClock& clock, const StopFlag& stopped) {
  ReadyFound found;
  const double start = clock.now_s();
  while (true) {
    if (stopped && stopped()) {
      found.ready = false;
      found.reason = "interrupted";
      found.waited_s = clock.now_s() - start;
      return found;
    }
    auto look = probe.Look(limits.window_s);
    if (!look) return look.error();
    ++found.looks;
    found.last = std::move(*look);
    found.reason = NotReadyReason(limits, found.last);
    found.waited_s = clock.now_s() - start;
    if (found.reason.empty()) {
      found.ready = true;
      return found;
    }
    if (found.waited_s >= limits.deadline_s) {
      found.reason =
          fmt::format("not ready after waiting {:.0f} s: {}", found.waited_s, found.reason);
      return found;
    }
  }
}

Result<CooledDown> CoolDown(const Cooldown& cooldown, std::optional<double> start_temp_c,
                            const ReadyLimits& limits, ReadyProbe& probe, const ReadyClock& clock,
                            const StopFlag& stopped) {
  CooledDown done;
  const double start = clock.now_s();
  auto stop = [&] { return stopped && stopped(); };
  // Slept a second at a time, so that Ctrl-C need not wait for the rest.
  for (double left = cooldown.seconds; left > 0 && !stop(); left -= 1) {
    clock.sleep_s(std::min(left, 1.0));
  }
  if (cooldown.until_start_temperature) {
    if (!start_temp_c) {
      done.note = "the device exposes no CPU temperature: cooled down by time alone";
    } else {
      done.start_temp_c = start_temp_c;
      while (!stop()) {
        auto look = probe.Look(limits.window_s);
        if (!look) return look.error();
        done.temp_c = look->temp_c;
        if (!look->temp_c || *look->temp_c <= *start_temp_c) break;
        if (clock.now_s() - start >= limits.deadline_s) {
          done.reached = false;
          break;
        }
      }
    }
  }
  done.waited_s = clock.now_s() - start;
  return done;
}

}  // namespace pipette::run
