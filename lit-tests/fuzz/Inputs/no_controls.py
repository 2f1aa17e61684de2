"""Fails when a file holds a control character other than newline: raw
C0 bytes, DEL, or C1 controls (U+0080..U+009F, e.g. the CSI U+009B) that a
terminal would act on. usage: no_controls.py FILE..."""
import sys

bad = 0
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    text = data.decode("utf-8", errors="replace")
    for n, line in enumerate(text.split("\n"), 1):
        found = [c for c in line if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F]
        if found:
            bad += 1
            print(f"{path}:{n}: raw control character(s) {[hex(ord(c)) for c in found][:5]}")
if bad:
    sys.exit(1)
print("no raw control characters")
