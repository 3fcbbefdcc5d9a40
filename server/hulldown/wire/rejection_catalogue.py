"""The catalogue of rejection codes, read from the server's own ``reject(...)`` calls.

``python -m hulldown.wire.schemas`` writes it to ``client-protocol/rejection-codes.md`` next to the
JSON Schemas, and the same staleness test covers it: a code added to the rules without
regenerating fails CI, so the list a client author reads is always every code the server sends.

Each call contributes its code, where it is raised (an edition, the generic checks, undo and
takebacks, the server), its rule reference and its message template (``{...}`` marks a value
filled in at run time; the same numbers are in the rejection's ``values``).

A shared check that cites its caller's rule (``RULE_FROM_CALLER``) is catalogued at each call
site, with the rule that call site passes, rather than once with a ``{rule}`` placeholder.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
MAX_EXAMPLES = 3
UNSUPPORTED_ACTION = "unsupported_action"

# Where a module's rejections come from, by path prefix (first match wins).
ORIGINS: tuple[tuple[str, str], ...] = (
    ("rules/wh40k7/", "40k7"),
    ("rules/hh3/", "hh3"),
    ("rules/wh40k11/", "40k11"),
    ("match/validate.py", "every edition"),
    ("match/history.py", "undo / takeback"),
    ("match/scenario.py", "POST /matches"),
    ("match/dispatch.py", "every edition"),
    ("odds/", "POST /matches/{id}/odds"),
    ("live/", "server"),
    ("web/", "server"),
)

# Shared checks whose rejection cites the rule their caller passes: (module, function) -> the
# parameter that carries the rule. Each call of one is catalogued where it is made (its origin,
# the rule it passes resolved there) with the check's own code and message.
RULE_FROM_CALLER: dict[tuple[str, str], str] = {
    ("match/decisions.py", "check_wound_taker"): "rule",
}


@dataclass(frozen=True)
class Raised:
    """One ``reject(...)`` call site."""

    code: str
    origin: str
    rule: str
    message: str
    module: str


def _origin(relative: str) -> str:
    for prefix, origin in ORIGINS:
        if relative.startswith(prefix):
            return origin
    return relative


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` assignments (rule references are often named constants)."""
    found: dict[str, str] = {}
    for node in tree.body:
        value: ast.expr | None = None
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            value, targets = node.value, node.targets
        elif isinstance(node, ast.AnnAssign):
            value, targets = node.value, [node.target]
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                found[target.id] = value.value
    return found


@functools.cache
def _module_constants(path: Path) -> dict[str, str]:
    return _constants(ast.parse(path.read_text(), filename=str(path))) if path.exists() else {}


def _module_path(current: Path, level: int, module: str | None) -> Path:
    """The file of a relative import ``from <level dots><module> import ...`` in ``current``."""
    base = current.parent
    for _ in range(level - 1):
        base = base.parent
    target = base.joinpath(*module.split(".")) if module else base
    return target.with_suffix(".py") if target.with_suffix(".py").exists() else target / "__init__.py"


class _Names:
    """String constants a module can name: its own, imported ones, and those of imported modules."""

    def __init__(self, path: Path, tree: ast.Module) -> None:
        self.local = _constants(tree)
        self.imported: dict[str, str] = {}
        self.modules: dict[str, dict[str, str]] = {}
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            source = _module_path(path, node.level, node.module)
            for alias in node.names:
                name = alias.asname or alias.name
                if alias.name in _module_constants(source):
                    self.imported[name] = _module_constants(source)[alias.name]
                else:
                    submodule = _module_path(
                        path, node.level, f"{node.module}.{alias.name}" if node.module else alias.name
                    )
                    self.modules[name] = _module_constants(submodule)

    def resolve(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.local.get(node.id, self.imported.get(node.id))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self.modules.get(node.value.id, {}).get(node.attr)
        return None


def _template(node: ast.expr, names: _Names) -> str:
    """A readable template of a string expression: literal text, ``{expr}`` for the rest."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    resolved = names.resolve(node)
    if resolved is not None:
        return resolved
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                inner = names.resolve(value.value)
                parts.append(inner if inner is not None else "{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _template(node.left, names) + _template(node.right, names)
    if isinstance(node, ast.IfExp):  # one of two, as the case may be
        return f"{_template(node.body, names)} or {_template(node.orelse, names)}"
    return "{" + ast.unparse(node) + "}"


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _wrappers(tree: ast.Module) -> set[str]:
    """Functions that pass their first three parameters straight to ``reject``."""
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        params = [a.arg for a in node.args.args[:3]]
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and _callee(inner) == "reject" and len(inner.args) >= 3:
                passed = [a.id if isinstance(a, ast.Name) else None for a in inner.args[:3]]
                if passed == params:
                    names.add(node.name)
    return names


@dataclass(frozen=True)
class _Shared:
    """A ``RULE_FROM_CALLER`` check: where its rule parameter stands, its code and message."""

    module: str
    position: int
    parameter: str
    code: str
    message: str
    reject: ast.Call


@functools.cache
def _shared(package: Path, relative: str, function: str) -> _Shared | None:
    path = package / relative
    if not path.exists():
        return None
    tree = ast.parse(path.read_text(), filename=str(path))
    parameter = RULE_FROM_CALLER[(relative, function)]
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name != function:
            continue
        params = [a.arg for a in node.args.args]
        for inner in ast.walk(node):
            if not (isinstance(inner, ast.Call) and _callee(inner) == "reject" and len(inner.args) >= 3):
                continue
            code, rule = inner.args[0], inner.args[1]
            if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
                continue
            if isinstance(rule, ast.Name) and rule.id == parameter and parameter in params:
                message = _template(inner.args[2], _Names(path, tree))
                return _Shared(relative, params.index(parameter), parameter, code.value, message, inner)
    return None


def _shared_names(path: Path, tree: ast.Module, package: Path) -> dict[str, _Shared]:
    """The ``RULE_FROM_CALLER`` checks a module can call, by the name it calls them."""
    relative = path.relative_to(package).as_posix()
    found: dict[str, _Shared] = {}
    for module, function in RULE_FROM_CALLER:
        if module == relative and (shared := _shared(package, module, function)) is not None:
            found[function] = shared
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        source = _module_path(path, node.level, node.module)
        if not source.is_relative_to(package):
            continue
        module = source.relative_to(package).as_posix()
        for alias in node.names:
            if (module, alias.name) in RULE_FROM_CALLER:
                shared = _shared(package, module, alias.name)
                if shared is not None:
                    found[alias.asname or alias.name] = shared
    return found


def _passed_rule(call: ast.Call, shared: _Shared) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == shared.parameter:
            return keyword.value
    return call.args[shared.position] if len(call.args) > shared.position else None


def _calls(path: Path, package: Path) -> Iterator[Raised]:
    relative = path.relative_to(package).as_posix()
    tree = ast.parse(path.read_text(), filename=str(path))
    names = _Names(path, tree)
    callees = {"reject", *_wrappers(tree)}
    shared = _shared_names(path, tree, package)
    own = {(s.reject.lineno, s.reject.col_offset) for s in shared.values() if s.module == relative}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (check := shared.get(_callee(node) or "")) is not None:
            rule = _passed_rule(node, check)
            if rule is not None:
                yield Raised(
                    code=check.code,
                    origin=_origin(relative),
                    rule=_template(rule, names),
                    message=check.message,
                    module=relative,
                )
            continue
        if isinstance(node, ast.Call) and (node.lineno, node.col_offset) in own:
            continue  # the shared check's own call: catalogued where it is called
        if isinstance(node, ast.Call) and _callee(node) == "unsupported" and len(node.args) == 3:
            # A dispatch table's ``unsupported(Kind, rule, message)`` (match/dispatch.py).
            yield Raised(
                code=UNSUPPORTED_ACTION,
                origin=_origin(relative),
                rule=_template(node.args[1], names),
                message=_template(node.args[2], names),
                module=relative,
            )
            continue
        if not isinstance(node, ast.Call) or _callee(node) not in callees or len(node.args) < 3:
            continue
        code = node.args[0]
        if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
            continue
        yield Raised(
            code=code.value,
            origin=_origin(relative),
            rule=_template(node.args[1], names),
            message=_template(node.args[2], names),
            module=relative,
        )


def catalogue(package: Path = PACKAGE) -> dict[str, list[Raised]]:
    """code -> every place it is raised, in a stable order."""
    found: dict[str, list[Raised]] = {}
    for path in sorted(package.rglob("*.py")):
        for raised in _calls(path, package):
            found.setdefault(raised.code, []).append(raised)
    return {code: sorted(found[code], key=lambda r: (r.origin, r.rule, r.message)) for code in sorted(found)}


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def render(codes: dict[str, list[Raised]]) -> str:
    lines = [
        "# Rejection codes",
        "",
        "Generated by `python -m hulldown.wire.schemas` from the server's `reject(...)` calls: do not edit.",
        "A `rejected` message carries one of these codes, the rule reference (edition and section),",
        "a message with the measured numbers and the same numbers in `values`. `{...}` marks a value",
        "filled in at run time. Codes are stable (client-protocol/SPEC.md, versioning); the rule",
        "references and messages are for people and may be reworded at any time.",
        "",
        f"{len(codes)} codes.",
        "",
        "| code | raised by | rule | message |",
        "|---|---|---|---|",
    ]
    for code, raised in codes.items():
        origins = ", ".join(_unique([r.origin for r in raised]))
        rules = "<br>".join(_cell(r) for r in _unique([r.rule for r in raised])[:MAX_EXAMPLES])
        messages = _unique([r.message for r in raised])
        shown = "<br>".join(_cell(m) for m in messages[:MAX_EXAMPLES])
        if len(messages) > MAX_EXAMPLES:
            shown += f"<br>(and {len(messages) - MAX_EXAMPLES} more)"
        lines.append(f"| `{code}` | {origins} | {rules} | {shown} |")
    return "\n".join(lines) + "\n"
