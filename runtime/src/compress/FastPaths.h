// The steady-state paths of the intra-rank compressor (RawEvent path):
// what the next iteration's calls will be, so that a call that matches is
// only counted, with no Event built (IntraRank.h, event(const RawEvent &)).
#pragma once

#include "Folder.h"

#include <string>
#include <utility>
#include <vector>

namespace sio::rt::detail {

/// The steady state of a loop whose body is events only (a marker loop's
/// run, or the marker-less loop the frame's iteration ends with): what the
/// next iteration's calls will be, so that a call that matches is only
/// counted (RawEvent path). The pointers are into the loop's body and its
/// folder, which do not change while the path is armed; any other change to
/// the frame disarms it first (CompressorState::settle).
///
/// Cost per call is what makes it fast: a constant or text slot is counted
/// in its fitter only when the path disarms (`uncounted` iterations at once),
/// so an iteration touches only the slots that move (`moving`: affine ones
/// advance their prediction, store slots append the value).
struct FastPath {
  struct Slot {
    ValueFitter *fitter;
    const std::string *name;
    const char *nameSeen;             ///< an address that holds *name (see sameName)
    const std::string *text;          ///< text slot: the text; else integer
    int64_t next, step;               ///< column slot: next is the value matched
    SequenceFitter *line = nullptr;   ///< predicted slot: its fitter's predictedLine()
    SequenceFitter *column = nullptr; ///< a store slot: any integer, appended
  };
  struct Call {
    Event *templ;
    size_t firstSlot;
    const char *opSeen; ///< an address that holds templ->op (see sameName)
  };
  bool armed = false;
  /// Armed on the open marker-less loop that ends the frame's iteration
  /// (Sequence::appendsOnlyExtendLast) rather than on the frame's run: an
  /// iteration commits as its last call matches, not at an iter marker.
  bool open = false;
  Folder *folder = nullptr; ///< the loop's: the run's, or the open loop's
  std::vector<Call> calls;
  std::vector<Slot> slots;
  std::vector<size_t> moving;                         ///< the slots an iteration changes: affine and store slots
  size_t matched = 0;                                 ///< calls of the current iteration matched so far
  std::vector<std::pair<uint64_t, uint64_t>> timings; ///< their compute, duration
  uint64_t uncounted = 0; ///< committed iterations not yet added to the predicted slots' fitters
};

/// The steady state of a choice run (RawEvent path): the next iteration's
/// calls are matched against every alternative at once (alternatives may
/// share their first calls); at the iteration's end the one alternative
/// matched in full is committed as sampleChoice would, without an Event.
/// Armed when every guard's trip count is predicted (a line) or stored (a
/// column), for the alternatives whose calls' integer slots all are too
/// (an alternative taken once so far, or holding a loop, is left to the
/// general path). Per iteration the guards' columns and the stored slots
/// take a value (the alternatives not taken a filler, as addFree does);
/// predicted slots, and every slot of the alternatives left out, are
/// counted when the path disarms, taken or free alike (a free sample fits
/// any line).
struct ChoicePath {
  struct Slot {
    ValueFitter *fitter;
    const std::string *name;
    const char *nameSeen;
    const std::string *text;
    int64_t base = 0, step = 0;       ///< predicted: the value at run iteration j is base + step*(j - j0)
    SequenceFitter *line = nullptr;   ///< predicted slot: its fitter's predictedLine()
    SequenceFitter *column = nullptr; ///< stored slot
  };
  struct Call {
    Event *templ;
    size_t firstSlot;
    const char *opSeen;
  };
  struct Alternative {
    std::vector<Call> calls;
    Slot guard; ///< its trip count: 1 when taken, 0 otherwise
  };
  bool armed = false;
  Folder *folder = nullptr;
  std::vector<Alternative> alts;
  std::vector<Slot> slots;           ///< every alternative's, in call order
  std::vector<size_t> columns;       ///< the stored slots, per alternative (columnsOf)
  std::vector<size_t> columnsAt;     ///< alternative a's stored slots: columns[columnsAt[a] .. columnsAt[a + 1])
  uint64_t j0 = 0;                   ///< the run's iteration count when armed
  uint64_t uncounted = 0;            ///< committed iterations not yet added to the predicted slots
  uint32_t all = 0;                  ///< the alternatives matched (the others' iterations take the general path)
  uint32_t candidates = 0;           ///< of those, the ones that match the calls so far
  std::vector<ValueFitter *> frozen; ///< the slots of the others: free in every committed iteration
  /// The calls of the current iteration matched so far, with what replaying
  /// them needs: the template call of a candidate, the values, the timing.
  struct Matched {
    const Call *call;
    size_t firstValue;
    uint64_t computeNs, durationNs;
  };
  std::vector<Matched> matched;
  std::vector<int64_t> values;
  std::vector<const std::string *> texts;
};

/// Whether a caller's name (RawEvent::op, RawParam::name) is the template's
/// `name`. Callers pass the same static string on every call of a site, so
/// the address that matched last (`seen`) is compared first; only another
/// address costs a string comparison, and becomes `seen` when it matches.
/// RawEvent documents that the text at an address does not change.
inline bool sameNameByText(const std::string &name, const char *raw, const char *&seen) {
  if (name != raw)
    return false;
  seen = raw;
  return true;
}
inline bool sameName(const std::string &name, const char *raw, const char *&seen) {
  return raw == seen || sameNameByText(name, raw, seen);
}

} // namespace sio::rt::detail
