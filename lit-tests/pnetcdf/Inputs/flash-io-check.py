"""Checks a partitioned run of PnetCDF's FLASH-IO benchmark against an
unpartitioned one: the I/O amounts it prints (from ncmpi_inq_put_size) are
equal, its bandwidth is its total amount over its time (and not 0), and each
of its three files, merged with sio-part-merge, is byte for byte the
unpartitioned file.
usage: flash-io-check.py SIO_PART_MERGE PLAIN_BASE PART_BASE PLAIN_OUT PART_OUT"""
import filecmp
import re
import subprocess
import sys

merge, plain_base, part_base, plain_out, part_out = sys.argv[1:6]


def parse(path):
    text = open(path).read()
    amounts = [float(x) for x in re.findall(r"I/O amount\s*:\s*([0-9.]+)\s*MiB", text)]
    row = re.search(r"bandwidth \(MiB/s\)\s*\n\s*(\d+)\s+\d+ x\s+\d+ x\s+\d+\s+([0-9.]+)\s+([0-9.]+)", text)
    if len(amounts) != 4 or not row:
        sys.exit("error: %s: no FLASH-IO report (I/O amounts and the bandwidth row)" % path)
    return amounts, int(row.group(1)), float(row.group(2)), float(row.group(3))


status = 0
pa, pn, _, _ = parse(plain_out)
qa, qn, qtime, qbw = parse(part_out)
same = pa == qa and pn == qn
print("I/O amounts (MiB): checkpoint %.2f plot %.2f corner %.2f total %.2f: %s" %
      (qa[0], qa[1], qa[2], qa[3], "same as unpartitioned" if same else "DIFFERENT from %s" % pa))
status |= not same
right = qbw > 0 and qtime > 0 and abs(qbw - qa[3] / qtime) <= 0.01 * qbw + 0.05 * qa[3] / qtime
print("bandwidth %s: total amount over time" % ("right" if right else "WRONG (%.2f MiB/s, %.2f MiB in %.2f s)" %
                                               (qbw, qa[3], qtime)))
status |= not right
for name in ("ncmpi_chk_0000.nc", "ncmpi_plt_cnt_0000.nc", "ncmpi_plt_crn_0000.nc"):
    out = part_base + "merged." + name
    subprocess.run([merge, part_base + name, out], check=True, stdout=subprocess.DEVNULL)
    same = filecmp.cmp(plain_base + name, out, shallow=False)
    print("%s merged %s" % (name, "identical" if same else "DIFFERENT"))
    status |= not same
sys.exit(status)
