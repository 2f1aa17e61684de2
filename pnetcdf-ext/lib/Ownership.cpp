// Which ranks own partition p, who serves a request, and the owner groups'
// communicators.
#include "Interpose.h"

#include <algorithm>

namespace sio::part::interpose {

namespace {

std::vector<int> membersOf(int p, int k, int size) {
  std::vector<int> m;
  if (size >= k) {
    for (int r = 0; r < size; ++r)
      if (int64_t(r) * k / size == p)
        m.push_back(r);
  } else {
    m.push_back(p % size);
  }
  return m;
}

} // namespace

int delegateOf(const Part &part, int r) {
  if (std::find(part.members.begin(), part.members.end(), r) != part.members.end())
    return r;
  return part.members[r % part.members.size()];
}

void setUpPartComms(Master &m) {
  m.parts.resize(m.k);
  for (int p = 0; p < m.k; ++p)
    m.parts[p].members = membersOf(p, m.k, m.size);
  if (m.size >= m.k) {
    int color = int(int64_t(m.rank) * m.k / m.size);
    const std::vector<int> &members = m.parts[color].members;
    MPI_Comm sub;
    if (members.size() == 1) {
      MPI_Comm_dup(MPI_COMM_SELF, &sub);
    } else {
      MPI_Group all, group;
      MPI_Comm_group(m.comm, &all);
      MPI_Group_incl(all, int(members.size()), members.data(), &group);
      MPI_Comm_create_group(m.comm, group, kTagGroup, &sub);
      MPI_Group_free(&group);
      MPI_Group_free(&all);
    }
    m.parts[color].comm = sub;
  } else {
    for (int p = m.rank; p < m.k; p += m.size)
      MPI_Comm_dup(MPI_COMM_SELF, &m.parts[p].comm);
  }
}

} // namespace sio::part::interpose
