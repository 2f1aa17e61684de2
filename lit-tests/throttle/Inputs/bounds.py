"""Checks throttle_io's phase times against lower bounds (the library sleeps
until a transfer would have ended, so a phase never takes less; no upper
bound is checked: the machine may be busy).
usage: bounds.py WRITE_MIN_S READ_MIN_S < throttle_io output"""
import sys

fields = sys.stdin.read().split()
values = dict(zip(fields[0::2], fields[1::2]))
ok = True
for key, least in (("write_s", float(sys.argv[1])), ("read_s", float(sys.argv[2]))):
    took = float(values[key])
    if took < least:
        print(f"{key} {took:.3f} below the bound {least:.3f}")
        ok = False
print("bounds hold" if ok else "bounds violated")
sys.exit(0 if ok else 1)
