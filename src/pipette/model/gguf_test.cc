#include "pipette/model/gguf.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/testing/paths.h"

namespace pipette::model {
namespace {

// GGUF metadata value types, as numbers in the file.
constexpr uint32_t kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
                   kStr = 8, kArr = 9, kU64 = 10, kI64 = 11, kF64 = 12;
// ggml tensor types used here.
constexpr uint32_t kGgmlF32 = 0, kGgmlQ4_1 = 3;

// Writes GGUF bytes little-endian, piece by piece, so tests can build valid and broken files.
class GgufWriter {
 public:
  GgufWriter& Raw(std::string_view bytes) {
    out_.append(bytes);
    return *this;
  }
  GgufWriter& U8(uint8_t v) { return Le(v, 1); }
  GgufWriter& U16(uint16_t v) { return Le(v, 2); }
  GgufWriter& U32(uint32_t v) { return Le(v, 4); }
  GgufWriter& U64(uint64_t v) { return Le(v, 8); }
  GgufWriter& F32(float v) { return U32(std::bit_cast<uint32_t>(v)); }
  GgufWriter& F64(double v) { return U64(std::bit_cast<uint64_t>(v)); }
  GgufWriter& Str(std::string_view s) { return U64(s.size()).Raw(s); }

  // Magic, version, tensor count, metadata count.
  GgufWriter& Header(uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
    return Raw("GGUF").U32(version).U64(n_tensors).U64(n_kv);
  }
  // A metadata key and its value type; the caller writes the value.
  GgufWriter& Key(std::string_view key, uint32_t type) { return Str(key).U32(type); }
  GgufWriter& KvString(std::string_view key, std::string_view value) {
    return Key(key, kStr).Str(value);
  }
  GgufWriter& KvU32(std::string_view key, uint32_t value) { return Key(key, kU32).U32(value); }
  GgufWriter& TensorInfo(std::string_view name, const std::vector<uint64_t>& dims, uint32_t type,
                         uint64_t offset) {
    Str(name).U32(static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims) U64(d);
    return U32(type).U64(offset);
  }
  GgufWriter& PadTo(size_t alignment) {
    while (out_.size() % alignment != 0) out_.push_back('\0');
    return *this;
  }
  GgufWriter& Fill(size_t n, char c = '\x5a') {
    out_.append(n, c);
    return *this;
  }

  size_t size() const { return out_.size(); }
  const std::string& bytes() const { return out_; }

 private:
  GgufWriter& Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }

  std::string out_;
};

class GgufTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pipette_gguf_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Write(const std::string& name, std::string_view bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  // Reads `bytes` as a GGUF file and expects it to fail with an input error; returns the message.
  std::string ErrorFor(std::string_view bytes, const std::string& name = "x.gguf") {
    const std::string path = Write(name, bytes);
    Result<GgufFile> file = ReadGguf(path);
    EXPECT_FALSE(file.ok());
    if (file.ok()) return "";
    EXPECT_EQ(file.error().exit_code, 2) << file.error().message;
    EXPECT_EQ(file.error().message.rfind(path + ": ", 0), 0u) << file.error().message;
    return file.error().message;
  }

  std::filesystem::path dir_;
};

// A small valid file: two tensors (f32 [4,2] = 32 bytes, q4_1 [64,2] = 4 blocks of 20 bytes),
// metadata of every value type. `alignment` 0 means no general.alignment key (default 32).
GgufWriter SmallModel(uint32_t version = 3, uint32_t alignment = 0) {
  GgufWriter w;
  w.Header(version, 2, alignment == 0 ? 19 : 20);
  w.KvString("general.architecture", "llama");
  w.KvU32("general.file_type", 3);
  w.KvString("general.name", "Tiny Test");
  w.Key("test.u8", kU8).U8(200);
  w.Key("test.i8", kI8).U8(0xfd);  // -3
  w.Key("test.u16", kU16).U16(65535);
  w.Key("test.i16", kI16).U16(0x8000);      // -32768
  w.Key("test.i32", kI32).U32(0xffffffff);  // -1
  w.Key("test.u64", kU64).U64(18446744073709551615ull);
  w.Key("test.i64", kI64).U64(static_cast<uint64_t>(int64_t{-5000000000}));
  w.Key("test.f32", kF32).F32(1e-5f);
  w.Key("test.f32_big", kF32).F32(1e5f);
  w.Key("test.f32_tiny", kF32).F32(1e-12f);
  w.Key("test.f64", kF64).F64(0.1);
  w.Key("test.true", kBool).U8(1);
  w.Key("test.false", kBool).U8(0);
  w.Key("tokenizer.ggml.tokens", kArr).U32(kStr).U64(3).Str("<s>").Str("").Str("hello");
  w.Key("test.ints", kArr).U32(kI32).U64(4).U32(1).U32(2).U32(3).U32(4);
  w.Key("test.nested", kArr).U32(kArr).U64(2);
  w.U32(kU8).U64(2).U8(1).U8(2);
  w.U32(kStr).U64(1).Str("x");
  if (alignment != 0) w.KvU32("general.alignment", alignment);
  const uint32_t align = alignment == 0 ? 32 : alignment;
  w.TensorInfo("token_embd.weight", {4, 2}, kGgmlF32, 0);
  w.TensorInfo("blk.0.ffn_up.weight", {64, 2}, kGgmlQ4_1, align);  // 32 bytes padded to align
  w.PadTo(align);
  w.Fill(32).PadTo(align).Fill(80);
  return w;
}

TEST_F(GgufTest, RoundTripsMetadataAndTensors) {
  const GgufWriter w = SmallModel();
  const std::string path = Write("small.gguf", w.bytes());
  Result<GgufFile> file = ReadGguf(path);
  ASSERT_TRUE(file.ok()) << file.error().message;

  EXPECT_EQ(file->version, 3u);
  EXPECT_EQ(file->file_size, w.size());
  EXPECT_EQ(file->alignment, 32u);
  EXPECT_EQ(file->data_offset % 32, 0u);
  EXPECT_EQ(file->data_offset + 32 + 80, w.size());

  EXPECT_EQ(file->architecture(), "llama");
  EXPECT_EQ(file->file_type(), 3);
  const std::map<std::string, std::string> expected = {
      {"general.architecture", "llama"},
      {"general.file_type", "3"},
      {"general.name", "Tiny Test"},
      {"test.u8", "200"},
      {"test.i8", "-3"},
      {"test.u16", "65535"},
      {"test.i16", "-32768"},
      {"test.i32", "-1"},
      {"test.u64", "18446744073709551615"},
      {"test.i64", "-5000000000"},
      {"test.f32", "0.00001"},
      {"test.f32_big", "100000"},
      {"test.f32_tiny", "1e-12"},
      {"test.f64", "0.1"},
      {"test.true", "true"},
      {"test.false", "false"},
      {"tokenizer.ggml.tokens", "[array of 3 string]"},
      {"test.ints", "[array of 4 int32]"},
      {"test.nested", "[array of 2 array]"},
  };
  EXPECT_EQ(file->metadata, expected);

  ASSERT_EQ(file->tensors.size(), 2u);
  const GgufTensor& a = file->tensors[0];
  EXPECT_EQ(a.name, "token_embd.weight");
  EXPECT_EQ(a.dims, (std::vector<uint64_t>{4, 2}));
  EXPECT_EQ(a.type, kGgmlF32);
  EXPECT_EQ(a.type_name, "f32");
  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(a.n_bytes, 32u);
  const GgufTensor& b = file->tensors[1];
  EXPECT_EQ(b.name, "blk.0.ffn_up.weight");
  EXPECT_EQ(b.dims, (std::vector<uint64_t>{64, 2}));
  EXPECT_EQ(b.type, kGgmlQ4_1);
  EXPECT_EQ(b.type_name, "q4_1");
  EXPECT_EQ(b.offset, 32u);
  EXPECT_EQ(b.n_bytes, 80u);
  EXPECT_EQ(file->n_params(), 8u + 128u);
}

// The bytes themselves read as the file of those bytes does (the fuzz harness reads no file).
TEST_F(GgufTest, BytesParseAsTheFileDoes) {
  const GgufWriter w = SmallModel();
  Result<GgufFile> file = ParseGguf(w.bytes(), "mem.gguf");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->file_size, w.size());
  EXPECT_EQ(file->tensors.size(), 2u);
  EXPECT_EQ(file->architecture(), "llama");
  Result<GgufFile> cut = ParseGguf(w.bytes().substr(0, w.size() - 1), "mem.gguf");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("mem.gguf: truncated"), std::string::npos)
      << cut.error().message;
}

TEST_F(GgufTest, AcceptsVersion2AndCustomAlignment) {
  const GgufWriter w = SmallModel(2, 64);
  Result<GgufFile> file = ReadGguf(Write("v2.gguf", w.bytes()));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->version, 2u);
  EXPECT_EQ(file->alignment, 64u);
  EXPECT_EQ(file->metadata.at("general.alignment"), "64");
  EXPECT_EQ(file->data_offset % 64, 0u);
  EXPECT_EQ(file->tensors[1].offset, 64u);
  EXPECT_EQ(file->data_offset + 64 + 80, w.size());
}

TEST_F(GgufTest, NoTensorsNoMetadata) {
  GgufWriter w;
  w.Header(3, 0, 0);
  Result<GgufFile> file = ReadGguf(Write("empty.gguf", w.bytes()));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_TRUE(file->metadata.empty());
  EXPECT_TRUE(file->tensors.empty());
  EXPECT_EQ(file->n_params(), 0u);
  EXPECT_EQ(file->architecture(), std::nullopt);
  EXPECT_EQ(file->file_type(), std::nullopt);
}

TEST_F(GgufTest, TruncatedTensorData) {
  const GgufWriter w = SmallModel();
  const std::string bytes = w.bytes().substr(0, w.size() - 10);
  const std::string path = (dir_ / "cut.gguf").string();
  EXPECT_EQ(ErrorFor(bytes, "cut.gguf"),
            path + ": truncated: tensor 'blk.0.ffn_up.weight' ends at byte " +
                std::to_string(w.size()) + " but the file has " + std::to_string(w.size() - 10) +
                " bytes");
}

TEST_F(GgufTest, TruncatedBeforeTensorData) {
  const GgufWriter w = SmallModel();
  // Header intact but the data section gone entirely.
  Result<GgufFile> full = ReadGguf(Write("full.gguf", w.bytes()));
  ASSERT_TRUE(full.ok()) << full.error().message;
  const std::string msg = ErrorFor(w.bytes().substr(0, full->data_offset - 1));
  EXPECT_NE(msg.find(": truncated: "), std::string::npos) << msg;
}

TEST_F(GgufTest, TruncatedInsideHeader) {
  const GgufWriter w = SmallModel();
  // Cut inside a string array value, after the counts (which must fit) have been checked.
  const size_t cut_at = w.bytes().find("hello") + 2;
  ASSERT_GT(cut_at, 24u + 2 * 24 + 19 * 13);
  const std::string msg = ErrorFor(w.bytes().substr(0, cut_at));
  EXPECT_NE(msg.find(": truncated: the file ends at byte " + std::to_string(cut_at) +
                     ", inside the value of metadata key 'tokenizer.ggml.tokens' (needed 5 bytes"),
            std::string::npos)
      << msg;
  // A string length that cannot be right for a file this size is reported as such.
  const size_t len_at = w.bytes().find("hello") - 8;
  std::string corrupt = w.bytes();
  corrupt[len_at + 7] = '\x01';  // length 2^56 + 5
  const std::string corrupt_msg = ErrorFor(corrupt);
  EXPECT_NE(corrupt_msg.find(": invalid string length 72057594037927941 at offset " +
                             std::to_string(len_at) +
                             " in the value of metadata key 'tokenizer.ggml.tokens'"),
            std::string::npos)
      << corrupt_msg;
  // Cut inside every part of the header: always a clean error, never a crash. (Every 5th
  // byte keeps the test fast; the stride is prime to the 4- and 8-byte fields.)
  Result<GgufFile> full = ReadGguf(Write("full.gguf", w.bytes()));
  ASSERT_TRUE(full.ok()) << full.error().message;
  for (size_t n = 0; n < full->data_offset; n += (n < 32 ? 1 : 5)) {
    Result<GgufFile> cut = ReadGguf(Write("cut.gguf", w.bytes().substr(0, n)));
    ASSERT_FALSE(cut.ok()) << n;
    EXPECT_EQ(cut.error().exit_code, 2) << n;
  }
}

TEST_F(GgufTest, WrongMagic) {
  const std::string path = (dir_ / "x.gguf").string();
  EXPECT_EQ(ErrorFor(std::string("PK\x03\x04", 4) + " zip file contents here"),
            path + ": not a GGUF file (magic 'PK\\x03\\x04'; expected 'GGUF')");
  EXPECT_EQ(ErrorFor("GG"), path + ": not a GGUF file (only 2 bytes; expected the magic 'GGUF')");
  EXPECT_EQ(ErrorFor(""), path + ": not a GGUF file (only 0 bytes; expected the magic 'GGUF')");
}

TEST_F(GgufTest, UnsupportedVersions) {
  const std::string path = (dir_ / "x.gguf").string();
  GgufWriter v1;
  v1.Header(1, 0, 0);
  EXPECT_EQ(ErrorFor(v1.bytes()), path + ": unsupported GGUF version 1 (expected 2 or 3)");
  GgufWriter v4;
  v4.Header(4, 0, 0);
  EXPECT_EQ(ErrorFor(v4.bytes()), path + ": unsupported GGUF version 4 (expected 2 or 3)");
  GgufWriter big_endian;
  big_endian.Raw("GGUF").U32(0x03000000).U64(0).U64(0);
  EXPECT_NE(ErrorFor(big_endian.bytes()).find("big-endian"), std::string::npos);
}

TEST_F(GgufTest, AbsurdStringLength) {
  GgufWriter w;
  w.Header(3, 0, 1).U64(0xffffffffffffffffull).Raw("general.name");
  const std::string msg = ErrorFor(w.bytes());
  EXPECT_NE(msg.find("invalid string length 18446744073709551615 at offset 24 in metadata key #0"),
            std::string::npos)
      << msg;

  GgufWriter value;
  value.Header(3, 0, 1).Key("general.name", kStr).U64(uint64_t{1} << 40).Raw("abc");
  const std::string value_msg = ErrorFor(value.bytes());
  EXPECT_NE(value_msg.find("invalid string length 1099511627776"), std::string::npos) << value_msg;
  EXPECT_NE(value_msg.find("'general.name'"), std::string::npos) << value_msg;

  GgufWriter in_array;
  in_array.Header(3, 0, 1).Key("tokenizer.ggml.tokens", kArr).U32(kStr).U64(2);
  in_array.Str("a").U64(uint64_t{1} << 62);
  EXPECT_NE(ErrorFor(in_array.bytes()).find("invalid string length"), std::string::npos);

  GgufWriter long_key;
  long_key.Header(3, 0, 1).Str(std::string(70000, 'k')).U32(kU8).U8(1);
  EXPECT_NE(ErrorFor(long_key.bytes()).find("longer than the limit of 65535"), std::string::npos);
}

TEST_F(GgufTest, AbsurdCounts) {
  GgufWriter tensors;
  tensors.Header(3, uint64_t{1} << 60, 0);
  EXPECT_NE(ErrorFor(tensors.bytes()).find("tensor count 1152921504606846976 cannot fit"),
            std::string::npos);
  GgufWriter kvs;
  kvs.Header(3, 0, 0xffffffffffffffffull);
  EXPECT_NE(ErrorFor(kvs.bytes()).find("metadata count 18446744073709551615 cannot fit"),
            std::string::npos);
  GgufWriter array;
  array.Header(3, 0, 1).Key("a", kArr).U32(kU64).U64(uint64_t{1} << 61).U64(0);
  EXPECT_NE(ErrorFor(array.bytes()).find("array of 2305843009213693952 uint64"), std::string::npos);
}

TEST_F(GgufTest, UnknownTensorType) {
  GgufWriter w;
  w.Header(3, 1, 0).TensorInfo("blk.0.attn_q.weight", {32}, 99, 0).PadTo(32).Fill(64);
  const std::string path = (dir_ / "x.gguf").string();
  EXPECT_EQ(ErrorFor(w.bytes()), path + ": tensor 'blk.0.attn_q.weight' has unknown ggml type 99");
  GgufWriter removed;  // 4 was Q4_2, removed from ggml
  removed.Header(3, 1, 0).TensorInfo("t", {32}, 4, 0).PadTo(32).Fill(64);
  EXPECT_EQ(ErrorFor(removed.bytes()), path + ": tensor 't' has unknown ggml type 4");
}

TEST_F(GgufTest, BadTensorShapes) {
  GgufWriter dims;
  dims.Header(3, 1, 0).TensorInfo("t", {1, 1, 1, 1, 1}, kGgmlF32, 0).PadTo(32).Fill(4);
  EXPECT_NE(ErrorFor(dims.bytes()).find("has 5 dimensions (ggml allows at most 4)"),
            std::string::npos);
  GgufWriter row;
  row.Header(3, 1, 0).TensorInfo("t", {33, 2}, kGgmlQ4_1, 0).PadTo(32).Fill(200);
  EXPECT_NE(ErrorFor(row.bytes())
                .find("has rows of 33 elements, not a multiple of the block "
                      "size 32"),
            std::string::npos);
  GgufWriter huge;
  huge.Header(3, 1, 0).TensorInfo("t", {uint64_t{1} << 40, uint64_t{1} << 40}, kGgmlF32, 0);
  huge.PadTo(32).Fill(4);
  EXPECT_NE(ErrorFor(huge.bytes()).find("impossible shape"), std::string::npos);
}

TEST_F(GgufTest, BadOffsets) {
  GgufWriter misaligned;
  misaligned.Header(3, 1, 0).TensorInfo("t", {4}, kGgmlF32, 8).PadTo(32).Fill(64);
  EXPECT_NE(ErrorFor(misaligned.bytes()).find("not a multiple of the alignment 32"),
            std::string::npos);
  GgufWriter overlap;
  overlap.Header(3, 2, 0);
  overlap.TensorInfo("a", {16}, kGgmlF32, 0).TensorInfo("b", {16}, kGgmlF32, 32);
  overlap.PadTo(32).Fill(128);
  EXPECT_NE(ErrorFor(overlap.bytes()).find("tensors 'a' and 'b' overlap"), std::string::npos);
  GgufWriter far;
  far.Header(3, 1, 0).TensorInfo("t", {4}, kGgmlF32, 0xffffffffffffffe0ull).PadTo(32).Fill(16);
  EXPECT_NE(ErrorFor(far.bytes()).find("beyond any file"), std::string::npos);
}

TEST_F(GgufTest, BadMetadata) {
  GgufWriter type;
  type.Header(3, 0, 1).Key("a", 13).U32(0);
  EXPECT_NE(ErrorFor(type.bytes()).find("unknown metadata value type 13"), std::string::npos);
  GgufWriter elem;
  elem.Header(3, 0, 1).Key("a", kArr).U32(42).U64(0);
  EXPECT_NE(ErrorFor(elem.bytes()).find("unknown array element type 42"), std::string::npos);
  GgufWriter dup;
  dup.Header(3, 0, 2).KvU32("a", 1).KvU32("a", 2);
  EXPECT_NE(ErrorFor(dup.bytes()).find("duplicate metadata key 'a'"), std::string::npos);
  GgufWriter align;
  align.Header(3, 0, 1).KvU32("general.alignment", 48);
  EXPECT_NE(ErrorFor(align.bytes()).find("general.alignment 48 is not a power of two"),
            std::string::npos);
  GgufWriter align_type;
  align_type.Header(3, 0, 1).Key("general.alignment", kU64).U64(32);
  EXPECT_NE(
      ErrorFor(align_type.bytes()).find("general.alignment must be a uint32, not type uint64"),
      std::string::npos);
  GgufWriter deep;
  deep.Header(3, 0, 1).Key("a", kArr);
  for (int i = 0; i < 10; ++i) deep.U32(kArr).U64(1);
  deep.U32(kU8).U64(0);
  EXPECT_NE(ErrorFor(deep.bytes()).find("nested more than"), std::string::npos);
}

// GGUF strings are UTF-8; a key, a value or a tensor name that is not would reach the store's
// JSON (a model's general.name is in its cell's facts), which refuses it: the file is refused where
// the bytes are. The elements of a string array (a vocabulary) are not kept, and not checked.
TEST_F(GgufTest, StringsThatAreNotUtf8AreRefusedWhereTheyAre) {
  GgufWriter name;
  name.Header(3, 0, 2).KvString("general.architecture", "llama");
  name.KvString("general.name", "Caf\xe9");  // Latin-1
  const std::string value = ErrorFor(name.bytes());
  EXPECT_NE(value.find("in the value of metadata key 'general.name' is not UTF-8: byte \\xe9"),
            std::string::npos)
      << value;
  EXPECT_NE(value.find("(GGUF strings are UTF-8)"), std::string::npos) << value;
  // The offset is the bad byte's own: 16+8 (header) + 8+20+4+8+5 (the first pair) + 8+12+4
  // (the second key and type) + 8 (the value's length) + 3.
  EXPECT_NE(value.find("at offset 104 "), std::string::npos) << value;

  GgufWriter key;
  key.Header(3, 0, 1).KvU32("general.\xff", 1);
  EXPECT_NE(ErrorFor(key.bytes()).find("in metadata key #0 is not UTF-8: byte \\xff"),
            std::string::npos);

  GgufWriter tensor;
  tensor.Header(3, 1, 0).TensorInfo("blk.0.\xc3", {8}, kGgmlF32, 0);  // a sequence cut short
  tensor.PadTo(32).Fill(32);
  EXPECT_NE(ErrorFor(tensor.bytes()).find("in tensor info #0 is not UTF-8"), std::string::npos);

  GgufWriter vocab;  // the same bytes inside a string array are never kept
  vocab.Header(3, 0, 1).Key("tokenizer.ggml.tokens", kArr).U32(kStr).U64(1).Str("\xe9");
  EXPECT_TRUE(ReadGguf(Write("vocab.gguf", vocab.bytes())).ok());
}

TEST_F(GgufTest, DuplicateTensorName) {
  GgufWriter w;
  w.Header(3, 2, 0).TensorInfo("t", {8}, kGgmlF32, 0).TensorInfo("t", {8}, kGgmlF32, 32);
  w.PadTo(32).Fill(64);
  EXPECT_NE(ErrorFor(w.bytes()).find("duplicate tensor name 't'"), std::string::npos);
}

TEST_F(GgufTest, MissingFileAndDirectory) {
  const std::string missing = (dir_ / "nope.gguf").string();
  Result<GgufFile> file = ReadGguf(missing);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().message, missing + ": cannot open: No such file or directory");
  EXPECT_EQ(file.error().exit_code, 2);
  Result<GgufFile> dir = ReadGguf(dir_.string());
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().message, dir_.string() + ": is a directory, not a GGUF file");
}

TEST(GgufNamesTest, FileTypeNames) {
  EXPECT_EQ(FileTypeName(0), "F32");
  EXPECT_EQ(FileTypeName(1), "F16");
  EXPECT_EQ(FileTypeName(2), "Q4_0");
  EXPECT_EQ(FileTypeName(3), "Q4_1");
  EXPECT_EQ(FileTypeName(7), "Q8_0");
  EXPECT_EQ(FileTypeName(15), "Q4_K_M");
  EXPECT_EQ(FileTypeName(18), "Q6_K");
  EXPECT_EQ(FileTypeName(32), "BF16");
  EXPECT_EQ(FileTypeName(38), "MXFP4_MOE");
  EXPECT_EQ(FileTypeName(4), std::nullopt);   // Q4_1_SOME_F16, removed
  EXPECT_EQ(FileTypeName(33), std::nullopt);  // Q4_0_4_4, removed
  EXPECT_EQ(FileTypeName(-1), std::nullopt);
  EXPECT_EQ(FileTypeName(1024), std::nullopt);
}

TEST(GgufNamesTest, GgmlTypeNames) {
  EXPECT_EQ(GgmlTypeName(0), "f32");
  EXPECT_EQ(GgmlTypeName(1), "f16");
  EXPECT_EQ(GgmlTypeName(3), "q4_1");
  EXPECT_EQ(GgmlTypeName(8), "q8_0");
  EXPECT_EQ(GgmlTypeName(14), "q6_K");
  EXPECT_EQ(GgmlTypeName(30), "bf16");
  EXPECT_EQ(GgmlTypeName(39), "mxfp4");
  EXPECT_EQ(GgmlTypeName(4), std::nullopt);
  EXPECT_EQ(GgmlTypeName(31), std::nullopt);
  EXPECT_EQ(GgmlTypeName(1000), std::nullopt);
}

TEST(GgufRealModelTest, SmolLM2Header) {
  const std::string path =
      pipette::testing::SourceDir() + "/models/SmolLM2-135M-Instruct.Q4_1.gguf";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
  Result<GgufFile> file = ReadGguf(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->architecture(), "llama");
  ASSERT_EQ(file->file_type(), 3);
  EXPECT_EQ(FileTypeName(*file->file_type()), "Q4_1");
  EXPECT_GE(file->n_params(), 130'000'000u);
  EXPECT_LE(file->n_params(), 140'000'000u);
  EXPECT_EQ(file->metadata.at("tokenizer.ggml.tokens"), "[array of 49152 string]");
  EXPECT_EQ(file->data_offset % file->alignment, 0u);
  ASSERT_FALSE(file->tensors.empty());
  const GgufTensor& last = file->tensors.back();
  EXPECT_LE(file->data_offset + last.offset + last.n_bytes, file->file_size);
}

}  // namespace
}  // namespace pipette::model
