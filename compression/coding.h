// RocksDB's integer encodings (util/coding.h): little-endian fixed-width
// integers and varints, decoded from
// untrusted bytes. Decoders never read past the input and reject overlong or
// overflowing encodings. Encoders exist for tests and synthetic files.
#ifndef ROCKPOOL_COMPRESSION_CODING_H_
#define ROCKPOOL_COMPRESSION_CODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rockpool {

// Caller guarantees that `p` points at 2, 4 or 8 readable bytes.
uint16_t DecodeFixed16(const char* p);
uint32_t DecodeFixed32(const char* p);
uint64_t DecodeFixed64(const char* p);

void PutFixed16(std::string* dst, uint16_t v);
void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutVarint32(std::string* dst, uint32_t v);
// Writes v's varint32 (1..5 bytes) at dst; returns the byte after it.
char* EncodeVarint32(char* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
// RocksDB's PutVarsignedint64: zigzag, then varint64.
void PutVarsignedint64(std::string* dst, int64_t v);
void PutLengthPrefixed(std::string* dst, std::string_view value);

// Each Get* consumes its encoding from the front of *input and returns true,
// or returns false (leaving *input unchanged) on truncated, overlong (> 5 or
// > 10 bytes) or overflowing input.
bool GetVarint32(std::string_view* input, uint32_t* value);
bool GetVarint64(std::string_view* input, uint64_t* value);
bool GetVarsignedint64(std::string_view* input, int64_t* value);
bool GetFixed32(std::string_view* input, uint32_t* value);
bool GetFixed64(std::string_view* input, uint64_t* value);
// varint32 length, then that many bytes (a view into *input's buffer).
bool GetLengthPrefixed(std::string_view* input, std::string_view* value);

}  // namespace rockpool

#endif  // ROCKPOOL_COMPRESSION_CODING_H_
