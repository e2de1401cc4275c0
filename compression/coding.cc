#include "compression/coding.h"

namespace rockpool {
namespace {

template <typename T>
T DecodeLE(const char* p) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<T>(static_cast<T>(static_cast<unsigned char>(p[i])) << (8 * i));
  }
  return v;
}

template <typename T>
void PutLE(std::string* dst, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

// Decodes an unsigned LEB128 value of at most `bits` bits.
template <typename T, int kBits>
bool GetVarint(std::string_view* input, T* value) {
  T result = 0;
  for (size_t i = 0; i < input->size(); ++i) {
    const int shift = static_cast<int>(7 * i);
    if (shift >= kBits) return false;  // overlong
    const T byte = static_cast<unsigned char>((*input)[i]);
    const T payload = byte & 0x7f;
    // Reject bits that do not fit in T.
    if (shift > kBits - 7 && (payload >> (kBits - shift)) != 0) return false;
    result |= payload << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      input->remove_prefix(i + 1);
      return true;
    }
  }
  return false;  // truncated
}

}  // namespace

uint16_t DecodeFixed16(const char* p) { return DecodeLE<uint16_t>(p); }
uint32_t DecodeFixed32(const char* p) { return DecodeLE<uint32_t>(p); }
uint64_t DecodeFixed64(const char* p) { return DecodeLE<uint64_t>(p); }

void PutFixed16(std::string* dst, uint16_t v) { PutLE(dst, v); }
void PutFixed32(std::string* dst, uint32_t v) { PutLE(dst, v); }
void PutFixed64(std::string* dst, uint64_t v) { PutLE(dst, v); }

void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

char* EncodeVarint32(char* dst, uint32_t v) {
  while (v >= 0x80) {
    *dst++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *dst++ = static_cast<char>(v);
  return dst;
}

void PutVarsignedint64(std::string* dst, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  PutVarint64(dst, (u << 1) ^ (v < 0 ? ~uint64_t{0} : uint64_t{0}));
}

void PutLengthPrefixed(std::string* dst, std::string_view value) {
  PutVarint32(dst, static_cast<uint32_t>(value.size()));
  dst->append(value);
}

bool GetVarint32(std::string_view* input, uint32_t* value) {
  return GetVarint<uint32_t, 32>(input, value);
}

bool GetVarint64(std::string_view* input, uint64_t* value) {
  return GetVarint<uint64_t, 64>(input, value);
}

bool GetVarsignedint64(std::string_view* input, int64_t* value) {
  uint64_t u = 0;
  if (!GetVarint64(input, &u)) return false;
  // Zigzag decode without signed overflow.
  *value = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

bool GetFixed32(std::string_view* input, uint32_t* value) {
  if (input->size() < 4) return false;
  *value = DecodeFixed32(input->data());
  input->remove_prefix(4);
  return true;
}

bool GetFixed64(std::string_view* input, uint64_t* value) {
  if (input->size() < 8) return false;
  *value = DecodeFixed64(input->data());
  input->remove_prefix(8);
  return true;
}

bool GetLengthPrefixed(std::string_view* input, std::string_view* value) {
  std::string_view copy = *input;
  uint32_t len = 0;
  if (!GetVarint32(&copy, &len) || copy.size() < len) return false;
  *value = copy.substr(0, len);
  copy.remove_prefix(len);
  *input = copy;
  return true;
}

}  // namespace rockpool
