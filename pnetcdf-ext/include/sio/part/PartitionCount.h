// The default partition count K (no nc_num_partitions hint). Son et al. 2013
// §III-B put one partition on each selected target; two things make that
// slower than it could be here:
//  - a rank whose slab straddles partitions sends part of its data to the
//    other partitions' owners (the exchange of §III-C): with K = 3 over 4
//    ranks every rank but the first and last does, and a FLASH-like write on
//    fast targets ran 1.5x slower than unpartitioned, while K = 2 or 4 moves
//    nothing;
//  - with fewer ranks than partitions a rank writes its partitions one after
//    another, so extra partitions add files, not bandwidth.
// K is therefore chosen by an estimate of the write time of the whole array
// (1 byte in all, so only ratios matter): the time of the busiest target or
// rank, plus the bytes that leave their rank over the exchange bandwidth.
// Slow targets (MB/s) make the first term decide (K = targets selected);
// fast ones make the second (K dividing the rank count). No MPI here.
#pragma once

#include <cstddef>
#include <span>

namespace sio::part {

/// The order of magnitude of the rank-to-rank exchange (MPI over shared
/// memory plus packing) on one node, bytes per second, for the whole job:
/// the development VM moved 1-2 GB/s between ranks while loaded.
inline constexpr double kExchangeBytesPerSecond = 1e9;

/// The fraction of a balanced block-distributed array (rank r holds
/// [r/P, (r+1)/P) along the cut dimension) that lies in partitions r does
/// not own, when the array is cut into K balanced partitions owned as
/// setUpPartComms does (P >= K: the ranks r with r*K/P = p; P < K: rank
/// p mod P). 0 when K divides P.
double straddleFraction(int k, int ranks);

/// Estimated time to write one byte spread evenly over K partitions:
/// partition p on the target bandwidths[p mod S] (bytes/s, in the order the
/// partitions are assigned), the busiest target or rank, plus
/// straddleFraction / exchangeBytesPerSecond.
double partitionWriteCost(int k, int ranks, std::span<const double> bandwidths,
                          double exchangeBytesPerSecond = kExchangeBytesPerSecond);

/// The K in [1, ranks] (at most 4 per selected target) with the least
/// estimated cost; of equal ones, the smallest (fewer files).
/// With no bandwidth known (empty span) one partition.
int choosePartitionCount(std::span<const double> bandwidths, int ranks,
                         double exchangeBytesPerSecond = kExchangeBytesPerSecond);

} // namespace sio::part
