"""Prints the size of each rank's file of weird-names.json under a directory."""
import os
import sys

base = sys.argv[1]
for rank in range(2):
    name = 'a"b\\c\nd*/??/\u00e9_%02d' % rank
    print(rank, os.path.getsize(os.path.join(base, name)))
