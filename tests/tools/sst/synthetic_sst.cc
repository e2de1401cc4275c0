#include "tests/tools/sst/synthetic_sst.h"

#include <algorithm>
#include <map>

#include "compression/coding.h"
#include "tools/sst/block_handle.h"
#include "tools/sst/block_layout.h"
#include "tools/sst/data_block_builder.h"
#include "tools/sst/footer.h"
#include "tools/sst/metaindex.h"
#include "tools/sst/properties.h"

namespace rockpool::sst_testing {

using sst::BlockHandle;

std::string WithEmptyHashIndex(std::string_view block, uint16_t buckets) {
  if (buckets == 0) return std::string(block);
  const uint32_t packed = rockpool::DecodeFixed32(block.data() + block.size() - 4);
  // The hash index goes between the restarts and the values section offset.
  const size_t tail = (packed & sst::kSeparatedKVBit) != 0 ? 8 : 4;
  std::string out(block.substr(0, block.size() - tail));
  out.append(buckets, static_cast<char>(0xff));  // kNoEntry
  rockpool::PutFixed16(&out, buckets);
  out.append(block.substr(block.size() - tail, tail - 4));
  rockpool::PutFixed32(&out, packed | sst::kHashIndexBit);
  return out;
}

std::string MakeInternalKey(std::string_view user_key, uint64_t seq, uint8_t type) {
  std::string key(user_key);
  rockpool::PutFixed64(&key, (seq << 8) | type);
  return key;
}

namespace {

class Writer {
 public:
  explicit Writer(const SyntheticSstOptions& o) : o_(o) {}

  BlockHandle WriteBlock(const std::string& contents, bool is_data, bool compressible) {
    uint8_t type = 0;
    std::string payload = contents;
    if (compressible && o_.compressor) {
      auto [t, p] = o_.compressor(contents, is_data);
      type = t;
      payload = std::move(p);
    }
    BlockHandle handle{out_.size(), payload.size()};
    out_ += payload;
    out_.push_back(static_cast<char>(type));
    const uint32_t base = o_.format_version >= 6 ? o_.base_context_checksum : 0;
    const std::string_view covered(out_.data() + handle.offset, payload.size() + 1);
    rockpool::PutFixed32(&out_,
                         sst::ComputeBlockChecksum(o_.checksum, covered, base, handle.offset));
    return handle;
  }

  // One index block over `entries` (separator key, handle, first key).
  std::string IndexBlock(const std::vector<std::pair<std::string, BlockHandle>>& entries,
                         const std::vector<std::string>& first_keys) const {
    const bool delta = o_.format_version >= 4 && o_.index_value_delta_encoded;
    const bool first_key = o_.index_type == sst::IndexType::kBinarySearchWithFirstKey;
    sst::DataBlockBuilder b(0, {o_.index_restart_interval, delta});
    const BlockHandle* prev = nullptr;
    for (size_t i = 0; i < entries.size(); ++i) {
      const BlockHandle& h = entries[i].second;
      std::string full, delta_value;
      sst::EncodeBlockHandle(h, &full);
      if (prev != nullptr) {
        rockpool::PutVarsignedint64(
            &delta_value, static_cast<int64_t>(h.size) - static_cast<int64_t>(prev->size));
      }
      if (first_key && i < first_keys.size()) {
        rockpool::PutLengthPrefixed(&full, first_keys[i]);
        rockpool::PutLengthPrefixed(&delta_value, first_keys[i]);
      }
      b.Add(entries[i].first, full, delta_value);
      prev = &h;
    }
    return std::string(b.Finish());
  }

  std::string& out() { return out_; }

 private:
  const SyntheticSstOptions& o_;
  std::string out_;
};

std::string Varint(uint64_t v) {
  std::string s;
  rockpool::PutVarint64(&s, v);
  return s;
}

std::string MapBlock(const std::map<std::string, std::string>& entries) {
  sst::DataBlockBuilder b(0, {.restart_interval = 1});
  for (const auto& [k, v] : entries) b.Add(k, v);
  return std::string(b.Finish());
}

void AppendFooter(const SyntheticSstOptions& o, const BlockHandle& metaindex,
                  const BlockHandle& index, std::string* out) {
  const uint64_t footer_offset = out->size();
  std::string f;
  if (o.legacy_magic) {
    sst::EncodeBlockHandle(metaindex, &f);
    sst::EncodeBlockHandle(index, &f);
    f.resize(40, '\0');
    rockpool::PutFixed64(&f, sst::kLegacyBlockBasedTableMagicNumber);
    out->append(f);
    return;
  }
  f.push_back(static_cast<char>(o.checksum));
  if (o.format_version >= 6) {
    f.append(std::string("\x3e\x00\x7a\x00", 4));
    rockpool::PutFixed32(&f, 0);  // checksum, filled below
    rockpool::PutFixed32(&f, o.base_context_checksum);
    rockpool::PutFixed32(&f, static_cast<uint32_t>(metaindex.size));
    f.append(24, '\0');
  } else {
    sst::EncodeBlockHandle(metaindex, &f);
    sst::EncodeBlockHandle(index, &f);
    f.resize(41, '\0');
  }
  rockpool::PutFixed32(&f, o.format_version);
  rockpool::PutFixed64(&f, sst::kBlockBasedTableMagicNumber);
  if (o.format_version >= 6) {
    uint32_t checksum = sst::ComputeBuiltinChecksum(o.checksum, f.data(), f.size()) +
                        sst::ChecksumModifierForContext(o.base_context_checksum, footer_offset);
    std::string encoded;
    rockpool::PutFixed32(&encoded, checksum);
    f.replace(5, 4, encoded);
  }
  out->append(f);
}

}  // namespace

SyntheticSst BuildSyntheticSst(const std::vector<std::pair<std::string, std::string>>& kvs,
                               const SyntheticSstOptions& o) {
  SyntheticSst result;
  Writer w(o);
  // Data blocks; index entries keyed by each block's last key.
  std::vector<std::pair<std::string, BlockHandle>> entries;
  std::vector<std::string> first_keys;
  uint64_t data_size = 0, raw_key_size = 0, raw_value_size = 0;
  for (size_t i = 0; i < kvs.size(); i += o.entries_per_block) {
    sst::DataBlockBuilder b(0, {o.data_restart_interval, false, o.separated_kv});
    const size_t end = std::min(kvs.size(), i + o.entries_per_block);
    for (size_t j = i; j < end; ++j) {
      b.Add(kvs[j].first, kvs[j].second);
      raw_key_size += kvs[j].first.size();
      raw_value_size += kvs[j].second.size();
    }
    BlockHandle h = w.WriteBlock(WithEmptyHashIndex(b.Finish(), o.data_hash_buckets), true, true);
    data_size += h.size + sst::kBlockTrailerSize;
    result.data_blocks.push_back(h);
    entries.emplace_back(kvs[end - 1].first, h);
    first_keys.push_back(kvs[i].first);
  }
  // Index.
  if (o.index_type == sst::IndexType::kTwoLevelIndexSearch) {
    std::vector<std::pair<std::string, BlockHandle>> top;
    for (size_t i = 0; i < entries.size(); i += o.blocks_per_partition) {
      const size_t end = std::min(entries.size(), i + o.blocks_per_partition);
      std::vector<std::pair<std::string, BlockHandle>> part(entries.begin() + i,
                                                            entries.begin() + end);
      BlockHandle h = w.WriteBlock(w.IndexBlock(part, {}), false, true);
      result.index_partitions.push_back(h);
      top.emplace_back(part.back().first, h);
    }
    result.index = w.WriteBlock(w.IndexBlock(top, {}), false, true);
  } else {
    result.index = w.WriteBlock(w.IndexBlock(entries, first_keys), false, true);
  }
  std::map<std::string, std::string> meta;
  if (!o.compression_dict.empty()) {
    BlockHandle h = w.WriteBlock(o.compression_dict, false, false);
    sst::EncodeBlockHandle(h, &meta[std::string(sst::meta_block_names::kCompressionDict)]);
  }
  // Properties.
  namespace pn = sst::property_names;
  std::map<std::string, std::string> props;
  std::string index_type;
  rockpool::PutFixed32(&index_type, static_cast<uint32_t>(o.index_type));
  props[std::string(pn::kIndexType)] = index_type;
  props[std::string(pn::kCompression)] = o.compressor ? "Synthetic" : "NoCompression";
  props[std::string(pn::kComparator)] = "leveldb.BytewiseComparator";
  props[std::string(pn::kDataSize)] = Varint(data_size);
  props[std::string(pn::kIndexKeyIsUserKey)] = Varint(0);
  props[std::string(pn::kIndexValueIsDeltaEncoded)] =
      Varint(o.format_version >= 4 && o.index_value_delta_encoded ? 1 : 0);
  props[std::string(pn::kNumDataBlocks)] = Varint(result.data_blocks.size());
  props[std::string(pn::kNumEntries)] = Varint(kvs.size());
  props[std::string(pn::kRawKeySize)] = Varint(raw_key_size);
  props[std::string(pn::kRawValueSize)] = Varint(raw_value_size);
  if (!result.index_partitions.empty()) {
    props[std::string(pn::kIndexPartitions)] = Varint(result.index_partitions.size());
  }
  result.properties = w.WriteBlock(MapBlock(props), false, false);
  sst::EncodeBlockHandle(result.properties, &meta[std::string(sst::meta_block_names::kProperties)]);
  if (o.format_version >= 6) {
    sst::EncodeBlockHandle(result.index, &meta[std::string(sst::meta_block_names::kIndex)]);
  }
  result.metaindex = w.WriteBlock(MapBlock(meta), false, false);
  AppendFooter(o, result.metaindex, result.index, &w.out());
  result.bytes = std::move(w.out());
  return result;
}

}  // namespace rockpool::sst_testing
