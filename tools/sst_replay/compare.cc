#include "tools/sst_replay/compare.h"

#include <algorithm>
#include <cerrno>
#include <limits>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compression/coding.h"
#include "compression/compression_type.h"
#include "tools/sst/blob_file.h"
#include "tools/sst/byte_source.h"
#include "tools/status/status_macros.h"

namespace rockpool::replay {
namespace {

// The data blocks of a list of SSTs, in order.
class DataBlockStream {
 public:
  DataBlockStream(const OutputList& files, const sst::SstReadOptions& options)
      : files_(files), options_(options) {
    options_.verify_checksums = false;
  }

  struct Block {
    std::string group;
    std::string path;
    sst::RawBlock raw;
  };

  absl::StatusOr<std::optional<Block>> Next() {
    while (file_ == nullptr || next_ == handles_.size()) {
      if (index_ == files_.size()) return std::nullopt;
      ROCKPOOL_ASSIGN_OR_RETURN(file_, sst::SstFile::Open(files_[index_++].second, options_));
      ROCKPOOL_ASSIGN_OR_RETURN(handles_, file_->DataBlockHandles());
      next_ = 0;
    }
    ROCKPOOL_ASSIGN_OR_RETURN(sst::RawBlock raw, file_->ReadRawBlock(handles_[next_++], false));
    return Block{files_[index_ - 1].first, files_[index_ - 1].second, std::move(raw)};
  }

 private:
  const OutputList& files_;
  sst::SstReadOptions options_;
  size_t index_ = 0;
  std::unique_ptr<sst::SstFile> file_;
  std::vector<sst::BlockHandle> handles_;
  size_t next_ = 0;
};

// Reads two streams of records in step until both end. `differs(x, y)`
// says how a pair differs (empty: equal); `ended(extra, other_longer,
// matched)` says which record one stream has beyond the other's end.
template <typename Stream, typename Differs, typename Ended>
absl::StatusOr<Comparison> CompareInStep(Stream& reference, Stream& other, Differs differs,
                                         Ended ended) {
  Comparison c;
  while (true) {
    ROCKPOOL_ASSIGN_OR_RETURN(auto x, reference.Next());
    ROCKPOOL_ASSIGN_OR_RETURN(auto y, other.Next());
    if (!x && !y) return c;
    c.difference = x && y ? differs(*x, *y) : ended(x ? *x : *y, y.has_value(), c.blocks);
    if (!c.difference.empty()) {
      c.identical = false;
      return c;
    }
    ++c.blocks;
  }
}

constexpr size_t kWriteBuffer = size_t{1} << 20;

// The shorter's size where one is a prefix of the other.
size_t FirstDifference(std::string_view a, std::string_view b) {
  return static_cast<size_t>(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first -
                             a.begin());
}

// The uncompressed size in a block's or blob's varint32 prefix (the stored
// size for types without one; 0 if torn).
uint32_t RecordedSize(uint8_t type, std::string_view stored) {
  uint32_t size = static_cast<uint32_t>(stored.size());
  if (rockpool::HasUncompressedSizePrefix(type) && !rockpool::GetVarint32(&stored, &size)) return 0;
  return size;
}

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

FramedReader::FramedReader(const std::string& path) : in_(path, std::ios::binary), path_(path) {}

absl::StatusOr<std::optional<FramedRecord>> FramedReader::Next() {
  auto torn = [&] { return absl::InternalError(absl::StrCat(path_, ": torn replay output")); };
  char header[kFramedHeaderBytes];
  in_.read(header, sizeof(header));
  if (in_.gcount() == 0 && in_.eof()) return std::optional<FramedRecord>();
  if (in_.gcount() != sizeof(header)) return torn();
  FramedRecord r;
  r.file = rockpool::DecodeFixed32(header);
  r.offset = rockpool::DecodeFixed64(header + 4);
  const uint32_t size = rockpool::DecodeFixed32(header + 12);
  r.bytes.resize(size);
  in_.read(r.bytes.data(), size);
  if (static_cast<uint32_t>(in_.gcount()) != size) return torn();
  return std::optional<FramedRecord>(std::move(r));
}

absl::Status FramedWriter::Open(const std::string& path) {
  file_.reset(std::fopen(path.c_str(), "wbe"));
  if (file_ == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", path));
  buffer_.resize(kWriteBuffer);
  header_.reserve(kFramedHeaderBytes);
  std::setvbuf(file_.get(), buffer_.data(), _IOFBF, buffer_.size());
  return absl::OkStatus();
}

absl::Status FramedWriter::Append(uint32_t file_index, uint64_t offset, std::string_view bytes) {
  header_.clear();
  rockpool::PutFixed32(&header_, file_index);
  rockpool::PutFixed64(&header_, offset);
  rockpool::PutFixed32(&header_, static_cast<uint32_t>(bytes.size()));
  if (std::fwrite(header_.data(), 1, header_.size(), file_.get()) != header_.size() ||
      std::fwrite(bytes.data(), 1, bytes.size(), file_.get()) != bytes.size()) {
    return absl::ErrnoToStatus(errno, "writing the replay output");
  }
  return absl::OkStatus();
}

absl::Status FramedWriter::Flush() {
  if (std::fflush(file_.get()) == 0) return absl::OkStatus();
  return absl::ErrnoToStatus(errno, "writing the replay output");
}

absl::StatusOr<Comparison> CompareFramedOutputs(const std::string& reference,
                                                const std::string& other,
                                                const std::vector<std::string>& files,
                                                const std::string& other_label) {
  FramedReader a(reference);
  FramedReader b(other);
  if (!a.ok()) return absl::InternalError(absl::StrCat("cannot read ", reference));
  if (!b.ok()) return absl::InternalError(absl::StrCat("cannot read ", other));
  auto name = [&](uint32_t i) { return i < files.size() ? files[i] : absl::StrCat("file #", i); };
  auto differs = [&](const FramedRecord& x, const FramedRecord& y) -> std::string {
    if (x.file != y.file || x.offset != y.offset) {
      return absl::StrCat(name(x.file), ": offset ", x.offset, ": ", other_label,
                          " output is out of step with stock (", name(y.file), " offset ", y.offset,
                          ")");
    }
    if (x.bytes == y.bytes) return "";
    return absl::StrCat(name(x.file), ": offset ", x.offset, ": ", other_label,
                        " compressed block differs from stock (", y.bytes.size(), " vs ",
                        x.bytes.size(), " bytes, first difference at byte ",
                        FirstDifference(x.bytes, y.bytes), ")");
  };
  auto ended = [&](const FramedRecord& extra, bool other_longer, uint64_t matched) {
    return absl::StrCat(name(extra.file), ": offset ", extra.offset, ": ", other_label,
                        " output has ", other_longer ? "more" : "fewer",
                        " compressed blocks than stock (", matched, " matched)");
  };
  return CompareInStep(a, b, differs, ended);
}

absl::StatusOr<OutputSummary> SummarizeOutputs(const OutputList& outputs,
                                               const sst::SstReadOptions& read_options) {
  OutputSummary s;
  s.files = outputs.size();
  DataBlockStream stream(outputs, read_options);
  while (true) {
    ROCKPOOL_ASSIGN_OR_RETURN(std::optional<DataBlockStream::Block> b, stream.Next());
    if (!b) return s;
    ++s.data_blocks;
    s.stored_bytes += b->raw.payload().size();
    s.uncompressed_bytes += RecordedSize(b->raw.compression_type, b->raw.payload());
  }
}

absl::StatusOr<Comparison> CompareCompactionOutputs(const OutputList& reference,
                                                    const OutputList& other,
                                                    const sst::SstReadOptions& read_options,
                                                    const std::string& other_label) {
  using Block = DataBlockStream::Block;
  DataBlockStream a(reference, read_options);
  DataBlockStream b(other, read_options);
  auto differs = [&](const Block& s, const Block& p) -> std::string {
    const std::string_view sp = s.raw.payload();
    const std::string_view pp = p.raw.payload();
    if (s.group == p.group && s.raw.compression_type == p.raw.compression_type && sp == pp) {
      return "";
    }
    return absl::StrCat(p.path, ": offset ", p.raw.handle.offset, ": ", other_label,
                        " data block differs from stock's (", s.path, " offset ",
                        s.raw.handle.offset, "; type ", p.raw.compression_type, " vs ",
                        s.raw.compression_type, ", ", pp.size(), " vs ", sp.size(),
                        " bytes, first difference at byte ", FirstDifference(sp, pp), ")");
  };
  auto ended = [&](const Block& extra, bool other_longer, uint64_t matched) {
    return absl::StrCat(extra.path, ": offset ", extra.raw.handle.offset, ": ", other_label,
                        " compaction wrote ", other_longer ? "more" : "fewer",
                        " data blocks than stock (", matched, " matched)");
  };
  return CompareInStep(a, b, differs, ended);
}

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
