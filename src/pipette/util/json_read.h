// Typed reads of JSON from outside Pipette (a worker's or a server's reply read back from a store,
// a model's metadata): a value of another type, or a key that is missing, reads as absent and
// never throws. Each read names the key it wants, so a caller checks types where it reads.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pipette::json_read {

// A whole number that fits int64 (a float too, where it is finite and fits), else nullopt.
std::optional<int64_t> AsInt(const nlohmann::json& v);

// j[key] where j is an object that has it, else null (which is empty and contains nothing).
nlohmann::json Member(const nlohmann::json& j, const char* key);
// The same without a copy (a sample's arrays of tokens): a reference into j, or to a null that
// lives as long as the program. Never `j[key]` on a const json: a missing key is undefined
// behaviour there (an assertion in a debug build), not an exception.
const nlohmann::json& Ref(const nlohmann::json& j, const char* key);

// j[key] as a whole number (AsInt), a number, a string or a boolean; absent for another type.
std::optional<int64_t> Int(const nlohmann::json& j, const char* key);
std::optional<double> Number(const nlohmann::json& j, const char* key);
std::string String(const nlohmann::json& j, const char* key, const std::string& fallback = "");
bool Flag(const nlohmann::json& j, const char* key, bool fallback);

// The whole numbers of an array, in order; a value of another type ends the list there.
std::vector<int64_t> Ints(const nlohmann::json& j);

}  // namespace pipette::json_read
