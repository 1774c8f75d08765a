#include "pipette/http/text.h"

#include <gtest/gtest.h>

namespace pipette::http {
namespace {

const std::string kKey = "sk-test-0123456789abcdefghijklmnopqrstu";  // 39 characters

TEST(ServerText, TheKeyIsRedactedBeforeTheTextIsCut) {
  // A 401 body that echoes the Authorization header after 254 bytes of padding: cut first, 38
  // of the key's 39 characters would remain and no longer match it.
  const std::string body =
      std::string(254, 'x') + "Bearer " + kKey + " rejected" + std::string(100, 'y');
  const std::string text = ServerText(body, kKey);
  EXPECT_EQ(text.find("sk-test"), std::string::npos) << text;
  EXPECT_EQ(text.find("0123"), std::string::npos) << text;
  EXPECT_LE(text.size(), kMaxServerText + 40);
  EXPECT_NE(text.find("more bytes]"), std::string::npos) << text;
}

TEST(ServerText, APartOfTheKeyAtACutEndIsRedacted) {
  // A body already cut by a size cap, through the key: its start ends the text.
  EXPECT_EQ(RedactSecret("denied: Bearer " + kKey.substr(0, 10), kKey), "denied: Bearer [api key]");
  EXPECT_EQ(RedactSecret(kKey.substr(30) + " was the key", kKey), "[api key] was the key");
  // Shorter than the bound, a prefix is not taken for the key; elsewhere it is left.
  EXPECT_EQ(RedactSecret("ends with sk-", kKey), "ends with sk-");
  EXPECT_EQ(RedactSecret("sk-test-0 in the middle", kKey), "sk-test-0 in the middle");
  EXPECT_EQ(RedactSecret(kKey + kKey, kKey), "[api key][api key]");
  EXPECT_EQ(RedactSecret("no secret", ""), "no secret");
}

TEST(ServerText, AUrlsSecretsAreRedacted) {
  EXPECT_EQ(RedactUrls("URL 'http://h:1/v1?api_key=SECRET&x=1': no query"),
            "URL 'http://h:1/v1?[redacted]': no query");
  EXPECT_EQ(RedactUrls("at https://user:pa55@host.example/v1#frag and http://ok/v1"),
            "at https://[credentials]@host.example/v1?[redacted] and http://ok/v1");
  EXPECT_EQ(RedactUrls("http://u:p@h"), "http://[credentials]@h");
  EXPECT_EQ(RedactUrls("no url :// here"), "no url :// here");
}

TEST(ServerText, OneBoundForAnyLengthPrintableAndValidUtf8) {
  const std::string huge(50 * 1024 * 1024, 'e');
  const std::string text = ServerText(huge, "");
  EXPECT_LT(text.size(), kMaxServerText + 40);
  EXPECT_NE(text.find("[52428500 more bytes]"), std::string::npos) << text;
  // Line breaks and escapes become spaces; invalid UTF-8 '?'; a character is never cut in two.
  EXPECT_EQ(ServerText("a\r\nb\x1b[31m\xff\xc3", ""), "a  b [31m??");
  EXPECT_EQ(ServerText("\xed\xa0\x80", ""), "???");  // a surrogate
  const std::string accents = std::string(299, 'a') + "\xc3\xa9\xc3\xa9";
  EXPECT_EQ(ServerText(accents, ""), std::string(299, 'a') + " ... [4 more bytes]");
  EXPECT_EQ(ServerText("short é", ""), "short é");
}

TEST(ServerText, ControlCharactersAreFound) {
  EXPECT_TRUE(HasControlCharacter("key\r\nX-Injected: 1"));
  EXPECT_TRUE(HasControlCharacter(std::string("a\0b", 3)));
  EXPECT_TRUE(HasControlCharacter("tab\there"));
  EXPECT_TRUE(HasControlCharacter("del\x7f"));
  EXPECT_FALSE(HasControlCharacter("sk-abc_123.XYZ"));
}

}  // namespace
}  // namespace pipette::http
