// The merge of two ranks' (or two groups of ranks') trace bodies: equal
// structure aligned node by node (longest common subsequence within a
// bound), values united into elastic entries (ScalaIOExtrap §2, inter-node
// compression).
#pragma once

#include "sio/trace/Trace.h"

#include <algorithm>
#include <vector>

namespace sio::rt::detail {

/// The nodes of `a` and `b` aligned and merged; the ranks of each side stay
/// apart where their structure differs.
std::vector<sio::trace::Node> mergeBodies(std::vector<sio::trace::Node> a, std::vector<sio::trace::Node> b);

/// Sites or loops of both tables, each id once, sorted by id.

template <typename Info> void uniteById(std::vector<Info> &a, std::vector<Info> b) {
  for (Info &x : b)
    if (std::none_of(a.begin(), a.end(), [&](const Info &y) { return y.id == x.id; }))
      a.push_back(std::move(x));
  std::sort(a.begin(), a.end(), [](const Info &x, const Info &y) { return x.id < y.id; });
}

} // namespace sio::rt::detail
