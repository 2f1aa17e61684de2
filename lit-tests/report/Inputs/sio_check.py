"""Independent checks of sio-trace report/export output, for the lit tests.

  sio_check.py dump-calls DUMP                 expands a `sio-trace dump` text
  sio_check.py chrome JSON DUMP                Chrome export against the dump
  sio_check.py html HTML [--stats S] [--dump D] [--max-bytes N]
  sio_check.py png PNG [--min-fraction F]      non-background pixels of a PNG
  sio_check.py bbox-page HTML OUT              a copy of the report measuring its figures in a browser
  sio_check.py bbox DOM                        the measurements of such a page (chromium --dump-dom)

The dump expander handles what the tests' traces hold: rank headings and
[ranks ...] prefixes as ranges or lists, constant loop counts, and integer
formulas of rank, nranks and loop indices."""
import html
import html.parser
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib
from fractions import Fraction

DATA_OPS = re.compile(r"^(MPI_File_(i?read|i?write)\w*|p?read\w*|p?write\w*|fread|fwrite)$")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def parse_ranks(text):
    """RankList::str() forms: "0-15", "0-6:2", "0,4,8", "{0+4*[0..1]+1*[0..1]}"."""
    out = []
    for part in re.findall(r"\{[^}]*\}|[^,]+", text):
        part = part.strip()
        if part.startswith("{"):
            terms = part[1:-1].split("+")
            ranks = [int(terms[0])]
            for t in terms[1:]:
                m = re.match(r"(\d+)\*\[0\.\.(\d+)\]$", t)
                ranks = [r + int(m.group(1)) * j for r in ranks for j in range(int(m.group(2)) + 1)]
            out.extend(ranks)
        elif "-" in part:
            span, _, stride = part.partition(":")
            a, b = span.split("-")
            out.extend(range(int(a), int(b) + 1, int(stride or 1)))
        else:
            out.append(int(part))
    return out


def evaluate(formula, env):
    if formula.startswith("{ranks "):
        # {ranks A: value; ranks B: value}: the value of the rank's group.
        for entry in formula[1:-1].split("; "):
            ranks, value = entry[6:].split(": ", 1)
            if int(env["rank"]) in parse_ranks(ranks):
                return evaluate(value, env)
        fail("rank %s not in %r" % (env["rank"], formula))
    # Exact: integers as Fractions; the trace's formulas use + - * / % and names.
    expr = re.sub(r"\b(\d+)\b", r"Fraction(\1)", formula)
    value = eval(expr, {"Fraction": Fraction, "__builtins__": {}}, env)
    if value.denominator != 1:
        fail("formula %r is not an integer at %r" % (formula, env))
    return int(value)


def split_params(text):
    params, depth, cur = {}, 0, ""
    for ch in text + ",":
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            if "=" in cur:
                k, v = cur.split("=", 1)
                params[k.strip()] = v.strip()
            cur = ""
        else:
            cur += ch
    return params


def parse_dump(path):
    """Returns (nranks, tree): tree nodes are (ranks, kind, payload, children)."""
    lines = open(path, encoding="utf-8").read().splitlines()
    m = re.match(r"trace: program .*, (\d+) ranks?,", lines[0])
    nranks = int(m.group(1))
    root = []
    stack = [(-1, root, None)]
    heading = None
    for line in lines[1:]:
        if line.startswith("ranks ") and line.endswith(":"):
            heading = parse_ranks(line[6:-1])
            stack = [(-1, root, heading)]
            continue
        if heading is None or not line.strip():
            continue
        indent = (len(line) - len(line.lstrip())) // 2
        body = line.strip()
        while stack[-1][0] >= indent:
            stack.pop()
        ranks = stack[-1][2]
        pm = re.match(r"\[ranks ([^\]]+)\] (.*)", body)
        if pm:
            ranks = parse_ranks(pm.group(1))
            body = pm.group(2)
        body = re.sub(r"\s+\[[^\]]*\]:?$", lambda x: ":" if x.group(0).endswith(":") else "", body)
        lm = re.match(r"loop (.+?) iterations \(i(\d+)\):?$", body)
        if lm:
            node = (ranks, "loop", lm.group(1), [])
            stack[-1][1].append(node)
            stack.append((indent, node[3], ranks))
            continue
        inner = body.endswith(" (inner)")
        if inner:
            body = body[:-len(" (inner)")]
        out = re.search(r" -> ([\w=, ]+)$", body)
        body = re.sub(r" -> [\w=, ]+$", "", body)
        em = re.match(r"(\w+)\((.*)\)$", body)
        if not em:
            fail("cannot parse dump line: " + line)
        params = split_params(em.group(2))
        if out:
            params.update(split_params(out.group(1)))
        node = (ranks, "event", (em.group(1), params, inner), [])
        stack[-1][1].append(node)
    return nranks, root


def accesses(nranks, tree, rank):
    """(file, position) of each read and write that is not inner: explicit
    offsets, else positions tracked from opens (0), SEEK_SET seeks and
    transfers (the rule docs/report.md states)."""
    out, files, pos = [], {}, {}

    def walk(nodes, idx):
        for ranks, kind, payload, children in nodes:
            if rank not in ranks:
                continue
            env = {"rank": Fraction(rank), "nranks": Fraction(nranks)}
            env.update({"i%d" % d: Fraction(v) for d, v in enumerate(idx)})
            if kind == "loop":
                for j in range(evaluate(payload, env)):
                    walk(children, idx + [j])
                continue
            op, params, inner = payload
            h = next(((k, evaluate(params[k], env)) for k in ("fh", "fd", "stream") if k in params), None)
            if "file" in params and h:
                files[h] = int(params["file"].split()[0][1:])
                pos[h] = 0
            if "seek" in op and h:
                pos[h] = evaluate(params["offset"], env) if evaluate(params["whence"], env) in (0, 600) else None
            if not DATA_OPS.match(op) or inner or h not in files:
                continue
            if op in ("fwrite", "fread"):
                size = evaluate(params["size"], env) * evaluate(params["nmemb"], env)
            else:
                size = evaluate(params["count"], env) if "count" in params else None
            if "offset" in params:
                out.append((files[h], evaluate(params["offset"], env)))
            elif pos.get(h) is not None:
                out.append((files[h], pos[h]))
                pos[h] = pos[h] + size if size is not None and not op.startswith("MPI_") else None

    walk(tree, [])
    return out


def expand(nranks, tree, rank):
    calls = []

    def walk(nodes, idx):
        for ranks, kind, payload, children in nodes:
            if rank not in ranks:
                continue
            env = {"rank": Fraction(rank), "nranks": Fraction(nranks)}
            env.update({"i%d" % d: Fraction(v) for d, v in enumerate(idx)})
            if kind == "loop":
                for j in range(evaluate(payload, env)):
                    walk(children, idx + [j])
            else:
                op, params, inner = payload
                off = params.get("offset")
                calls.append((op, None if off is None else evaluate(off, env), inner))

    walk(tree, [])
    return calls


def cmd_dump_calls(args):
    nranks, tree = parse_dump(args[0])
    for r in range(nranks):
        print("rank %d: %s" % (r, " ".join(op if o is None else "%s@%d" % (op, o) for op, o, _ in expand(nranks, tree, r))))


def cmd_chrome(args):
    doc = json.load(open(args[0], encoding="utf-8"))
    nranks, tree = parse_dump(args[1])
    events = doc["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    slices = {}
    for e in events:
        if e.get("ph") == "X":
            for k in ("name", "ts", "dur", "pid", "tid", "args"):
                if k not in e:
                    fail("slice without %s: %r" % (k, e))
            slices.setdefault(e["tid"], []).append(e)
    if sorted(names) != sorted(slices):
        fail("tracks %r but slices on %r" % (sorted(names), sorted(slices)))
    print("tracks: %d of %d ranks" % (len(names), nranks))
    for tid, name in sorted(names.items()):
        if name != "rank %d" % tid:
            fail("track %d named %r" % (tid, name))
        got = slices[tid]
        expected = expand(nranks, tree, tid)
        if [s["name"] for s in got] != [op for op, _, _ in expected]:
            fail("rank %d: slices %r, dump %r" % (tid, [s["name"] for s in got], [op for op, _, _ in expected]))
        for s, (op, off, _) in zip(got, expected):
            if off is not None and int(s["args"]["offset"]) != off:
                fail("rank %d %s: offset %s, dump %d" % (tid, op, s["args"]["offset"], off))
        last = 0
        for s in got:
            if "parent_seq" in s["args"]:
                continue  # inside its MPI-IO call (export_compare.py checks that)
            if s["ts"] < last - 1e-6 or s["dur"] < 0:
                fail("rank %d: slices overlap or go back in time at %r" % (tid, s))
            last = s["ts"] + s["dur"]
        print("rank %d: %d slices in dump order" % (tid, len(got)))
    print("timing: " + doc["otherData"]["timing"])


class StrictParser(html.parser.HTMLParser):
    VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.tags, self.text, self.rows = [], {}, [], []
        self.svg_depth = 0

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "tr":
            self.rows.append(dict(attrs))
        if tag not in self.VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "circle":
            self.rows.append(dict(attrs, _circle=True))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            fail("</%s> at %r does not close %r" % (tag, self.getpos(), self.stack[-1] if self.stack else None))
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def cmd_html(args):
    path = args[0]
    opts = dict(zip(args[1::2], args[2::2]))
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")  # strict: invalid UTF-8 fails here
    p = StrictParser()
    p.feed(text)
    p.close()
    if p.stack:
        fail("unclosed elements: %r" % p.stack)
    for banned in ("script", "iframe", "object", "embed", "link", "img"):
        if p.tags.get(banned):
            fail("the report holds <%s>" % banned)
    if re.search(r"(src|href)\s*=\s*[\"']?(https?:|//|file:|data:)", text):
        fail("the report refers to something outside itself")
    print("html: well-formed, %d bytes, no script" % len(raw))
    svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
    for s in svgs:
        try:
            ET.fromstring(s)
        except ET.ParseError as e:
            fail("figure is not well-formed XML: %s: %s" % (e, s[:200]))
    print("svg: %d figures, each well-formed XML" % len(svgs))
    if "--max-bytes" in opts and len(raw) > int(opts["--max-bytes"]):
        fail("report is %d bytes, above %s" % (len(raw), opts["--max-bytes"]))
    if "--stats" in opts:
        check_stats(p, open(opts["--stats"], encoding="utf-8").read())
    if "--dump" in opts:
        check_points(p, opts["--dump"])
    if "--text" in opts:
        want = opts["--text"]
        joined = "".join(p.text)
        if want not in joined:
            fail("text %r not shown" % want)
        print("text shown verbatim: %r" % want)


def check_stats(p, stats):
    ops = {r["data-op"]: (int(r["data-calls"]), int(r["data-bytes"])) for r in p.rows if "data-op" in r and "data-calls" in r}
    files = {int(r["data-file"]): (int(r["data-calls"]), int(r["data-bytes"])) for r in p.rows if "data-file" in r and "data-calls" in r}
    section, sops, sfiles = None, {}, {}
    for line in stats.splitlines():
        if line in ("operations:", "files:"):
            section = line
            continue
        parts = line.split()
        if section and len(parts) >= 3 and parts[-1].lstrip("-").isdigit() and parts[-2].isdigit():
            if section == "operations:":
                sops[parts[0]] = (int(parts[-2]), int(parts[-1]))
            else:
                sfiles[int(parts[0][1:])] = (int(parts[-2]), int(parts[-1]))
    if ops != sops:
        fail("operations: report %r, stats %r" % (ops, sops))
    if files != sfiles:
        fail("files: report %r, stats %r" % (files, sfiles))
    m = re.search(r"calls: (\d+)", stats)
    total = sum(c for c, _ in ops.values())
    if int(m.group(1)) != total:
        fail("total calls %s, operations sum %d" % (m.group(1), total))
    print("numbers equal sio-trace stats: %d operations, %d files, %d calls" % (len(ops), len(files), total))


def check_points(p, dump):
    nranks, tree = parse_dump(dump)
    got = {}
    for r in p.rows:
        if r.get("_circle") and "data-offset" in r:
            key = (int(r["data-rank"]), int(r["data-file"]))
            got.setdefault(key, []).append((int(r["data-order"]), int(r["data-offset"])))
    n = 0
    for rank in range(nranks):
        want = {}
        for f, o in accesses(nranks, tree, rank):
            want.setdefault(f, []).append(o)
        for f in sorted(set(want) | {f for r, f in got if r == rank}):
            mine = [o for _, o in sorted(got.get((rank, f), []))]
            if mine != want.get(f, []):
                fail("rank %d file f%d: plotted offsets %r, dump %r" % (rank, f, mine, want.get(f, [])))
            n += len(mine)
    print("access-pattern points equal the dump's offsets: %d points, %d ranks" % (n, nranks))


def cmd_png(args):
    data = open(args[0], "rb").read()
    minimum = float(args[2]) if len(args) > 2 and args[1] == "--min-fraction" else 0.02
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", chunk[:10])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6):
        fail("unexpected PNG type depth=%d colour=%d" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    counts, pos = {}, 0
    for _ in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        for i in range(0, stride, bpp):
            px = bytes(line[i:i + 3])
            counts[px] = counts.get(px, 0) + 1
        prev = line
    total = width * height
    background, bg = max(counts.items(), key=lambda kv: kv[1])
    fraction = 1 - bg / total
    print("png: %dx%d, %d colours, non-background fraction %.3f" % (width, height, len(counts), fraction))
    if fraction < minimum:
        fail("screenshot is blank: %.4f of pixels differ from the background (need %.3f)" % (fraction, minimum))
    print("png: not blank")


# Runs in the browser after layout: for every figure, each <text> element's
# drawn box against its <svg>'s box. The report itself has no script (its
# Content-Security-Policy forbids one); the copy drops that tag to add this.
BBOX_SCRIPT = r"""<script>
(function () {
  var out = [], texts = 0, titles = 0, clipped = 0, clippedTitles = 0;
  var figs = document.querySelectorAll("svg.fig");
  for (var i = 0; i < figs.length; i++) {
    var r = figs[i].getBoundingClientRect(), ts = figs[i].querySelectorAll("text");
    for (var j = 0; j < ts.length; j++) {
      var b = ts[j].getBoundingClientRect(), title = ts[j].classList.contains("ft");
      texts++; if (title) titles++;
      if (b.width === 0 && b.height === 0) continue;
      if (b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5) {
        clipped++; if (title) clippedTitles++;
        var label = ts[j].cloneNode(true), tips = label.querySelectorAll("title");
        for (var k = 0; k < tips.length; k++) tips[k].remove();
        out.push((title ? "title" : "text") + " clipped in figure " + i + ": \"" + label.textContent.slice(0, 90) +
                 "\" spans x " + Math.round(b.left - r.left) + ".." + Math.round(b.right - r.left) + " of 0.." +
                 Math.round(r.width));
      }
    }
  }
  out.unshift("figures " + figs.length + ", texts " + texts + ", titles " + titles + ", clipped " + clipped +
              ", clipped titles " + clippedTitles);
  var pre = document.createElement("pre");
  pre.id = "bbox-result";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
})();
</script>"""


def cmd_bbox_page(args):
    text = open(args[0], encoding="utf-8").read()
    text, n = re.subn(r"<meta http-equiv=\"Content-Security-Policy\"[^>]*>", "", text)
    if n != 1:
        fail("no Content-Security-Policy tag to replace")
    open(args[1], "w", encoding="utf-8").write(text.replace("</body>", BBOX_SCRIPT + "</body>"))


def cmd_bbox(args):
    dom = open(args[0], encoding="utf-8").read()
    m = re.search(r'<pre id="bbox-result">(.*?)</pre>', dom, re.S)
    if not m:
        fail("the page did not measure its figures (no bbox-result)")
    lines = [html.unescape(l) for l in m.group(1).splitlines()]
    print("bbox: " + lines[0])
    for l in lines[1:]:
        print("bbox: " + l)
    counts = dict(re.findall(r"(figures|clipped titles|clipped) (\d+)", lines[0]))
    if int(counts["figures"]) == 0:
        fail("no figures measured")
    if int(counts["clipped"]):
        fail("%s text elements drawn outside their figure" % counts["clipped"])
    print("bbox: every text inside its figure")


if __name__ == "__main__":
    {"dump-calls": cmd_dump_calls, "chrome": cmd_chrome, "html": cmd_html, "png": cmd_png,
     "bbox-page": cmd_bbox_page, "bbox": cmd_bbox}[sys.argv[1]](sys.argv[2:])
