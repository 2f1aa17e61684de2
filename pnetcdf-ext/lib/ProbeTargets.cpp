// The storage targets' probe (Son et al. 2013 §III-A): the rounds of all
// ranks at once, and the probes kept for the next files.
#include "Interpose.h"

#include <atomic>
#include <chrono>
#include <limits>
#include <thread>

namespace sio::part::interpose {

void probeRound(Master &m, const std::vector<std::string> &targets, size_t perTarget,
                std::vector<sio::part::ProbeResult> &results) {
  sio::part::ProbeDeadline deadline;
  std::atomic<int> done{0};
  std::vector<std::thread> probes;
  for (size_t t = size_t(m.rank); t < targets.size(); t += size_t(m.size))
    probes.emplace_back([&, t] {
      results[t] = sio::part::probeDirectory(targets[t], perTarget, &deadline);
      if (results[t].error.empty() && !results[t].stopped)
        deadline.finished(deadline.elapsed());
      ++done;
    });
  const int mine = int(probes.size());
  const int probers = int(std::min<size_t>(targets.size(), size_t(m.size)));
  if (m.rank < probers && probers > 1) {
    std::vector<double> theirs(size_t(probers), 0.0);
    std::vector<MPI_Request> recvs, sends;
    for (int r = 0; r < probers; ++r)
      if (r != m.rank) {
        recvs.emplace_back();
        MPI_Irecv(&theirs[size_t(r)], 1, MPI_DOUBLE, r, kTagProbe, m.comm, &recvs.back());
      }
    double sent = 0;
    bool haveSent = false;
    int received = 0;
    std::vector<int> idx(recvs.size());
    while (!haveSent || received < int(recvs.size()) || done.load() < mine) {
      if (!haveSent && (deadline.firstFinish.load() < std::numeric_limits<double>::infinity() || done.load() == mine)) {
        sent = deadline.firstFinish.load();
        for (int r = 0; r < probers; ++r)
          if (r != m.rank) {
            sends.emplace_back();
            MPI_Isend(&sent, 1, MPI_DOUBLE, r, kTagProbe, m.comm, &sends.back());
          }
        haveSent = true;
      }
      int n = 0;
      if (received < int(recvs.size())) {
        MPI_Testsome(int(recvs.size()), recvs.data(), &n, idx.data(), MPI_STATUSES_IGNORE);
        received += n == MPI_UNDEFINED ? 0 : n;
      }
      for (int r = 0; r < probers; ++r)
        if (r != m.rank && theirs[size_t(r)] > 0)
          deadline.finished(theirs[size_t(r)]);
      if (n <= 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  }
  for (auto &th : probes)
    th.join();
}

sio::part::ProbeCache &probeCache() {
  static sio::part::ProbeCache cache;
  return cache;
}

bool reuseProbe(Master &m, const std::vector<std::string> &targets, std::vector<std::vector<double>> &rounds,
                sio::part::RoundsSelection &sel, double &age, double &probeSeconds) {
  const size_t T = targets.size();
  // One broadcast: rounds (0: probe), age, the probe's seconds, then up to
  // kMaxProbeRounds rounds of T bandwidths.
  std::vector<double> msg(3 + size_t(sio::part::kMaxProbeRounds) * T, 0.0);
  if (m.rank == 0) {
    const double now = MPI_Wtime();
    if (auto c = probeCache().find(targets, now, m.hints.probeLifetime)) {
      auto s = sio::part::selectFromRounds(c->rounds, m.hints.threshold);
      if (s.confident && c->rounds.size() <= size_t(sio::part::kMaxProbeRounds)) {
        msg[0] = double(c->rounds.size());
        msg[1] = now - c->probedAt;
        msg[2] = c->probeSeconds;
        for (size_t j = 0; j < c->rounds.size(); ++j)
          std::copy(c->rounds[j].begin(), c->rounds[j].end(), msg.begin() + std::ptrdiff_t(3 + j * T));
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, msg.data(), int(msg.size()), MPI_DOUBLE, MPI_SUM, m.comm);
  const size_t n = size_t(msg[0]);
  if (n < 1)
    return false;
  rounds.clear();
  for (size_t j = 0; j < n; ++j)
    rounds.emplace_back(msg.begin() + std::ptrdiff_t(3 + j * T), msg.begin() + std::ptrdiff_t(3 + (j + 1) * T));
  sel = sio::part::selectFromRounds(rounds, m.hints.threshold);
  age = msg[1];
  probeSeconds = msg[2];
  return true;
}

} // namespace sio::part::interpose
