#include "tools/sst_replay/blob_compare.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/byte_source.h"
#include "tools/status/status_macros.h"

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
    ParsedBlob& b = out[i];
    std::tie(b.group, b.path) = outputs[i];
    ROCKPOOL_ASSIGN_OR_RETURN(b.data,
                              sst::ReadWholeFile(b.path, std::numeric_limits<uint64_t>::max()));
    ROCKPOOL_ASSIGN_OR_RETURN(b.file, sst::ParseBlobFile(b.data, b.path));
  }
  return out;
}

// The first difference between two runs' blob files, "" if none; `matched`
// counts the blobs that were the same before it.
std::string BlobDifference(const std::vector<ParsedBlob>& a, const std::vector<ParsedBlob>& b,
                           const std::string& other_label, uint64_t* matched) {
  const size_t files = std::min(a.size(), b.size());
  for (size_t i = 0; i < files; ++i) {
    const ParsedBlob& s = a[i];
    const ParsedBlob& p = b[i];
    if (s.group != p.group || s.file.header.compression != p.file.header.compression ||
        s.file.records.size() != p.file.records.size()) {
      return absl::StrCat(p.path, ": offset 0: ", other_label, " blob file differs from stock's (",
                          s.path, ": ", p.group, " vs ", s.group, ", type ",
                          p.file.header.compression, " vs ", s.file.header.compression, ", ",
                          p.file.records.size(), " vs ", s.file.records.size(), " blobs)");
    }
    for (size_t r = 0; r < s.file.records.size(); ++r, ++*matched) {
      const sst::BlobRecord& x = s.file.records[r];
      const sst::BlobRecord& y = p.file.records[r];
      if (x.key != y.key || x.value != y.value) {
        return absl::StrCat(
            p.path, ": offset ", y.offset, ": ", other_label, " blob differs from stock's (",
            s.path, " offset ", x.offset, "; ", y.value.size(), " vs ", x.value.size(),
            " bytes, first difference at byte ", FirstDifference(x.value, y.value), ")");
      }
    }
  }
  if (a.size() == b.size()) return "";
  const ParsedBlob& extra = a.size() > b.size() ? a[files] : b[files];
  return absl::StrCat(extra.path, ": offset 0: ", other_label, " compaction wrote ",
                      b.size() > a.size() ? "more" : "fewer", " blob files than stock (", *matched,
                      " blobs matched)");
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
  ROCKPOOL_ASSIGN_OR_RETURN(std::vector<ParsedBlob> parsed, ParseAll(blobs));
  BlobOutputSummary s;
  s.files = parsed.size();
  for (const ParsedBlob& b : parsed) {
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
  ROCKPOOL_ASSIGN_OR_RETURN(std::vector<ParsedBlob> a, ParseAll(reference));
  ROCKPOOL_ASSIGN_OR_RETURN(std::vector<ParsedBlob> b, ParseAll(other));
  Comparison c;
  c.difference = BlobDifference(a, b, other_label, &c.blocks);
  c.identical = c.difference.empty();
  return c;
}

}  // namespace rockpool::replay
