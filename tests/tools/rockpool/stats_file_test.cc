// Parsing ROCKPOOL_STATS lines (rocksdb_plugin/report.h's format), the table
// and the JSON. Lines written by the real interposer are parsed in
// rockpool_cli_test.
#include "tools/rockpool/stats_file.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/json/json_parse.h"

namespace rockpool::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// FormatJson's document, parsed (the checks read values, not its layout).
json::Value JsonOf(const std::vector<ProcessStats>& processes) {
  absl::StatusOr<json::Value> doc = json::Parse(FormatJson(processes));
  EXPECT_TRUE(doc.ok()) << doc.status();
  return doc.ok() ? *doc : json::Value();
}

// The first process's member at `path`.
std::string FirstProcess(const json::Value& doc, std::initializer_list<const char*> path) {
  const json::Value* v = &doc.Find("processes")->items().at(0);
  for (const char* key : path) v = v->Find(key);
  return v->text();
}

constexpr char kLine[] =
    "rockpool report: event=exit pid=14567 mode=pool | since_last: leases=1151 created=2 "
    "reused=1149 lib_bytes=226104 lib_allocs=7 stock_est_bytes=164404416 stock_est_allocs=4603 "
    "| total: leases=1151 created=2 reused=1149 lib_bytes=226104 lib_allocs=7 "
    "stock_est_bytes=164404416 stock_est_allocs=4603 | idle=2 idle_bytes=226104 in_use=0 "
    "discarded=0 | zstd_c=0/0/0/0 zstd_d=0/0/0/0 deflate=767/1/766/202560 "
    "inflate=384/1/383/23544 | zstd=pooled zlib=pooled";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(StatsFile, ParsesTheReportLine) {
  absl::StatusOr<ProcessStats> s = ParseReportLine(kLine);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->event, "exit");
  EXPECT_EQ(s->pid, 14567u);
  EXPECT_EQ(s->mode, "pool");
  EXPECT_EQ(s->total.leases, 1151u);
  EXPECT_EQ(s->total.created, 2u);
  EXPECT_EQ(s->total.reused, 1149u);
  EXPECT_EQ(s->total.lib_bytes, 226104u);
  EXPECT_EQ(s->total.lib_allocs, 7u);
  EXPECT_EQ(s->total.stock_est_bytes, 164404416u);
  EXPECT_EQ(s->saved_bytes(), 164404416u - 226104u);
  EXPECT_EQ(s->idle, 2u);
  EXPECT_EQ(s->idle_bytes, 226104u);
  EXPECT_EQ(s->peak_retained_bytes, 0u) << "lines written before the field existed";
  EXPECT_EQ(s->deflate.leases, 767u);
  EXPECT_EQ(s->deflate.lib_bytes, 202560u);
  EXPECT_EQ(s->inflate.reused, 383u);
  EXPECT_EQ(s->zstd_state, "pooled");
  EXPECT_EQ(s->zlib_state, "pooled");
  EXPECT_EQ(s->zlib_forwarded, "");
}

TEST(StatsFile, ThePeakRetainedBytesWhenTheLineHasThem) {
  std::string line = kLine;
  line.replace(line.find(" in_use=0"), 0, " peak_retained_bytes=429616");
  absl::StatusOr<ProcessStats> s = ParseReportLine(line);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->peak_retained_bytes, 429616u);
  EXPECT_EQ(s->idle_bytes, 226104u);
  line.replace(line.find("=429616"), 7, "=4x");
  s = ParseReportLine(line);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("peak_retained_bytes=4x"));
}

TEST(StatsFile, LinesWithTheLz4PoolsAndState) {
  // The line as written since LZ4 is pooled (the kLine form, without the
  // lz4 fields, is what earlier versions wrote: still parsed, lz4 empty).
  std::string line = kLine;
  line.replace(line.find(" | zstd=pooled"), 0, " lz4_c=5/1/4/16416 lz4hc_c=9/2/7/524400");
  line += " lz4=forwarded lz4_forwarded=\"/opt/x.so defines LZ4_freeStream itself\"";
  absl::StatusOr<ProcessStats> s = ParseReportLine(line);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->lz4.leases, 5u);
  EXPECT_EQ(s->lz4.lib_bytes, 16416u);
  EXPECT_EQ(s->lz4hc.created, 2u);
  EXPECT_EQ(s->lz4_state, "forwarded");
  EXPECT_THAT(FormatTable({*s}), HasSubstr("pid 14567: lz4 forwarded: /opt/x.so defines"));
  EXPECT_EQ(FirstProcess(JsonOf({*s}), {"pools", "lz4hc_c", "leases"}), "9");
  EXPECT_EQ(Total({*s, *s}).lz4hc.reused, 14u);
  absl::StatusOr<ProcessStats> old_line = ParseReportLine(kLine);
  ASSERT_TRUE(old_line.ok()) << old_line.status();
  EXPECT_EQ(old_line->lz4.leases, 0u);
  EXPECT_EQ(old_line->lz4_state, "");
}

TEST(StatsFile, ForwardedReasonKeepsItsSpaces) {
  std::string line = kLine;
  line.replace(line.find("zlib=pooled"), 11,
               "zlib=forwarded zlib_forwarded=\"/usr/bin/node defines deflateInit2_ itself\"");
  absl::StatusOr<ProcessStats> s = ParseReportLine(line);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->zlib_state, "forwarded");
  EXPECT_EQ(s->zlib_forwarded, "/usr/bin/node defines deflateInit2_ itself");
  const std::string table = FormatTable({*s});
  EXPECT_THAT(table,
              HasSubstr("pid 14567: zlib forwarded: /usr/bin/node defines deflateInit2_ itself"));
  EXPECT_EQ(FirstProcess(JsonOf({*s}), {"codecs", "zlib", "forwarded"}),
            "/usr/bin/node defines deflateInit2_ itself");
}

TEST(StatsFile, LogLineWithoutCodecStates) {
  std::string line = kLine;
  line.erase(line.find(" | zstd=pooled"));
  absl::StatusOr<ProcessStats> s = ParseReportLine(line);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->zstd_state, "");
}

TEST(StatsFile, MalformedLinesNameWhatIsWrong) {
  struct Case {
    std::string from, to, error;
  } cases[] = {
      {"rockpool report: ", "rockpool: ", "not a `rockpool report:` line"},
      {" pid=14567", "", "no pid= field"},
      {"| total: leases=1151", "| total: leases=x", "total.leases=x is not a number"},
      {"deflate=767/1/766/202560", "deflate=767/1/766", "deflate=767/1/766 is not"},
      {"| total: leases=1151", "| total: leases=1152", "is not created=2 + reused=1149"},
      {"zlib=pooled", "zlib=\"pooled", "unterminated quote"},
      {"idle=2", "idle=2 idle=3", "given twice"},
      {"mode=pool", "mode=pool garbage", "unexpected word"},
  };
  for (const Case& c : cases) {
    std::string line = kLine;
    line.replace(line.find(c.from), c.from.size(), c.to);
    absl::StatusOr<ProcessStats> s = ParseReportLine(line);
    EXPECT_FALSE(s.ok()) << line;
    EXPECT_THAT(std::string(s.status().message()), HasSubstr(c.error)) << line;
  }
}

TEST(StatsFile, FilesMissingEmptyTruncated) {
  const std::string missing = TempPath("missing.stats");
  absl::StatusOr<ProcessStats> s = ReadStatsFile(missing);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.status().message()), StartsWith(missing));

  const std::string empty = TempPath("empty.stats");
  std::ofstream(empty).flush();
  s = ReadStatsFile(empty);
  EXPECT_THAT(std::string(s.status().message()),
              StartsWith(empty + ": no `rockpool report:` line"));

  const std::string truncated = TempPath("truncated.stats");
  std::ofstream(truncated) << std::string(kLine).substr(0, 120) << "\n";
  s = ReadStatsFile(truncated);
  EXPECT_THAT(std::string(s.status().message()),
              StartsWith(truncated + ": malformed report line: "));

  const std::string good = TempPath("good.stats");
  std::ofstream(good) << kLine << "\n";
  s = ReadStatsFile(good);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->file, good);
}

TEST(StatsFile, TotalsAndTable) {
  absl::StatusOr<ProcessStats> a = ParseReportLine(kLine);
  ASSERT_TRUE(a.ok());
  ProcessStats b = *a;
  b.pid = 2;
  const ProcessStats t = Total({*a, b});
  EXPECT_EQ(t.total.leases, 2302u);
  EXPECT_EQ(t.total.created, 4u);
  EXPECT_EQ(t.total.lib_bytes, 452208u);
  EXPECT_EQ(t.deflate.leases, 1534u);
  const std::string table = FormatTable({*a, b});
  EXPECT_THAT(table, StartsWith("process "));
  EXPECT_THAT(table, HasSubstr("total (2 processes)"));
  EXPECT_THAT(table, HasSubstr("99.9%"));
  const json::Value json = JsonOf({*a, b});
  EXPECT_EQ(json.Find("processes")->items().size(), 2u);
  EXPECT_EQ(json.Find("total")->Find("leases")->text(), "2302");
}

}  // namespace
}  // namespace rockpool::cli
