#include "rocksdb_plugin/legacy/handle_registry.h"

#include <new>

namespace rockpool::legacy {

HandleRegistry::~HandleRegistry() {
  for (Shard& shard : shards_) {
    ShardLockHolder lock(&shard.mu);
    delete[] shard.slots;
  }
}

bool HandleRegistry::GrowLocked(Shard& shard) {
  const size_t capacity = shard.mask == 0 ? 16 : (shard.mask + 1) * 2;
  Slot* slots = new (std::nothrow) Slot[capacity];
  if (slots == nullptr) return false;
  const size_t mask = capacity - 1;
  for (size_t i = 0; shard.slots != nullptr && i <= shard.mask; ++i) {
    const Slot& old = shard.slots[i];
    if (old.key == nullptr) continue;
    size_t j = Hash(old.key) & mask;
    while (slots[j].key != nullptr) j = (j + 1) & mask;
    slots[j] = old;
  }
  delete[] shard.slots;
  shard.slots = slots;
  shard.mask = mask;
  return true;
}

bool HandleRegistry::Add(const void* handle, void* value) noexcept {
  if (handle == nullptr || value == nullptr) return false;
  const uint64_t hash = Hash(handle);
  Shard& shard = ShardOf(hash);
  ShardLockHolder lock(&shard.mu);
  if (shard.slots == nullptr || (shard.used + 1) * 4 > (shard.mask + 1) * 3) {
    if (!GrowLocked(shard)) return false;
  }
  size_t i = hash & shard.mask;
  while (shard.slots[i].key != nullptr && shard.slots[i].key != handle) i = (i + 1) & shard.mask;
  if (shard.slots[i].key == nullptr) ++shard.used;
  shard.slots[i] = Slot{handle, value};
  return true;
}

void* HandleRegistry::Find(const void* handle) const noexcept {
  if (handle == nullptr) return nullptr;
  const uint64_t hash = Hash(handle);
  const Shard& shard = shards_[hash >> 60 & (kShards - 1)];
  ShardLockHolder lock(&shard.mu);
  if (shard.slots == nullptr) return nullptr;
  for (size_t i = hash & shard.mask; shard.slots[i].key != nullptr; i = (i + 1) & shard.mask) {
    if (shard.slots[i].key == handle) return shard.slots[i].value;
  }
  return nullptr;
}

void* HandleRegistry::Remove(const void* handle) noexcept {
  if (handle == nullptr) return nullptr;
  const uint64_t hash = Hash(handle);
  Shard& shard = ShardOf(hash);
  ShardLockHolder lock(&shard.mu);
  if (shard.slots == nullptr) return nullptr;
  const size_t mask = shard.mask;
  size_t i = hash & mask;
  while (shard.slots[i].key != handle) {
    if (shard.slots[i].key == nullptr) return nullptr;
    i = (i + 1) & mask;
  }
  void* value = shard.slots[i].value;
  // Backward-shift deletion: move later entries of the probe run into the
  // hole unless their home slot lies cyclically in (hole, entry].
  for (size_t j = (i + 1) & mask; shard.slots[j].key != nullptr; j = (j + 1) & mask) {
    const size_t home = Hash(shard.slots[j].key) & mask;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    shard.slots[i] = shard.slots[j];
    i = j;
  }
  shard.slots[i] = Slot{};
  --shard.used;
  return value;
}

size_t HandleRegistry::size() const noexcept {
  size_t n = 0;
  for (const Shard& shard : shards_) {
    ShardLockHolder lock(&shard.mu);
    n += shard.used;
  }
  return n;
}

}  // namespace rockpool::legacy
