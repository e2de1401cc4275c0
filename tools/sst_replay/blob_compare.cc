#include "tools/sst_replay/blob_compare.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/byte_source.h"

namespace rockpool::replay {
namespace {

// One output blob file, read and parsed (records view into `data`).
struct ParsedBlob {
  std::string group;
  std::string path;
  std::string data;
  sst::BlobFile file;
};

absl::StatusOr<std::vector<ParsedBlob>> ParseAll(const OutputList& outputs) {
  std::vector<ParsedBlob> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    out[i].group = outputs[i].first;
    out[i].path = outputs[i].second;
    absl::StatusOr<std::string> data =
        sst::ReadWholeFile(out[i].path, std::numeric_limits<uint64_t>::max());
    if (!data.ok()) return data.status();
    out[i].data = *std::move(data);
    absl::StatusOr<sst::BlobFile> f = sst::ParseBlobFile(out[i].data, out[i].path);
    if (!f.ok()) return f.status();
    out[i].file = *std::move(f);
  }
  return out;
}

}  // namespace

std::pair<OutputList, OutputList> SplitOutputs(const OutputList& outputs) {
  std::pair<OutputList, OutputList> split;
  for (const auto& o : outputs) {
    (absl::StartsWith(o.first, "blob:") ? split.second : split.first).push_back(o);
  }
  return split;
}

absl::StatusOr<BlobOutputSummary> SummarizeBlobOutputs(const OutputList& blobs) {
  absl::StatusOr<std::vector<ParsedBlob>> parsed = ParseAll(blobs);
  if (!parsed.ok()) return parsed.status();
  BlobOutputSummary s;
  for (const ParsedBlob& b : *parsed) {
    ++s.files;
    for (const sst::BlobRecord& r : b.file.records) {
      ++s.blobs;
      s.stored_bytes += r.value.size();
      s.uncompressed_bytes += RecordedSize(b.file.header.compression, r.value);
    }
  }
  return s;
}

absl::StatusOr<Comparison> CompareBlobOutputs(const OutputList& reference, const OutputList& other,
                                              const std::string& other_label) {
  absl::StatusOr<std::vector<ParsedBlob>> a = ParseAll(reference);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::vector<ParsedBlob>> b = ParseAll(other);
  if (!b.ok()) return b.status();
  Comparison c;
  const size_t files = std::min(a->size(), b->size());
  for (size_t i = 0; i < files; ++i) {
    const ParsedBlob& s = (*a)[i];
    const ParsedBlob& p = (*b)[i];
    if (s.group != p.group || s.file.header.compression != p.file.header.compression ||
        s.file.records.size() != p.file.records.size()) {
      c.identical = false;
      c.difference =
          absl::StrCat(p.path, ": offset 0: ", other_label, " blob file differs from stock's (",
                       s.path, ": ", p.group, " vs ", s.group, ", type ", p.file.header.compression,
                       " vs ", s.file.header.compression, ", ", p.file.records.size(), " vs ",
                       s.file.records.size(), " blobs)");
      return c;
    }
    for (size_t r = 0; r < s.file.records.size(); ++r) {
      const sst::BlobRecord& x = s.file.records[r];
      const sst::BlobRecord& y = p.file.records[r];
      if (x.key != y.key || x.value != y.value) {
        c.identical = false;
        c.difference = absl::StrCat(
            p.path, ": offset ", y.offset, ": ", other_label, " blob differs from stock's (",
            s.path, " offset ", x.offset, "; ", y.value.size(), " vs ", x.value.size(),
            " bytes, first difference at byte ", FirstDifference(x.value, y.value), ")");
        return c;
      }
      ++c.blocks;
    }
  }
  if (a->size() != b->size()) {
    c.identical = false;
    const ParsedBlob& extra = a->size() > b->size() ? (*a)[files] : (*b)[files];
    c.difference = absl::StrCat(extra.path, ": offset 0: ", other_label, " compaction wrote ",
                                b->size() > a->size() ? "more" : "fewer",
                                " blob files than stock (", c.blocks, " blobs matched)");
  }
  return c;
}

}  // namespace rockpool::replay
