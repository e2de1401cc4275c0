#include "tools/sst_replay/workload.h"

#include <array>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/version.h"
#include "tools/console/units.h"
#include "tools/sst/rocksdb_calls.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {

using console::FormatBytes;
using console::FormatCount;
using sst::FromRocks;
using sst::OpenDb;

namespace {

using Rng = std::mt19937_64;

// Index in [0, n) with a skew towards small values (roughly Zipf-like).
size_t Skewed(Rng& rng, size_t n) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double x = u(rng);
  return static_cast<size_t>(static_cast<double>(n) * x * x * x) % n;
}

template <size_t N>
const char* Pick(Rng& rng, const std::array<const char*, N>& options) {
  return options[Skewed(rng, N)];
}

constexpr std::array<const char*, 8> kUserAgents = {
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/119.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.0 Safari/605.1.15",
    "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/119.0.6045.163 Mobile Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/119.0.0.0 Safari/537.36 Edg/119.0.2151.72",
    "okhttp/4.12.0 shop-app/5.31.2 (Android 13; SM-G991B)",
};
constexpr std::array<const char*, 10> kEventTypes = {
    "page_view", "product_view",     "search",         "add_to_cart", "scroll",
    "click",     "remove_from_cart", "begin_checkout", "purchase",    "login"};
constexpr std::array<const char*, 12> kCategories = {"garden", "kitchen", "outdoor", "electronics",
                                                     "toys",   "books",   "fashion", "sports",
                                                     "home",   "beauty",  "office",  "pets"};
constexpr std::array<const char*, 16> kCountries = {"DE", "US", "FR", "GB", "NL", "ES", "IT", "PL",
                                                    "SE", "AT", "CH", "BE", "DK", "CZ", "JP", "BR"};
constexpr std::array<const char*, 9> kReferrers = {
    "https://www.google.com/",         "",
    "https://www.bing.com/search",     "https://t.co/",
    "https://www.facebook.com/",       "https://duckduckgo.com/",
    "https://newsletter.example.com/", "https://www.instagram.com/",
    "https://www.pinterest.com/"};
constexpr std::array<const char*, 6> kExperiments = {
    "checkout_v2",   "search_rerank", "free_shipping_banner",
    "reco_carousel", "dark_mode",     "one_click_buy"};
constexpr std::array<const char*, 14> kFirstNames = {"Maria",  "Jonas", "Sofia", "Lukas", "Emma",
                                                     "Noah",   "Mia",   "Leon",  "Hanna", "Paul",
                                                     "Olivia", "Liam",  "Ava",   "Elias"};
constexpr std::array<const char*, 14> kLastNames = {
    "Schmidt", "Muller",    "Garcia", "Smith", "Rossi",  "Dubois",  "Jansen",
    "Nowak",   "Andersson", "Novak",  "Silva", "Tanaka", "Fischer", "Weber"};
constexpr std::array<const char*, 12> kCities = {"Berlin", "Hamburg", "Munich",    "Paris",
                                                 "Lyon",   "London",  "Amsterdam", "Madrid",
                                                 "Vienna", "Zurich",  "Warsaw",    "Stockholm"};
constexpr std::array<const char*, 16> kProducts = {"Stainless steel water bottle 750ml",
                                                   "Organic cotton t-shirt, crew neck",
                                                   "Wireless earbuds with charging case",
                                                   "Cast iron skillet 28cm",
                                                   "LED desk lamp, dimmable",
                                                   "Yoga mat 6mm, non-slip",
                                                   "Ceramic coffee mug 350ml",
                                                   "Running shoes, breathable mesh",
                                                   "Paperback: The Pragmatic Programmer",
                                                   "Garden hose 20m with spray nozzle",
                                                   "USB-C charging cable 2m",
                                                   "Wooden building blocks, 100 pieces",
                                                   "Dog leash, reflective",
                                                   "Backpack 30L, water resistant",
                                                   "Bamboo cutting board set",
                                                   "Scented candle, lavender"};
constexpr std::array<const char*, 5> kStatuses = {"delivered", "shipped", "processing", "cancelled",
                                                  "returned"};
constexpr std::array<const char*, 4> kPayments = {"card", "paypal", "invoice", "klarna"};
constexpr std::array<const char*, 3> kShipping = {"standard", "express", "pickup"};

std::string EventValue(Rng& rng, uint32_t user, int64_t ts) {
  std::string v = absl::StrFormat(R"({"ts":%d,"user":"u%07d","session":"%016x","type":"%s",)", ts,
                                  user, static_cast<uint64_t>(rng()), Pick(rng, kEventTypes));
  absl::StrAppendFormat(&v, R"("page":"/products/%s/sku-%05d","referrer":"%s","ua":"%s",)",
                        Pick(rng, kCategories), Skewed(rng, 30000), Pick(rng, kReferrers),
                        Pick(rng, kUserAgents));
  absl::StrAppendFormat(&v, R"("country":"%s","screen":"%s","latency_ms":%d,"ab":["%s","%s"]})",
                        Pick(rng, kCountries), (rng() % 3 == 0) ? "390x844" : "1920x1080",
                        20 + Skewed(rng, 900), Pick(rng, kExperiments), Pick(rng, kExperiments));
  return v;
}

std::string OrderValue(Rng& rng, uint64_t order_id) {
  const size_t customer = Skewed(rng, 50000);
  const char* first = kFirstNames[customer % kFirstNames.size()];
  const char* last = kLastNames[(customer / 14) % kLastNames.size()];
  std::string v = absl::StrFormat(
      R"({"order_id":%d,"customer":{"id":"c%06d","name":"%s %s","email":"%s.%s%d@example.com",)",
      order_id, customer, first, last, first, last, customer % 100);
  absl::StrAppendFormat(&v, R"("tier":"%s"},"items":[)",
                        customer % 7 == 0 ? "gold" : (customer % 3 == 0 ? "silver" : "basic"));
  const int items = 1 + static_cast<int>(Skewed(rng, 4));
  for (int i = 0; i < items; ++i) {
    const size_t product = Skewed(rng, kProducts.size());
    absl::StrAppendFormat(&v, R"(%s{"sku":"SKU-%05d","name":"%s","qty":%d,"unit_price":"%d.%02d"})",
                          i == 0 ? "" : ",", 10000 + product * 37, kProducts[product],
                          1 + Skewed(rng, 3), 3 + product * 4, (product * 13) % 100);
  }
  const size_t city = Skewed(rng, kCities.size());
  absl::StrAppendFormat(
      &v,
      R"(],"currency":"EUR","status":"%s","payment":"%s","shipping":{"method":"%s","city":"%s","zip":"%05d"},)",
      Pick(rng, kStatuses), Pick(rng, kPayments), Pick(rng, kShipping), kCities[city],
      10000 + city * 1117 + Skewed(rng, 90));
  absl::StrAppendFormat(&v, R"("created":"2024-%02d-%02dT%02d:%02d:%02dZ"})", 1 + rng() % 12,
                        1 + rng() % 28, rng() % 24, rng() % 60, rng() % 60);
  return v;
}

// A customer's order history: several orders in one JSON document, 1-8 KiB,
// large enough to go to a blob file.
std::string HistoryValue(Rng& rng, uint64_t customer) {
  std::string v = absl::StrFormat(R"({"customer":"c%06d","orders":[)", customer);
  const int orders = 2 + static_cast<int>(Skewed(rng, 12));
  for (int i = 0; i < orders; ++i) {
    if (i > 0) v += ",";
    v += OrderValue(rng, customer * 1000 + static_cast<uint64_t>(i));
  }
  v += "]}";
  return v;
}

absl::Status Failed(const rocksdb::Status& s, const std::string& what) {
  return FromRocks(s, absl::StrCat("default workload: ", what));
}

// 4 MiB memtables, no automatic compactions, RocksDB's default table
// options (workload.h).
rocksdb::ColumnFamilyOptions FamilyOptions(rocksdb::CompressionType compression) {
  rocksdb::ColumnFamilyOptions cf;
  cf.compression = compression;
  cf.write_buffer_size = 4 << 20;
  cf.disable_auto_compactions = true;
  return cf;
}

// Integrated BlobDB: values of 1 KiB or more go to blob files, each blob
// compressed on its own (RocksDB 7.8.3: a context per blob).
rocksdb::ColumnFamilyOptions BlobFamilyOptions() {
  rocksdb::ColumnFamilyOptions cf = FamilyOptions(rocksdb::kZSTD);
  cf.enable_blob_files = true;
  cf.min_blob_size = 1024;
  cf.blob_compression_type = rocksdb::kZSTD;
  return cf;
}

// 3/8 events, 3/8 orders, 1/4 histories (blobs), from one seeded generator.
absl::Status WriteFamilies(rocksdb::DB* db,
                           const std::vector<rocksdb::ColumnFamilyHandle*>& handles,
                           uint64_t megabytes, WorkloadStats* stats) {
  rocksdb::WriteOptions write;
  write.disableWAL = true;
  // Puts the records `next(i)` makes (i from 1: key and value) into `family`
  // until `budget` bytes of keys and values are written.
  auto put_until = [&](rocksdb::ColumnFamilyHandle* family, uint64_t budget, auto next) {
    for (uint64_t i = 1, bytes = 0; bytes < budget; ++i) {
      const auto [key, value] = next(i);
      ROCKPOOL_RETURN_IF_ERROR(Failed(db->Put(write, family, key, value), "Put"));
      bytes += key.size() + value.size();
      stats->raw_bytes += key.size() + value.size();
      ++stats->records;
    }
    return absl::OkStatus();
  };
  const uint64_t total = megabytes * (uint64_t{1} << 20);
  const uint64_t per_family = total * 3 / 8;
  Rng rng(20240311);
  // events: keyed by user then time; users are active in bursts.
  int64_t ts = 1700000000000;
  ROCKPOOL_RETURN_IF_ERROR(put_until(handles[1], per_family, [&](uint64_t) {
    ts += 1 + static_cast<int64_t>(rng() % 40);
    const uint32_t user = static_cast<uint32_t>(Skewed(rng, 200000));
    return std::pair(absl::StrFormat("evt/u%07d/%013d", user, ts), EventValue(rng, user, ts));
  }));
  // orders: random order ids (a multiplicative permutation of a counter).
  ROCKPOOL_RETURN_IF_ERROR(put_until(handles[2], per_family, [&](uint64_t i) {
    const uint64_t order_id = (i * 2654435761u) % 4294967291u;
    return std::pair(absl::StrFormat("order/%010d", order_id), OrderValue(rng, order_id));
  }));
  // histories: one document per customer, in random customer order.
  return put_until(handles[3], total / 4, [&](uint64_t i) {
    const uint64_t customer = (i * 2654435761u) % 1000003u;
    return std::pair(absl::StrFormat("history/c%07d", customer), HistoryValue(rng, customer));
  });
}

}  // namespace

std::string DescribeWorkload(const WorkloadStats& stats) {
  return absl::StrFormat(
      "RocksDB %s DB, %s records, %s of keys and values: \"events\" JSON log lines (zstd), "
      "\"orders\" JSON documents (zlib) and \"histories\" order histories as blobs (zstd, "
      "%s blobs), %d SST files, %d blob files",
      rocksdb::GetRocksVersionAsString(), FormatCount(static_cast<double>(stats.records)),
      FormatBytes(static_cast<double>(stats.raw_bytes)),
      FormatCount(static_cast<double>(stats.blobs)), stats.sst_files, stats.blob_files);
}

absl::StatusOr<WorkloadStats> GenerateDefaultWorkload(const std::string& db_dir,
                                                      uint64_t megabytes) {
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.create_missing_column_families = true;
  options.stats_dump_period_sec = 0;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {"events", FamilyOptions(rocksdb::kZSTD)},
      {"orders", FamilyOptions(rocksdb::kZlibCompression)},
      {"histories", BlobFamilyOptions()},
  };
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rocksdb::DB> db;
  ROCKPOOL_RETURN_IF_ERROR(
      Failed(OpenDb(options, db_dir, families, &handles, &db), "opening " + db_dir));
  WorkloadStats stats;
  absl::Status s = WriteFamilies(db.get(), handles, megabytes, &stats);
  if (s.ok()) s = Failed(db->Flush(rocksdb::FlushOptions(), handles), "Flush");
  std::vector<rocksdb::ColumnFamilyMetaData> metas;
  db->GetAllColumnFamilyMetaData(&metas);
  for (const rocksdb::ColumnFamilyMetaData& m : metas) {
    stats.sst_files += m.file_count;
    stats.blob_files += m.blob_files.size();
    for (const rocksdb::BlobMetaData& b : m.blob_files) stats.blobs += b.total_blob_count;
  }
  for (rocksdb::ColumnFamilyHandle* h : handles) db->DestroyColumnFamilyHandle(h);
  s.Update(Failed(db->Close(), "Close"));  // the first error wins
  ROCKPOOL_RETURN_IF_ERROR(s);
  return stats;
}

}  // namespace rockpool::replay
