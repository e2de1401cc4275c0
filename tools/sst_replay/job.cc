#include "tools/sst_replay/job.h"

#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "rocksdb_plugin/own_file.h"
#include "tools/json/json_parse.h"
#include "tools/json/object_reader.h"
#include "tools/sst/byte_source.h"

namespace rockpool::replay {
namespace {

using json::ObjectReader;
using json::Value;

Value Strings(const std::vector<std::string>& strings) {
  Value::Array items;
  for (const std::string& s : strings) items.push_back(Value::String(s));
  return Value::MakeArray(std::move(items));
}

Value CodecJson(const CodecSettings& c) {
  return Value::MakeObject({{"type", Value::Integer(c.type)},
                            {"level", Value::Integer(c.level)},
                            {"window_bits", Value::Integer(c.window_bits)},
                            {"strategy", Value::Integer(c.strategy)},
                            {"max_dict_bytes", Value::Integer(c.max_dict_bytes)},
                            {"parallel_threads", Value::Integer(c.parallel_threads)}});
}

void ReadCodec(ObjectReader r, CodecSettings* c) {
  r.Integer("type", &c->type).Integer("level", &c->level).Integer("window_bits", &c->window_bits);
  r.Integer("strategy", &c->strategy).Integer("max_dict_bytes", &c->max_dict_bytes);
  r.Integer("parallel_threads", &c->parallel_threads);
  if (r.ok() && c->parallel_threads == 0) r.Fail("parallel_threads", "0");
}

// An SST (with use_dictionary) or a blob file of blocks mode.
Value BlocksFileJson(const BlocksFile& f, bool sst) {
  Value::Members m = {{"path", Value::String(f.path)}, {"codec", CodecJson(f.codec)}};
  if (sst) m.emplace_back("use_dictionary", Value::Bool(f.use_dictionary));
  return Value::MakeObject(std::move(m));
}

void ReadBlocksFiles(ObjectReader& job, absl::string_view key, bool sst,
                     std::vector<BlocksFile>* out) {
  const size_t n = job.Size(key);
  for (size_t i = 0; i < n && job.ok(); ++i) {
    ObjectReader r = job.Element(key, i);
    BlocksFile& f = out->emplace_back();
    r.String("path", &f.path);
    ReadCodec(r.Object("codec"), &f.codec);
    if (sst) r.Bool("use_dictionary", &f.use_dictionary);
  }
}

Value GroupJson(const CompactionGroup& g) {
  return Value::MakeObject({{"name", Value::String(g.name)},
                            {"codec", CodecJson(g.codec)},
                            {"format_version", Value::Integer(g.format_version)},
                            {"checksum", Value::Integer(g.checksum)},
                            {"block_size", Value::Integer(g.block_size)},
                            {"files", Strings(g.files)}});
}

void ReadGroups(ObjectReader& job, std::vector<CompactionGroup>* out) {
  const size_t n = job.Size("groups");
  for (size_t i = 0; i < n && job.ok(); ++i) {
    ObjectReader r = job.Element("groups", i);
    CompactionGroup& g = out->emplace_back();
    r.String("name", &g.name);
    ReadCodec(r.Object("codec"), &g.codec);
    r.Integer("format_version", &g.format_version).Integer("checksum", &g.checksum);
    r.Integer("block_size", &g.block_size).Strings("files", &g.files);
  }
}

// The Job's one-value members, in one table so that writer and reader list
// the same fields.
struct JobField {
  const char* key;
  std::variant<std::string Job::*, uint64_t Job::*, bool Job::*> member;
};
static_assert(std::is_same_v<RockpoolOptions::MaxIdlePerKey, uint64_t>);
const JobField kJobFields[] = {
    {"mode", &Job::mode},
    {"max_idle_per_key", &Job::max_idle_per_key},
    {"verify_checksums", &Job::verify_checksums},
    {"pattern", &Job::pattern},
    {"block_size", &Job::block_size},
    {"total_blocks", &Job::total_blocks},
    {"total_stored_bytes", &Job::total_stored_bytes},
    {"output", &Job::output},
    {"allocator", &Job::allocator},
    {"allocator_preload", &Job::allocator_preload},
    {"source_db", &Job::source_db},
};

Value FieldJson(const Job& job, const JobField& field) {
  return std::visit(
      [&](auto member) {
        using Member = decltype(member);
        if constexpr (std::is_same_v<Member, bool Job::*>) return Value::Bool(job.*member);
        if constexpr (std::is_same_v<Member, uint64_t Job::*>) return Value::Integer(job.*member);
        if constexpr (std::is_same_v<Member, std::string Job::*>) {
          return Value::String(job.*member);
        }
      },
      field.member);
}

void ReadField(ObjectReader& r, const JobField& field, Job* job) {
  std::visit(
      [&](auto member) {
        using Member = decltype(member);
        if constexpr (std::is_same_v<Member, bool Job::*>) r.Bool(field.key, &(job->*member));
        if constexpr (std::is_same_v<Member, uint64_t Job::*>) {
          r.Integer(field.key, &(job->*member));
        }
        if constexpr (std::is_same_v<Member, std::string Job::*>) {
          r.String(field.key, &(job->*member));
        }
      },
      field.member);
}

// Parses `text` and reads it with `read`; Internal for anything wrong.
template <typename T, typename Read>
absl::StatusOr<T> ParseFile(absl::string_view what, std::string_view text, Read read) {
  absl::StatusOr<Value> doc = json::Parse(absl::string_view(text.data(), text.size()));
  T out;
  absl::Status status = doc.status();
  if (status.ok()) {
    ObjectReader r(*doc, std::string(what));
    read(r, &out);
    status = r.status();
  }
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("malformed ", what, " file: ", status.message()));
  }
  return out;
}

}  // namespace

const char* StrategyName(Strategy s) { return s == Strategy::kStock ? "stock" : "pooled"; }

std::string SerializeJob(const Job& job) {
  Value::Members m = {{"strategy", Value::String(StrategyName(job.strategy))}};
  for (const JobField& field : kJobFields) m.emplace_back(field.key, FieldJson(job, field));
  Value::Array files, blobs, groups;
  for (const BlocksFile& f : job.files) files.push_back(BlocksFileJson(f, true));
  for (const BlocksFile& f : job.blobs) blobs.push_back(BlocksFileJson(f, false));
  for (const CompactionGroup& g : job.groups) groups.push_back(GroupJson(g));
  m.emplace_back("files", Value::MakeArray(std::move(files)));
  m.emplace_back("blobs", Value::MakeArray(std::move(blobs)));
  m.emplace_back("groups", Value::MakeArray(std::move(groups)));
  return json::ToText(Value::MakeObject(std::move(m)));
}

absl::StatusOr<Job> ParseJob(std::string_view text) {
  return ParseFile<Job>("job", text, [](ObjectReader& r, Job* job) {
    std::string strategy;
    r.String("strategy", &strategy);
    if (r.ok() && strategy != "stock" && strategy != "pooled") r.Fail("strategy", strategy);
    job->strategy = strategy == "pooled" ? Strategy::kPooled : Strategy::kStock;
    for (const JobField& field : kJobFields) ReadField(r, field, job);
    if (r.ok() && job->mode != "blocks" && job->mode != "compaction") {
      r.Fail("mode", absl::StrCat("\"", job->mode, "\" is neither blocks nor compaction"));
    }
    ReadBlocksFiles(r, "files", true, &job->files);
    ReadBlocksFiles(r, "blobs", false, &job->blobs);
    ReadGroups(r, &job->groups);
  });
}

std::string SerializeResult(const RunResult& r) {
  Value::Members metrics, facts;
  for (const auto& [name, value] : r.metrics) metrics.emplace_back(name, Value::Integer(value));
  for (const auto& [key, value] : r.facts) facts.emplace_back(key, Value::String(value));
  Value::Array series, outputs;
  for (const SeriesPoint& p : r.series) {
    series.push_back(Value::MakeObject({{"x", Value::Number(p.x)},
                                        {"process_bytes", Value::Integer(p.process_bytes)},
                                        {"codec_bytes", Value::Integer(p.codec_bytes)}}));
  }
  for (const auto& [group, path] : r.outputs) {
    outputs.push_back(
        Value::MakeObject({{"group", Value::String(group)}, {"path", Value::String(path)}}));
  }
  return json::ToText(Value::MakeObject({{"metrics", Value::MakeObject(std::move(metrics))},
                                         {"series", Value::MakeArray(std::move(series))},
                                         {"outputs", Value::MakeArray(std::move(outputs))},
                                         {"notes", Strings(r.notes)},
                                         {"facts", Value::MakeObject(std::move(facts))},
                                         {"error_code", Value::Integer(r.error_code)},
                                         {"error", Value::String(r.error)}}));
}

absl::StatusOr<RunResult> ParseResult(std::string_view text) {
  return ParseFile<RunResult>("result", text, [](ObjectReader& r, RunResult* out) {
    r.IntegerMap("metrics", &out->metrics).StringMap("facts", &out->facts);
    const size_t points = r.Size("series");
    for (size_t i = 0; i < points && r.ok(); ++i) {
      SeriesPoint& p = out->series.emplace_back();
      r.Element("series", i)
          .Double("x", &p.x)
          .Integer("process_bytes", &p.process_bytes)
          .Integer("codec_bytes", &p.codec_bytes);
    }
    const size_t outputs = r.Size("outputs");
    for (size_t i = 0; i < outputs && r.ok(); ++i) {
      auto& [group, path] = out->outputs.emplace_back();
      r.Element("outputs", i).String("group", &group).String("path", &path);
    }
    r.Strings("notes", &out->notes).Integer("error_code", &out->error_code);
    r.String("error", &out->error);
  });
}

absl::Status WriteTextFile(const std::string& path, std::string_view text) {
  return ReplaceOwnFile(path, absl::string_view(text.data(), text.size()));
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  return sst::ReadWholeFile(path, kMaxTextFileBytes);
}

}  // namespace rockpool::replay
