"""Checks libsio-prefetch.so against the MPI-IO write forms of IoCalls.def.
usage: write_forms.py IoCalls.def NM_OUTPUT
         every listed write form is a dynamic symbol (nm -D output) of the
         library, and every read form it serves and every request completion
         call (which drops the cache of completed nonblocking writes) is a
         strong definition;
       write_forms.py IoCalls.def --run WRITE_FORMS_OUTPUT
         the coherence program (Inputs/write_forms.cpp) ran every listed
         write form and read back what each wrote ("NAME ...: 0 wrong bytes").
Prints one line per check; exits 1 naming what is missing or wrong."""
import re
import sys

listed = re.findall(r"^SIO_IO_CALL\((MPI_File_i?write\w*), MPIIO,",
                    open(sys.argv[1]).read(), re.M)

if sys.argv[2] == "--run":
    ran = {}
    for line in open(sys.argv[3]):
        m = re.match(r"^((?:MPI_File_\w+ ?)+): (\d+) wrong bytes$", line.strip())
        if m:
            for name in m.group(1).split():
                ran[name] = int(m.group(2))
    missing = [n for n in listed if n not in ran]
    if missing:
        print("write forms not run by the coherence check: " + " ".join(missing))
        sys.exit(1)
    stale = [n for n in listed if ran[n] != 0]
    if stale:
        print("write forms read back stale bytes: " + " ".join(stale))
        sys.exit(1)
    print(f"write forms: {len(listed)} listed, all coherent")
    sys.exit(0)

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
completions = ["MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
               "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
               "MPI_Request_free", "MPI_Request_get_status"]
weak = [n for n in completions if symbols.get(n) != "T"]
if weak:
    print("request completions not strong definitions: " + " ".join(weak))
    sys.exit(1)
print("request completions: " + " ".join(completions) + " strong")
