#include "tools/sst_replay/job.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "tools/json/json_parse.h"
#include "tools/json/object_reader.h"
#include "tools/sst/byte_source.h"

namespace rockpool::replay {
namespace {

using json::ObjectReader;
using json::Value;

// The array of `to_json` of each item.
template <typename T, typename ToJson>
Value ArrayOf(const std::vector<T>& items, ToJson to_json) {
  Value::Array out;
  for (const T& item : items) out.push_back(to_json(item));
  return Value::MakeArray(std::move(out));
}

// Reads each object of the member array `key` into a new item of `out`.
template <typename T, typename Read>
void ReadArray(ObjectReader& r, absl::string_view key, std::vector<T>* out, Read read) {
  const size_t n = r.Size(key);
  for (size_t i = 0; i < n && r.ok(); ++i) read(r.Element(key, i), out->emplace_back());
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
template <bool kSst>
Value BlocksFileJson(const BlocksFile& f) {
  Value::Members m = {{"path", Value::String(f.path)}, {"codec", CodecJson(f.codec)}};
  if (kSst) m.emplace_back("use_dictionary", Value::Bool(f.use_dictionary));
  return Value::MakeObject(std::move(m));
}

template <bool kSst>
void ReadBlocksFile(ObjectReader r, BlocksFile& f) {
  r.String("path", &f.path);
  ReadCodec(r.Object("codec"), &f.codec);
  if (kSst) r.Bool("use_dictionary", &f.use_dictionary);
}

Value GroupJson(const CompactionGroup& g) {
  return Value::MakeObject({{"name", Value::String(g.name)},
                            {"codec", CodecJson(g.codec)},
                            {"format_version", Value::Integer(g.format_version)},
                            {"checksum", Value::Integer(g.checksum)},
                            {"block_size", Value::Integer(g.block_size)},
                            {"files", ArrayOf(g.files, Value::String)}});
}

void ReadGroup(ObjectReader r, CompactionGroup& g) {
  r.String("name", &g.name);
  ReadCodec(r.Object("codec"), &g.codec);
  r.Integer("format_version", &g.format_version).Integer("checksum", &g.checksum);
  r.Integer("block_size", &g.block_size).Strings("files", &g.files);
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
  return json::ToText(Value::MakeObject({
      {"strategy", Value::String(StrategyName(job.strategy))},
      {"mode", Value::String(job.mode)},
      {"max_idle_per_key", Value::Integer(job.max_idle_per_key)},
      {"verify_checksums", Value::Bool(job.verify_checksums)},
      {"pattern", Value::String(job.pattern)},
      {"block_size", Value::Integer(job.block_size)},
      {"total_blocks", Value::Integer(job.total_blocks)},
      {"total_stored_bytes", Value::Integer(job.total_stored_bytes)},
      {"output", Value::String(job.output)},
      {"allocator", Value::String(job.allocator)},
      {"allocator_preload", Value::String(job.allocator_preload)},
      {"source_db", Value::String(job.source_db)},
      {"files", ArrayOf(job.files, BlocksFileJson<true>)},
      {"blobs", ArrayOf(job.blobs, BlocksFileJson<false>)},
      {"groups", ArrayOf(job.groups, GroupJson)},
  }));
}

absl::StatusOr<Job> ParseJob(std::string_view text) {
  return ParseFile<Job>("job", text, [](ObjectReader& r, Job* job) {
    std::string strategy;
    r.String("strategy", &strategy);
    if (r.ok() && strategy != "stock" && strategy != "pooled") r.Fail("strategy", strategy);
    job->strategy = strategy == "pooled" ? Strategy::kPooled : Strategy::kStock;
    r.String("mode", &job->mode).Integer("max_idle_per_key", &job->max_idle_per_key);
    r.Bool("verify_checksums", &job->verify_checksums).String("pattern", &job->pattern);
    r.Integer("block_size", &job->block_size).Integer("total_blocks", &job->total_blocks);
    r.Integer("total_stored_bytes", &job->total_stored_bytes).String("output", &job->output);
    r.String("allocator", &job->allocator).String("allocator_preload", &job->allocator_preload);
    r.String("source_db", &job->source_db);
    if (r.ok() && job->mode != "blocks" && job->mode != "compaction") {
      r.Fail("mode", absl::StrCat("\"", job->mode, "\" is neither blocks nor compaction"));
    }
    ReadArray(r, "files", &job->files, ReadBlocksFile<true>);
    ReadArray(r, "blobs", &job->blobs, ReadBlocksFile<false>);
    ReadArray(r, "groups", &job->groups, ReadGroup);
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
                                         {"notes", ArrayOf(r.notes, Value::String)},
                                         {"facts", Value::MakeObject(std::move(facts))},
                                         {"error_code", Value::Integer(r.error_code)},
                                         {"error", Value::String(r.error)}}));
}

absl::StatusOr<RunResult> ParseResult(std::string_view text) {
  return ParseFile<RunResult>("result", text, [](ObjectReader& r, RunResult* out) {
    r.IntegerMap("metrics", &out->metrics).StringMap("facts", &out->facts);
    ReadArray(r, "series", &out->series, [](ObjectReader p, SeriesPoint& point) {
      p.Double("x", &point.x).Integer("process_bytes", &point.process_bytes);
      p.Integer("codec_bytes", &point.codec_bytes);
    });
    ReadArray(r, "outputs", &out->outputs, [](ObjectReader o, auto& output) {
      o.String("group", &output.first).String("path", &output.second);
    });
    r.Strings("notes", &out->notes).Integer("error_code", &out->error_code);
    r.String("error", &out->error);
  });
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  return sst::ReadWholeFile(path, kMaxTextFileBytes);
}

}  // namespace rockpool::replay
