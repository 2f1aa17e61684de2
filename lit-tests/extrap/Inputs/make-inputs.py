"""Writes small traces for lit-tests/extrap/inputs.test, made from
lit-tests/trace/Inputs/strong.json at N = 4, 8, 12, 16 ranks:

  app.N.sio.json      the strong-scaling trace at N ranks (extrapolates)
  other.8.sio.json    the same at 8 ranks, of the program 'other'
  random.N.sio.json   the write loop made a random stream: 5000 offsets
                      that follow no model (an explicit table per input)

usage: make-inputs.py STRONG_JSON OUT_DIR"""
import copy
import json
import os
import random
import sys

strong = json.load(open(sys.argv[1]))
out = sys.argv[2]
os.makedirs(out, exist_ok=True)


def at(n):
    t = copy.deepcopy(strong)
    t["nranks"] = n

    def fix(nodes):
        for node in nodes:
            node["ranks"] = [{"start": 0, "stride": 1, "count": n}]
            node.pop("duration", None)
            fix(node.get("body", []))

    fix(t["body"])
    return t


def write(name, t):
    with open(os.path.join(out, name), "w") as f:
        json.dump(t, f)


rng = random.Random(7)
for n in (4, 8, 12, 16):
    write(f"app.{n}.sio.json", at(n))
    t = at(n)
    loop = t["body"][1]
    loop["iterations"] = 5000
    values = [rng.randrange(0, 1 << 40) for _ in range(5000)]
    loop["body"][0]["params"]["offset"] = "[" + ", ".join(map(str, values)) + "][i0]"
    write(f"random.{n}.sio.json", t)
t = at(8)
t["program"] = "other"
write("other.8.sio.json", t)
