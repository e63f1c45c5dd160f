#!/usr/bin/env python3
"""Check (or rewrite) the command examples in hetplan's documentation.

    tools/docs_examples.py check  HETPLAN FILE.md...
    tools/docs_examples.py update HETPLAN FILE.md...

An example is a fenced code block whose first line starts with "$ hetplan".
Each "$ " line is a command (a trailing backslash continues it on the next
line); the lines after it, up to the next "$ " line or the end of the block,
are its output: standard output, then standard error. A line that is exactly "..." stands for any number of lines, so
long output can be shown in part. Lines that hold wall-clock figures (the
planner's "search: ..." line, "seconds" in JSON) are compared with their
numbers masked.

Commands run from the repository root with HOME and the XDG folders in a
fresh temporary directory, so no price cache or user catalog leaks in; the
word "hetplan" at the start of a command is replaced by HETPLAN.
check prints one line per failing example and a closing
"docs: N passed, N failed"; update rewrites the outputs in place, keeping
each "..." where it was (the same number of lines before and after it).
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

VOLATILE = [re.compile(r"^search: "), re.compile(r'"(solver_)?seconds"\s*:'),
            re.compile(r"candidate instance configurations, .* s"),
            re.compile(r"\d+ s old\)"), re.compile(r"after \d+ ms"),
            re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")]


def mask(line):
    for v in VOLATILE:
        if v.search(line):
            return re.sub(r"\d+(\.\d+)?", "N", line).rstrip()
    return line.rstrip()


def examples(lines):
    """Yield (start, end, commands) for each example block; commands is a
    list of (cmd_text, out_start, out_end) with line indexes into lines."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("```") and i + 1 < len(lines) and \
                lines[i + 1].startswith("$ hetplan"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            cmds = []
            k = i + 1
            while k < j:
                if lines[k].startswith("$ "):
                    text = lines[k][2:].rstrip("\n")
                    while text.endswith("\\") and k + 1 < j:
                        k += 1
                        text = text[:-1] + " " + lines[k].strip()
                    o = k + 1
                    e = o
                    while e < j and not lines[e].startswith("$ "):
                        e += 1
                    cmds.append((text, o, e))
                    k = e
                else:
                    k += 1
            yield i, j, cmds
            i = j + 1
        else:
            i += 1


def run(hetplan, cmd, env, cwd):
    words = shlex.split(cmd)
    if not words or words[0] != "hetplan":
        return None
    p = subprocess.run([hetplan] + words[1:], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=120, cwd=cwd)
    # Standard output, then standard error: the order is fixed whatever
    # the buffering (at a terminal the two interleave as they are written).
    out = (p.stdout + p.stderr).decode("utf-8", "replace")
    # The scratch home and the fixture server's port read as a user's.
    out = out.replace(env["HOME"], "~")
    if "HETPLAN_FIXTURE_PORT" in env:
        out = out.replace("127.0.0.1:" + env["HETPLAN_FIXTURE_PORT"], "127.0.0.1:PORT")
    return out.splitlines()


def fixture_server(root, tmp):
    """Start tests/fixture_server.py on 127.0.0.1; returns (process, port)."""
    pf, mf, lf = (os.path.join(tmp, n) for n in ("port", "mode", "log"))
    p = subprocess.Popen([sys.executable, os.path.join(root, "tests/fixture_server.py"),
                          pf, mf, lf])
    for _ in range(200):
        if os.path.exists(pf) and open(pf).read().strip():
            return p, open(pf).read().strip()
        time.sleep(0.05)
    p.kill()
    raise SystemExit("docs: the fixture server did not start")


def options(hetplan, env):
    """{command: set of options} from `hetplan --list-options`."""
    out = subprocess.run([hetplan, "--list-options"], stdout=subprocess.PIPE,
                         env=env, timeout=60).stdout.decode()
    known = {}
    for line in out.splitlines():
        cmd, _, opt = line.partition(" ")
        known.setdefault(cmd, set()).add(opt)
    return known


def golden_blocks(lines, root):
    """[(marker index, first line, end line, FILE)] of the blocks after
    "<!-- golden: FILE -->"; FILE's lines are read by golden_lines."""
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"<!-- golden: (\S+) -->", line)
        if not m:
            continue
        j = i + 2
        k = j
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        out.append((i, j, k, m.group(1)))
    return out


def golden_lines(root, name):
    with open(os.path.join(root, name), encoding="utf-8") as f:
        return f.read().rstrip("\n").split("\n")


def same_screen(have, want):
    """Equal but for trailing blanks on each line and trailing blank lines."""
    have = [x.rstrip() for x in have]
    want = [x.rstrip() for x in want]
    while want and not want[-1]:
        want.pop()
    while have and not have[-1]:
        have.pop()
    return have == want


def goldens(lines, root):
    """A block after "<!-- golden: FILE -->" must hold FILE's lines (trailing
    blank lines aside). Returns one message or None per such block."""
    return [None if same_screen(lines[j:k], golden_lines(root, name)) else
            f"{i + 1}: the screen differs from {name} (copy it over)"
            for i, j, k, name in golden_blocks(lines, root)]


def sh_commands(lines, known):
    """Commands shown without output (in ```sh blocks, no "$ " prompt):
    every --option must be one the command takes."""
    res = []
    fence = None
    text = ""
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            continue
        if fence != "sh":
            continue
        text = text + " " + line.strip() if text else line.strip()
        if text.endswith("\\"):
            text = text[:-1]
            continue
        words, text = text.split("#")[0].split(), ""
        if len(words) < 2 or words[0] != "hetplan" or words[1] not in known:
            continue
        bad = [w.split("=")[0] for w in words[2:] if w.startswith("--")
               and w.split("=")[0] not in known[words[1]]]
        res.append(f"{i + 1}: hetplan {words[1]} takes no {', '.join(bad)}" if bad else None)
    return res


def matches(expected, actual):
    """expected may hold "..." lines (any run of lines)."""
    exp = [e.rstrip("\n") for e in expected]
    memo = {}

    def go(a, b):
        if (a, b) in memo:
            return memo[(a, b)]
        if a == len(exp):
            r = b == len(actual)
        elif exp[a].strip() == "...":
            r = any(go(a + 1, bb) for bb in range(b, len(actual) + 1))
        else:
            r = b < len(actual) and mask(exp[a]) == mask(actual[b]) and go(a + 1, b + 1)
        memo[(a, b)] = r
        return r
    sys.setrecursionlimit(100000)
    return go(0, 0)


def key(line):
    return line.split()[:3]


def rewrite(expected, actual):
    exp = [e.rstrip("\n") for e in expected]
    dots = [e.strip() for e in exp].count("...")
    if dots == 0:
        return actual
    if dots > 1:
        # Several elisions: keep each shown line where it was, refreshed
        # from the first later output line that starts the same way (the
        # same first three words, e.g. a GPU's row).
        out, pos = [], 0
        for e in exp:
            if e.strip() == "...":
                out.append(e)
                continue
            hit = next((i for i in range(pos, len(actual)) if key(actual[i]) == key(e)), None)
            if hit is None:
                out.append(e)
            else:
                out.append(actual[hit])
                pos = hit + 1
        return out
    k = [e.strip() for e in exp].index("...")
    head, tail = k, len(exp) - k - 1
    out = actual[:head] + ["..."]
    if tail:
        out += actual[-tail:]
    return out


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("check", "update"):
        sys.stderr.write(__doc__)
        return 2
    mode, hetplan = sys.argv[1], os.path.abspath(sys.argv[2])
    base = tempfile.mkdtemp(prefix="hetplan-docs-")
    # Commands run in a scratch folder that shows the repository's docs/,
    # tests/ and data/, so an example's -o FILE never lands in the tree.
    root = os.getcwd()
    passed = failed = 0
    for n, path in enumerate(sys.argv[3:]):
        # Each file starts from an empty home (no cache, no config).
        tmp = os.path.join(base, str(n))
        cwd = os.path.join(tmp, "work")
        os.makedirs(cwd)
        for d in ("docs", "tests", "data"):
            os.symlink(os.path.join(root, d), os.path.join(cwd, d))
        env = {k: v for k, v in os.environ.items() if not k.startswith("HETPLAN_")}
        env.update(HOME=tmp, XDG_CACHE_HOME=tmp + "/.cache", XDG_CONFIG_HOME=tmp + "/.config",
                   LC_ALL="C.UTF-8", COLUMNS="80")
        known = options(hetplan, env)
        lines = open(path, encoding="utf-8").read().split("\n")
        server = None
        if "<!-- docs-examples: fixture-server -->" in lines:
            # Examples that fetch read from the local fixture server, the
            # one the price tests use (tests never reach the internet).
            server, port = fixture_server(root, tmp)
            env.update(HETPLAN_FIXTURE_PORT=port,
                       HETPLAN_SKYPILOT_URL=f"http://127.0.0.1:{port}/v8",
                       HETPLAN_AZURE_URL=f"http://127.0.0.1:{port}/azure/prices")
        edits = []
        if mode == "update":
            # golden screens are copied in (make golden writes them)
            for i, j, k, name in golden_blocks(lines, root):
                want = golden_lines(root, name)
                if not same_screen(lines[j:k], want):
                    edits.append((j, k, want))
        if edits:
            for o, e, new in sorted(edits, reverse=True):
                lines[o:e] = new
            edits = [None]
        for msg in goldens(lines, root) + sh_commands(lines, known):
            if msg:
                failed += 1
                print(f"FAIL: {path}: {msg}")
            else:
                passed += 1
        screens = len(edits)
        edits = []
        for start, end, cmds in examples(lines):
            for text, o, e in cmds:
                actual = run(hetplan, text, env, cwd)
                if actual is None:
                    print(f"FAIL: {path}:{o}: not a hetplan command: {text}")
                    failed += 1
                    continue
                if matches(lines[o:e], actual):
                    passed += 1
                    continue
                if mode == "update":
                    edits.append((o, e, rewrite(lines[o:e], actual)))
                    passed += 1
                    continue
                failed += 1
                print(f"FAIL: {path}:{o}: $ {text}")
                for x in lines[o:e][:6]:
                    print(f"   doc: {x}")
                for x in actual[:6]:
                    print(f"   got: {x}")
        if server:
            server.kill()
            server.wait()
        if edits or screens:
            for o, e, new in sorted(edits, reverse=True):
                lines[o:e] = new
            fd, tmpf = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            os.replace(tmpf, path)
            print(f"{path}: {len(edits)} example(s) rewritten" +
                  (", golden screens copied in" if screens else ""))
    print(f"docs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
