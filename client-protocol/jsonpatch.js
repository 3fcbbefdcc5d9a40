// RFC 6902 JSON Patch (add, remove, replace) with RFC 6901 pointers, applied in place.
// Protocol version 1 servers emit only these three operations (client-protocol/SPEC.md).

export class PatchError extends Error {}

export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(`pointer ${pointer} must start with '/'`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => {
      if (/~(?![01])/.test(token)) throw new PatchError(`bad escape in ${pointer}`);
      return token.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

function index(token, size, allowEnd, path) {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`${path}: ${token} is not an index`);
  const i = Number(token);
  if (i > (allowEnd ? size : size - 1)) throw new PatchError(`${path}: index ${i} out of range`);
  return i;
}

function isContainer(value) {
  return value !== null && typeof value === "object";
}

function parentOf(doc, tokens, path) {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[index(token, node.length, false, path)];
    else if (isContainer(node)) {
      if (!Object.hasOwn(node, token)) throw new PatchError(`${path}: ${token} does not exist`);
      node = node[token];
    } else throw new PatchError(`${path}: ${token} is inside a scalar`);
  }
  if (!isContainer(node)) throw new PatchError(`${path}: parent is not a container`);
  return node;
}

// Returns the patched document (the same object unless the whole document was replaced).
// A failing patch may leave the document half-patched: callers then start from a fresh view.
export function applyPatch(doc, ops) {
  for (const op of ops) {
    const tokens = parsePointer(op.path);
    const value = op.value;
    if ((op.op === "add" || op.op === "replace") && !("value" in op)) {
      throw new PatchError(`${op.op} ${op.path}: missing value`);
    }
    if (tokens.length === 0) {
      if (op.op === "remove") throw new PatchError("can not remove the whole document");
      if (op.op !== "add" && op.op !== "replace") throw new PatchError(`unsupported op ${op.op}`);
      doc = value;
      continue;
    }
    const parent = parentOf(doc, tokens, op.path);
    const last = tokens[tokens.length - 1];
    if (op.op === "add") {
      if (Array.isArray(parent)) {
        if (last === "-") parent.push(value);
        else parent.splice(index(last, parent.length, true, op.path), 0, value);
      } else parent[last] = value;
    } else if (op.op === "remove" || op.op === "replace") {
      if (Array.isArray(parent)) {
        const i = index(last, parent.length, false, op.path);
        if (op.op === "remove") parent.splice(i, 1);
        else parent[i] = value;
      } else {
        if (!Object.hasOwn(parent, last)) throw new PatchError(`${op.path} does not exist`);
        if (op.op === "remove") delete parent[last];
        else parent[last] = value;
      }
    } else throw new PatchError(`unsupported op ${op.op}`);
  }
  return doc;
}
