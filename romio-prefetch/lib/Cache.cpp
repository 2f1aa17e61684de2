// BlockCache: LRU with prediction-aware victim choice (Byna et al. SC08 §V-B).
#include "sio/prefetch/Cache.h"

#include <algorithm>
#include <cstring>

namespace sio::prefetch {

BlockCache::BlockCache(size_t blockSize, size_t capacityBytes)
    : blockSize_(std::max<size_t>(blockSize, 512)), capacity_(std::max<size_t>(capacityBytes / blockSize_, 2)) {}

std::vector<char> BlockCache::takeBuffer() {
  if (!free_.empty()) {
    auto b = std::move(free_.back());
    free_.pop_back();
    return b;
  }
  return std::vector<char>(blockSize_);
}

void BlockCache::erase(std::unordered_map<BlockKey, Entry, BlockKeyHash>::iterator it) {
  Entry &e = it->second;
  if (e.state == State::Ready && e.pending && onWasted)
    onWasted(it->first.file, e.valid);
  lru_.erase(e.lru);
  free_.push_back(std::move(e.data));
  map_.erase(it);
}

BlockCache::Claim BlockCache::claim(BlockKey key, uint64_t generation) {
  if (map_.count(key))
    return Claim::Present;
  if (map_.size() >= capacity_) {
    // LRU order, skipping blocks in flight and pending predictions.
    auto victim = map_.end();
    for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
      auto m = map_.find(*it);
      if (m->second.state == State::Ready && !m->second.pending) {
        victim = m;
        break;
      }
    }
    if (victim == map_.end())
      return Claim::Full;
    erase(victim);
  }
  lru_.push_front(key);
  Entry e;
  e.generation = generation;
  e.data = takeBuffer();
  e.lru = lru_.begin();
  map_.emplace(key, std::move(e));
  return Claim::Claimed;
}

char *BlockCache::buffer(BlockKey key) {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : it->second.data.data();
}

bool BlockCache::fill(BlockKey key, uint64_t generation, size_t bytes) {
  auto it = map_.find(key);
  if (it == map_.end() || it->second.state != State::Loading)
    return false;
  if (it->second.generation != generation) {
    erase(it);
    return false;
  }
  it->second.state = State::Ready;
  it->second.valid = std::min(bytes, blockSize_);
  it->second.pending = true;
  return true;
}

void BlockCache::abandon(BlockKey key, uint64_t generation) {
  auto it = map_.find(key);
  if (it != map_.end() && it->second.state == State::Loading && it->second.generation == generation)
    erase(it);
}

const BlockCache::Entry *BlockCache::find(BlockKey key) const {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

BlockCache::Lookup BlockCache::lookup(uint64_t file, int64_t offset, int64_t length) const {
  if (length <= 0)
    return Lookup::Hit;
  const int64_t bs = int64_t(blockSize_);
  bool loading = false;
  for (int64_t b = offset / bs; b <= (offset + length - 1) / bs; ++b) {
    auto it = map_.find({file, b});
    if (it == map_.end())
      return Lookup::Miss;
    if (it->second.state == State::Loading) {
      loading = true;
      continue;
    }
    const int64_t need = std::min(offset + length, (b + 1) * bs) - b * bs; // bytes of this block the range needs
    if (int64_t(it->second.valid) < need)
      return Lookup::Miss; // short block: end of file when it was read
  }
  return loading ? Lookup::Loading : Lookup::Hit;
}

bool BlockCache::anyLoading(uint64_t file, int64_t offset, int64_t length) const {
  const int64_t bs = int64_t(blockSize_);
  for (int64_t b = offset / bs; length > 0 && b <= (offset + length - 1) / bs; ++b) {
    auto it = map_.find({file, b});
    if (it != map_.end() && it->second.state == State::Loading)
      return true;
  }
  return false;
}

void BlockCache::copy(uint64_t file, int64_t offset, int64_t length, char *dst) {
  const int64_t bs = int64_t(blockSize_);
  int64_t pos = offset;
  while (pos < offset + length) {
    const int64_t b = pos / bs;
    const int64_t in = pos - b * bs;
    const int64_t n = std::min(offset + length - pos, bs - in);
    auto it = map_.find({file, b});
    Entry &e = it->second;
    std::memcpy(dst, e.data.data() + in, size_t(n));
    e.pending = false;
    lru_.splice(lru_.begin(), lru_, e.lru);
    dst += n;
    pos += n;
  }
}

bool BlockCache::demoteOldestPending() {
  return demoteOldestPending([](const BlockKey &) { return false; });
}

bool BlockCache::demoteOldestPending(const std::function<bool(const BlockKey &)> &keep) {
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    auto m = map_.find(*it);
    if (m->second.state == State::Ready && m->second.pending && !keep(m->first)) {
      m->second.pending = false;
      if (onWasted)
        onWasted(m->first.file, m->second.valid);
      return true;
    }
  }
  return false;
}

void BlockCache::invalidate(uint64_t file, int64_t offset, int64_t length) {
  if (length <= 0)
    return;
  const int64_t bs = int64_t(blockSize_);
  for (int64_t b = offset / bs; b <= (offset + length - 1) / bs; ++b) {
    auto it = map_.find({file, b});
    if (it != map_.end())
      erase(it);
  }
}

void BlockCache::dropFile(uint64_t file) {
  for (auto it = map_.begin(); it != map_.end();) {
    auto next = std::next(it);
    if (it->first.file == file)
      erase(it);
    it = next;
  }
}

} // namespace sio::prefetch
