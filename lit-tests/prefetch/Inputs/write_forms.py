"""Checks libsio-prefetch.so's dynamic symbols (nm -D output) against the
MPI-IO write forms of IoCalls.def. usage: write_forms.py IoCalls.def NM_OUTPUT
Prints one line per check; exits 1 naming what is missing."""
import re
import sys

listed = re.findall(r"^SIO_IO_CALL\((MPI_File_i?write\w*), MPIIO,",
                    open(sys.argv[1]).read(), re.M)
symbols = {}
for line in open(sys.argv[2]):
    parts = line.split()
    if len(parts) == 3:
        symbols[parts[2]] = parts[1]
missing = [n for n in listed if n not in symbols]
if missing:
    print("write forms not interposed: " + " ".join(missing))
    sys.exit(1)
print(f"write forms: {len(listed)} listed, all interposed")
served = ["MPI_File_read", "MPI_File_read_all", "MPI_File_read_at",
          "MPI_File_read_at_all", "MPI_File_iread", "MPI_File_iread_at"]
weak = [n for n in served if symbols.get(n) != "T"]
if weak:
    print("served reads not strong definitions: " + " ".join(weak))
    sys.exit(1)
print("served reads: " + " ".join(served) + " strong")
