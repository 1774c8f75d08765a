// Text that came from a server (an error body, an error event, a line that is not JSON) made fit
// for a message, the store and a terminal: the API key and a URL's secrets cut out first, then
// made printable valid UTF-8, then cut to one bound. Redaction comes before the cut, so that no
// cut can leave part of a secret that no longer matches it whole.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pipette::http {

// The most bytes of a server's own words any message or stored error keeps.
inline constexpr size_t kMaxServerText = 300;
// The shortest part of a secret recognised at a cut end of a text (a body cut by a size cap).
inline constexpr size_t kMinSecretPart = 4;

// `text` with every occurrence of `secret` replaced by "[api key]", and a part of it at least
// kMinSecretPart long where the text was cut through it: a prefix of `secret` that ends the text,
// a suffix of it that starts the text. `secret` empty: `text` as it is.
std::string RedactSecret(std::string_view text, std::string_view secret);

// `text` with the secrets of every URL in it ("scheme://...") cut out: the userinfo of
// "user:pass@host" becomes "[credentials]@", a query or fragment "?[redacted]".
std::string RedactUrls(std::string_view text);

// A server's words as messages and the store keep them: RedactSecret, RedactUrls, control
// characters (line breaks, escapes) as spaces, invalid UTF-8 as '?', and at most `max` bytes (cut
// at a character's start) with " ... [N more bytes]" when cut.
std::string ServerText(std::string_view text, std::string_view secret, size_t max = kMaxServerText);

// Whether `value` holds a control character (a byte below 0x20, or DEL): in a header it would end
// the header or start another.
bool HasControlCharacter(std::string_view value);

}  // namespace pipette::http
