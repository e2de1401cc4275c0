#include "tests/compression/test_data.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <random>

namespace rockpool::testing {

std::string SemiCompressible(size_t size, uint64_t seed) {
  static constexpr const char* kFields[] = {"user_id", "session", "country", "status",
                                            "amount",  "created", "updated", "tags"};
  static constexpr const char* kWords[] = {"active", "pending", "closed", "DE",     "US",
                                           "FR",     "premium", "basic",  "mobile", "web"};
  std::mt19937_64 rng(seed);
  std::string out;
  out.reserve(size + 64);
  uint64_t id = seed * 1000;
  while (out.size() < size) {
    out += "{\"id\":";
    out += std::to_string(id++);
    for (int f = 0; f < 4; ++f) {
      out += ",\"";
      out += kFields[rng() % 8];
      out += "\":\"";
      out += kWords[rng() % 10];
      out += "\"";
    }
    out += ",\"nonce\":\"";
    for (int i = 0; i < 6; ++i) out.push_back(static_cast<char>('a' + rng() % 26));
    out += "\"}\n";
  }
  out.resize(size);
  return out;
}

std::string Incompressible(size_t size, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string out(size, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

std::string FreshTestPath(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::filesystem::path path = std::filesystem::path(base != nullptr ? base : "/tmp") / name;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  return path.string();
}

std::string FreshTestDir(const std::string& name) {
  const std::string path = FreshTestPath(name);
  std::filesystem::create_directories(path);
  return path;
}

}  // namespace rockpool::testing
