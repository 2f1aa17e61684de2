#include "IoClass.h"

#include "sio/trace/Summary.h"

namespace sio::report::detail {

using namespace sio::trace;

IoClass ioClass(const Event &e) {
  if (e.inner)
    return IoClass::Inner;
  if (e.layer == Layer::SYNC)
    return IoClass::Sync;
  switch (direction(e.op)) {
  case Direction::Read:
    return IoClass::Read;
  case Direction::Write:
    return IoClass::Write;
  case Direction::None:
    break;
  }
  // The end of a split collective and the wait for a nonblocking transfer
  // are where the data moves: data time, of the direction of its start.
  const std::string_view op = e.op;
  const bool isEnd = op.starts_with("MPI_File_") && op.ends_with("_end");
  if (isEnd)
    return op.find("read") != std::string_view::npos ? IoClass::Read : IoClass::Write;
  if (op.starts_with("MPI_Wait") || op.starts_with("MPI_Test"))
    return IoClass::Wait; // the request's direction is not in the event
  return IoClass::Metadata;
}

std::string_view ioClassName(IoClass c) {
  switch (c) {
  case IoClass::Read:
    return "read";
  case IoClass::Write:
    return "write";
  case IoClass::Wait:
    return "wait (nonblocking I/O)";
  case IoClass::Metadata:
    return "metadata";
  case IoClass::Sync:
    return "synchronization";
  case IoClass::Inner:
    return "inner";
  }
  return "?";
}

} // namespace sio::report::detail
