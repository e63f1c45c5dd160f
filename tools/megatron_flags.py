#!/usr/bin/env python3
"""megatron_flags.py — list the command-line flags Megatron-LM's
megatron/training/arguments.py accepts, from a git checkout, without
importing it (no torch needed).

    python3 tools/megatron_flags.py GIT_DIR [COMMIT] > tests/data/megatron_args.txt

Two sources, as arguments.py builds its parser:
  - literal parser.add_argument('--flag', ...) calls;
  - ArgumentGroupFactory(ConfigClass, exclude=[...]).build_group(): one flag
    per dataclass field of the class and its bases, "--" + name with "_"
    turned into "-"; a bool field that defaults to True gives "--no-NAME"
    and "--disable-NAME"; field(metadata={"argparse_meta": {"arg_names":
    [...]}}) names its own flags; init=False fields give none
    (megatron/training/argument_utils.py, build_group).
The output starts with comment lines naming the commit."""
import ast
import subprocess
import sys


def git(gd, *a):
    return subprocess.run(["git", "--git-dir", gd, *a], check=True, capture_output=True,
                          text=True).stdout


def main():
    gd = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else git(gd, "rev-parse", "HEAD").strip()
    date = git(gd, "show", "-s", "--format=%cs", commit).strip()
    files = [f for f in git(gd, "ls-tree", "-r", "--name-only", commit).split()
             if f.startswith("megatron/") and f.endswith(".py")]
    src_cache = {}

    def tree(path):
        if path not in src_cache:
            src_cache[path] = ast.parse(git(gd, "show", f"{commit}:{path}"))
        return src_cache[path]

    classes = {}

    def find_class(name):
        if name in classes:
            return classes[name]
        hits = git(gd, "grep", "-l", f"^class {name}\\b", commit, "--", "megatron/").split()
        for h in hits:
            path = h.split(":", 1)[1]
            for node in ast.walk(tree(path)):
                if isinstance(node, ast.ClassDef) and node.name == name:
                    classes[name] = node
                    return node
        classes[name] = None
        return None

    def fields(name, seen=None):
        seen = seen or set()
        node = find_class(name)
        if node is None or name in seen:
            return []
        seen.add(name)
        out = []
        for b in node.bases:
            bn = b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else None
            if bn:
                out += fields(bn, seen)
        for st in node.body:
            if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                continue
            ann = ast.unparse(st.annotation)
            if ann.startswith("ClassVar"):
                continue
            default, names, init = None, None, True
            v = st.value
            if isinstance(v, ast.Constant):
                default = v.value
            elif isinstance(v, ast.Call) and getattr(v.func, "id", getattr(v.func, "attr", "")) == "field":
                for kw in v.keywords:
                    if kw.arg == "default" and isinstance(kw.value, ast.Constant):
                        default = kw.value.value
                    if kw.arg == "init" and isinstance(kw.value, ast.Constant):
                        init = kw.value.value
                    if kw.arg == "metadata" and isinstance(kw.value, ast.Dict):
                        for k, mv in zip(kw.value.keys, kw.value.values):
                            if isinstance(k, ast.Constant) and k.value == "argparse_meta" and \
                                    isinstance(mv, ast.Dict):
                                for k2, v2 in zip(mv.keys, mv.values):
                                    if isinstance(k2, ast.Constant) and k2.value == "arg_names":
                                        names = [e.value for e in v2.elts
                                                 if isinstance(e, ast.Constant)]
            out = [f for f in out if f[0] != st.target.id]
            out.append((st.target.id, ann, default, names, init))
        return out

    args = tree("megatron/training/arguments.py")
    flags = set()
    # exclude lists bound to a name in the same function
    for fn in ast.walk(args):
        if not isinstance(fn, ast.FunctionDef):
            continue
        lists = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.List):
                lists[node.targets[0].id] = [e.value for e in node.value.elts
                                             if isinstance(e, ast.Constant)]
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            fname = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if fname == "add_argument":
                for a in node.args:
                    if isinstance(a, ast.Constant) and isinstance(a.value, str) and \
                            a.value.startswith("--"):
                        flags.add(a.value)
            if fname == "ArgumentGroupFactory" and node.args and isinstance(node.args[0], ast.Name):
                exclude = []
                for kw in node.keywords:
                    if kw.arg == "exclude":
                        if isinstance(kw.value, ast.List):
                            exclude = [e.value for e in kw.value.elts if isinstance(e, ast.Constant)]
                        elif isinstance(kw.value, ast.Name):
                            exclude = lists.get(kw.value.id, [])
                for name, ann, default, names, init in fields(node.args[0].id):
                    if name in exclude or not init:
                        continue
                    if names:
                        flags.update(names)
                    elif ann in ("bool", "Optional[bool]", "bool | None") and default is True:
                        flags.add("--no-" + name.replace("_", "-"))
                        flags.add("--disable-" + name.replace("_", "-"))
                    else:
                        flags.add("--" + name.replace("_", "-"))
    print(f"# Megatron-LM command-line flags (megatron/training/arguments.py), commit {commit} ({date})")
    print("# generated by tools/megatron_flags.py from github.com/NVIDIA/Megatron-LM")
    for f in sorted(flags):
        print(f)


main()
