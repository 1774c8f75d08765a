// Checks on text that comes from outside (a corpus, a dataset's lines): whether it is well-formed
// UTF-8, and where the first bad byte is, before it reaches a JSON request or the store (whose
// JSON refuses it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pipette/util/result.h"

namespace pipette {

// The offset of the first byte of `text` that does not start or continue a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF, no sequence cut
// short), or nullopt when the whole text is well-formed.
std::optional<size_t> FirstInvalidUtf8(std::string_view text);

// `text` with each byte that starts no well-formed UTF-8 sequence (FirstInvalidUtf8) replaced by
// U+FFFD, the replacement character; well-formed text comes back unchanged. For text that is only
// shown (a worker's stderr cut to its last bytes, a store's text edited by hand), where refusing
// it would lose what was measured.
std::string ValidUtf8(std::string text);

// The bad-input error (exit 2) for text read from `file` that is not UTF-8, placed at its first bad
// byte `offset` (FirstInvalidUtf8): "corpus.txt:3:7: not UTF-8: byte 0xFF (offset 52 of the file)
// starts no well-formed UTF-8 sequence; ...". `text` may be part of the file: `first_line` is the
// line it starts on and `base` the file offset of its first byte.
Error NotUtf8Error(const std::string& file, std::string_view text, size_t offset,
                   int first_line = 1, size_t base = 0);

}  // namespace pipette
