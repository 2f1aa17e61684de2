"""Writes one hostile variant of a trace (lit-tests/fuzz/*.test).

usage: hostile.py BASE.json KIND OUT.json

KIND is one of the inconsistencies or hostile values of the issue "Offline
tools and replays on hostile traces": see KINDS below. Events are addressed
by their position in the top-level body."""
import json
import sys

ESC = "\x1b[31mRED\x1b]0;owned\x07\x9b2J\x7f"


def events(t, op):
    return [i for i, n in enumerate(t["body"]) if n.get("event") == op]


def dup_fclose(t):
    i = events(t, "fclose")[0]
    t["body"].insert(i + 1, json.loads(json.dumps(t["body"][i])))


def use_after_close(t):
    i, j = events(t, "fseek")[0], events(t, "fclose")[0]
    t["body"][i], t["body"][j] = t["body"][j], t["body"][i]


def use_before_open(t):
    i = events(t, "fopen")[0]
    t["body"].insert(0, t["body"].pop(i + 1))


def close_in_loop(t):
    i = events(t, "fclose")[0]
    t["body"][i] = {"loop": 0, "ranks": t["body"][i]["ranks"], "iterations": 3, "body": [t["body"][i]]}


def never_opened(t):
    i = events(t, "fseek")[0]
    t["body"][i]["params"]["stream"] = 5


def huge_loop(t):
    for n in t["body"]:
        if "loop" in n:
            n["iterations"] = 10**12


def huge_nranks(t):
    t["nranks"] = 2**31 - 1


def escapes(t):
    t["program"] = "prog" + ESC
    t["files"][0]["format"] = "f" + ESC
    t["files"][0]["name"] = [{"text": "f" + ESC}]
    t["sites"][0]["file"] = "src" + ESC + ".c"
    t["body"][0]["event"] = "fopen" + ESC


def escape_error(t):
    t["body"][0]["layer"] = "bad" + ESC


def long_value(t):
    t["body"][0]["layer"] = "x" * (10 << 20)


KINDS = {
    "dup-fclose": dup_fclose,
    "use-after-close": use_after_close,
    "use-before-open": use_before_open,
    "close-in-loop": close_in_loop,
    "never-opened": never_opened,
    "huge-loop": huge_loop,
    "huge-nranks": huge_nranks,
    "escapes": escapes,
    "escape-error": escape_error,
    "long-value": long_value,
}

base, kind, out = sys.argv[1:4]
if kind == "dup-key":
    # Text level: the same key twice in one object (json.dumps cannot).
    text = open(base).read().replace('"nranks": 2', '"nranks": 2, "nranks": 3', 1)
    open(out, "w").write(text)
    sys.exit(0)
t = json.load(open(base))
KINDS[kind](t)
json.dump(t, open(out, "w"), ensure_ascii=False)
