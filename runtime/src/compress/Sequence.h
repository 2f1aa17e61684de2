// A sequence of trace nodes under construction with on-line repetition
// detection: the tail's repeated windows fold into loops (id 0), and
// repeated loops nest (ScalaTrace's RSDs and PRSDs, ScalaIOExtrap §2).
#pragma once

#include "Folder.h"
#include "IntraRank.h"

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

namespace sio::rt::detail {

/// A sequence of nodes under construction, with on-line repetition detection.
struct Sequence {
  std::vector<Node> nodes;
  std::vector<uint64_t> hashes;
  std::vector<std::unique_ptr<Folder>> open; // marker-less loops that may still grow

  bool empty() const { return nodes.empty(); }

  void append(Node node, uint64_t hash, const CompressorOptions &opts) {
    nodes.push_back(std::move(node));
    hashes.push_back(hash);
    open.emplace_back();
    if (!opts.detectRepetition)
      return;
    // A fold makes a new last node, which may complete a longer pattern (PRSD).
    while (tryExtend(opts.maxWindow) || tryFold(opts.maxWindow)) {
    }
  }

  void materializeAt(size_t k) {
    if (open[k]) {
      materialize(nodes[k].loop(), *open[k]);
      open[k].reset();
      hashes[k] = structureHash(nodes[k]); // a refolded nest has another structure
    }
  }

  /// Closes every open loop and hands the nodes over.
  std::vector<Node> take() {
    materializeAll();
    std::vector<Node> out = std::move(nodes);
    clear();
    return out;
  }

  void materializeAll() {
    for (size_t k = 0; k < nodes.size(); ++k)
      materializeAt(k);
  }

  void clear() {
    nodes.clear();
    hashes.clear();
    open.clear();
  }

  size_t bytes() const {
    size_t b = sizeof(*this) + hashes.capacity() * sizeof(uint64_t) + open.capacity() * sizeof(void *);
    for (const Node &n : nodes)
      b += nodeBytes(n);
    for (const auto &f : open)
      if (f) {
        b += sizeof(Folder) + f->bodyHashes.capacity() * sizeof(uint64_t);
        for (const ValueFitter &v : f->values)
          b += v.bytes();
      }
    return b;
  }

  /// Whether appending the body of the open loop that ends the sequence,
  /// one call at a time, would fold nothing until its last call, which
  /// extends that loop by one iteration: what the steady-state path of a
  /// marker-less loop assumes (FastPath::open). The sequence is a fixpoint of
  /// append() (nothing folds), so only the states with part of an iteration
  /// appended are looked at, on hashes alone: any other candidate of
  /// tryExtend or tryFold whose hashes match refuses, even one whose
  /// structure would then differ.
  bool appendsOnlyExtendLast(size_t maxWindow) const {
    const size_t n = nodes.size();
    if (n == 0 || !open[n - 1])
      return false;
    const std::vector<uint64_t> &body = open[n - 1]->bodyHashes;
    const size_t w = body.size();
    if (w == 0 || w > maxWindow)
      return false;
    // No candidate reaches further back than 2 * maxWindow nodes.
    const size_t lo = n - std::min(n, 2 * maxWindow);
    std::vector<uint64_t> h(hashes.begin() + static_cast<std::ptrdiff_t>(lo), hashes.end());
    auto hashAt = [&](size_t k) { return h.begin() + static_cast<std::ptrdiff_t>(k - lo); };
    for (size_t m = 1; m <= w; ++m) {
      h.push_back(body[m - 1]);
      const size_t size = n + m;
      for (size_t ww = 1; ww <= maxWindow && ww < size; ++ww) { // tryExtend
        const size_t at = size - 1 - ww;
        if (at >= n || !open[at] || nodes[at].loop().body.size() != ww ||
            !std::equal(hashAt(at + 1), h.end(), open[at]->bodyHashes.begin(), open[at]->bodyHashes.end()))
          continue;
        return m == w && at == n - 1; // the first candidate: the loop itself, complete
      }
      for (size_t ww = 1; ww <= maxWindow && 2 * ww <= size; ++ww) { // tryFold
        const size_t first = size - 2 * ww, second = size - ww;
        if (std::equal(hashAt(first), hashAt(second), hashAt(second)))
          return false;
      }
    }
    return false; // not reached: at m == w the loop itself is a candidate
  }

private:
  /// The last w nodes repeat the body of the open loop right before them.
  bool tryExtend(size_t maxWindow) {
    const size_t n = nodes.size();
    for (size_t w = 1; w <= maxWindow && w < n; ++w) {
      const size_t at = n - 1 - w;
      if (!open[at] || nodes[at].loop().body.size() != w)
        continue;
      if (!std::equal(hashes.begin() + at + 1, hashes.end(), open[at]->bodyHashes.begin()))
        continue;
      std::span<const Node> tail(nodes.data() + at + 1, w);
      if (!sameStructure(std::span<const Node>(nodes[at].loop().body), tail))
        continue;
      for (size_t k = at + 1; k < n; ++k)
        materializeAt(k);
      if (!sameAfterClosing(open[at]->bodyHashes, at + 1) ||
          !sameStructure(std::span<const Node>(nodes[at].loop().body), tail))
        continue;
      std::vector<Node> iteration(std::make_move_iterator(nodes.begin() + at + 1),
                                  std::make_move_iterator(nodes.end()));
      if (!accepts(*open[at], iteration)) {
        std::move(iteration.begin(), iteration.end(), nodes.begin() + at + 1);
        continue;
      }
      sampleIteration(*open[at], nodes[at].loop().body, iteration);
      truncate(at + 1);
      return true;
    }
    return false;
  }

  /// The last w nodes repeat the w nodes before them: fold both into a loop.
  bool tryFold(size_t maxWindow) {
    const size_t n = nodes.size();
    for (size_t w = 1; w <= maxWindow && 2 * w <= n; ++w) {
      const size_t first = n - 2 * w, second = n - w;
      if (hashes[n - 1] != hashes[second - 1])
        continue;
      if (!std::equal(hashes.begin() + first, hashes.begin() + second, hashes.begin() + second))
        continue;
      if (!sameStructure(std::span<const Node>(nodes.data() + first, w),
                         std::span<const Node>(nodes.data() + second, w)))
        continue;
      for (size_t k = first; k < n; ++k)
        materializeAt(k);
      if (!sameAfterClosing(std::span<const uint64_t>(hashes.data() + first, w), second) ||
          !sameStructure(std::span<const Node>(nodes.data() + first, w),
                         std::span<const Node>(nodes.data() + second, w)))
        continue;
      std::vector<uint64_t> bodyHashes(hashes.begin() + first, hashes.begin() + second);
      Loop loop;
      loop.body.assign(std::make_move_iterator(nodes.begin() + first), std::make_move_iterator(nodes.begin() + second));
      std::vector<Node> iteration(std::make_move_iterator(nodes.begin() + second),
                                  std::make_move_iterator(nodes.end()));
      uint64_t hash = loopHash(0, bodyHashes);
      auto folder = startFolder(loop.body, std::move(bodyHashes));
      if (!accepts(*folder, iteration)) {
        std::move(loop.body.begin(), loop.body.end(), nodes.begin() + first);
        std::move(iteration.begin(), iteration.end(), nodes.begin() + second);
        continue;
      }
      loop.iterations = ElasticValue(Value(Expr(2)), RankList());
      sampleIteration(*folder, loop.body, iteration);
      truncate(first);
      nodes.push_back(Node{RankList(), std::move(loop)});
      hashes.push_back(hash);
      open.push_back(std::move(folder));
      return true;
    }
    return false;
  }

  /// Closing open loops may refold one into a nest and not its copy (their
  /// values differ): the nodes from `from` on must still match `expected`.
  bool sameAfterClosing(std::span<const uint64_t> expected, size_t from) const {
    return std::equal(expected.begin(), expected.end(), hashes.begin() + static_cast<std::ptrdiff_t>(from),
                      hashes.end());
  }

  void truncate(size_t size) {
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(size), nodes.end());
    hashes.resize(size);
    open.resize(size);
  }
};

} // namespace sio::rt::detail
