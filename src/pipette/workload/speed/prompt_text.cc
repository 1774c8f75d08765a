#include "pipette/workload/speed/prompt_text.h"

namespace pipette::workload {
namespace {

constexpr const char* kPassage =
    "The harbour town woke slowly in winter. Before the sun had cleared the hills, the baker on "
    "the corner had already pulled three trays of bread from the oven, and the smell drifted "
    "down the lane toward the water, where the fishing boats rocked against their ropes. An old "
    "man walked his dog along the sea wall every morning at the same hour, stopping at the same "
    "bench to look at the same lighthouse, as if he expected it to have moved during the night. "
    "Children ran past him on their way to school, their bags bouncing, arguing about a game "
    "they had played the evening before. By the time the market opened, the square was full of "
    "voices: farmers calling out the price of apples and cabbages, a woman selling wool she had "
    "spun herself, a student reading a newspaper aloud to a friend who could not find his "
    "glasses. Nobody in the town was in a hurry, and yet everything that needed doing got done. "
    "In the afternoon the wind turned, clouds came in from the west, and the first drops of "
    "rain sent everyone indoors. The library, a narrow stone building with tall windows, filled "
    "with people who claimed they only wanted to stay dry but somehow left with a book under "
    "each arm. The librarian, who had worked there for thirty years, knew which shelf every "
    "visitor would walk to before they took off their coats. When the rain stopped, the streets "
    "shone under the lamps, and the smell of wood smoke rose from a hundred chimneys. ";

}  // namespace

std::string ProseText(size_t min_chars) {
  std::string out;
  while (out.size() < min_chars) out += kPassage;
  return out;
}

}  // namespace pipette::workload
