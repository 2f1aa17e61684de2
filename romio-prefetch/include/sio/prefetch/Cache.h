// The prefetch cache of Byna et al. SC08 §V-B: fixed-size blocks of one
// process's open files, bounded, LRU with the paper's prediction-aware
// victim choice: a block that was prefetched and not yet read (it is "among
// the pages to be accessed in the near future") stays, and a block already
// read (or read through) is replaced first. When every block is such a
// pending prediction, the prefetcher waits rather than evicting its own work.
//
// Not thread-safe: the caller (the interposer) holds one mutex around it.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <unordered_map>
#include <vector>

namespace sio::prefetch {

struct BlockKey {
  uint64_t file = 0; ///< per open handle
  int64_t block = 0; ///< file offset / block size
  friend bool operator==(const BlockKey &, const BlockKey &) = default;
};

struct BlockKeyHash {
  size_t operator()(const BlockKey &k) const {
    return std::hash<uint64_t>()(k.file * 0x9E3779B97F4A7C15ull ^ uint64_t(k.block));
  }
};

class BlockCache {
public:
  enum class State { Loading, Ready };
  struct Entry {
    State state = State::Loading;
    uint64_t generation = 0; ///< the file's generation when the load started
    std::vector<char> data;  ///< blockSize bytes; `valid` of them hold the file's
    size_t valid = 0;
    bool pending = false; ///< prefetched, not read yet
    std::list<BlockKey>::iterator lru;
  };
  enum class Claim { Claimed, Present, Full };
  /// Lookup of a byte range: Hit (every byte cached), Loading (some block is
  /// in flight, none missing), Miss (some block absent or short).
  enum class Lookup { Hit, Loading, Miss };

  BlockCache(size_t blockSize, size_t capacityBytes);

  size_t blockSize() const { return blockSize_; }
  size_t capacityBlocks() const { return capacity_; }
  size_t size() const { return map_.size(); }

  /// Reserve a Loading entry for `key`, evicting the least recently used
  /// block that is not a pending prediction if the cache is full.
  Claim claim(BlockKey key, uint64_t generation);
  /// The load of a claimed block finished: `bytes` valid bytes were read into
  /// buffer(key). Returns false (and drops the entry) when the entry is gone
  /// or was claimed under another generation.
  bool fill(BlockKey key, uint64_t generation, size_t bytes);
  /// The load failed: forget the entry.
  void abandon(BlockKey key, uint64_t generation);
  /// Where a claimed block's load writes (stable until fill/abandon/drop).
  char *buffer(BlockKey key);

  Lookup lookup(uint64_t file, int64_t offset, int64_t length) const;
  /// Whether some block of the range is still loading (the prefetcher is
  /// on it), whatever the other blocks are.
  bool anyLoading(uint64_t file, int64_t offset, int64_t length) const;
  /// Copy a range that lookup() said is a Hit; marks its blocks read and
  /// most recently used.
  void copy(uint64_t file, int64_t offset, int64_t length, char *dst);

  /// Drop the blocks overlapping [offset, offset+length) of the file.
  void invalidate(uint64_t file, int64_t offset, int64_t length);
  void dropFile(uint64_t file);

  /// Give up on the least recently used pending prediction (counted as
  /// wasted): it becomes an ordinary victim. Returns false if there is none.
  /// The prefetcher calls it when the cache is full of predictions while the
  /// application's next access is not cached: those predictions are stale
  /// (a signature that was wrong or the application moved elsewhere).
  bool demoteOldestPending();
  /// The same, skipping the blocks `keep` says are still wanted (those of
  /// the access a reader waits for: demoting them would make the prefetcher
  /// evict and reload its own work forever).
  bool demoteOldestPending(const std::function<bool(const BlockKey &)> &keep);
  /// The blocks a byte range spans.
  size_t blocksSpanned(int64_t offset, int64_t length) const {
    if (length <= 0)
      return 0;
    const int64_t bs = int64_t(blockSize_);
    return size_t((offset + length - 1) / bs - offset / bs + 1);
  }
  bool contains(BlockKey key) const { return map_.count(key) != 0; }
  const Entry *find(BlockKey key) const;

  /// Called with (file, bytes) when a prefetched block leaves unread.
  std::function<void(uint64_t, uint64_t)> onWasted;

private:
  void erase(std::unordered_map<BlockKey, Entry, BlockKeyHash>::iterator it);
  std::vector<char> takeBuffer();

  size_t blockSize_;
  size_t capacity_;
  std::unordered_map<BlockKey, Entry, BlockKeyHash> map_;
  std::list<BlockKey> lru_; ///< front: most recently used
  std::vector<std::vector<char>> free_;
};

} // namespace sio::prefetch
