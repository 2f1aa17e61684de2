"""Merges DIR/partK.nc (K = 1..KMAX) with sio-part-merge and checks that each
merged file is byte for byte DIR/plain.nc, the same data written without
partitioning.  usage: merge-cmp.py SIO_PART_MERGE DIR KMAX|K,K,..."""
import filecmp
import subprocess
import sys

merge, d, ks = sys.argv[1], sys.argv[2], sys.argv[3]
ks = [int(k) for k in ks.split(",")] if "," in ks else range(1, int(ks) + 1)
status = 0
for k in ks:
    out = "%s/merged%d.nc" % (d, k)
    subprocess.run([merge, "%s/part%d.nc" % (d, k), out], check=True, stdout=subprocess.DEVNULL)
    same = filecmp.cmp("%s/plain.nc" % d, out, shallow=False)
    print("K=%d merged %s" % (k, "identical" if same else "DIFFERENT"))
    status |= not same
sys.exit(status)
