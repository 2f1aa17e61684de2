"""Checks a trace of lit-tests/runtime/Inputs/branchy.cpp against what the
program says it did: sio-trace stats reports exactly its calls and bytes per
operation (summed over ranks), and the trace takes at most MAX_BYTES bytes a
call.
  check_branchy.py PROGRAM_OUTPUT TRACE SIO_TRACE MAX_BYTES_PER_CALL"""
import os
import re
import subprocess
import sys

out, trace, sio_trace, max_bytes = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
want = {"reads": 0, "writes": 0, "seeks": 0, "bytes_read": 0, "bytes_written": 0}
for line in open(out):
    for key in want:
        m = re.search(r"\b%s (\d+)" % key, line)
        if m:
            want[key] += int(m.group(1))
stats = subprocess.run([sio_trace, "stats", trace], check=True, capture_output=True, text=True).stdout


def op_row(op):
    m = re.search(r"^\s+%s\s+(\d+)\s+(\d+)" % op, stats, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


got = {"reads": op_row("pread")[0], "writes": op_row("pwrite")[0], "seeks": op_row("lseek")[0],
       "bytes_read": op_row("pread")[1], "bytes_written": op_row("pwrite")[1]}
if got != want:
    sys.exit(f"trace {trace}: {got}, the program did {want}\n{stats}")
calls = sum(want[k] for k in ("reads", "writes", "seeks"))
size = os.path.getsize(trace)
if size > max_bytes * calls:
    sys.exit(f"trace {trace} is {size} bytes for {calls} calls: more than {max_bytes} bytes a call")
print(f"ok: {calls} calls as the program made them, {size / calls:.1f} bytes a call")
