// Generate TypeScript declarations (types/*.d.ts) from the JSON Schemas (schemas/*.json) with
// json-schema-to-typescript. `--check` only compares and exits 1 when a file is stale.
//   npm run types            (or: node scripts/generate-types.mjs [--check])
import { readdir, readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const schemaDir = join(here, "schemas");
const typesDir = join(here, "types");
const check = process.argv.includes("--check");
const BANNER = "/* Generated from ../schemas by scripts/generate-types.mjs (json-schema-to-typescript): do not edit. */";

// json-schema-to-typescript reads draft-07 tuples: a 2020-12 "prefixItems" becomes "items" (an
// array) for it, and a "$ref" with a "default" beside it would make a second copy of the type.
function prepare(node) {
  if (Array.isArray(node)) return node.map(prepare);
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) out[key] = prepare(value);
  if (Array.isArray(out.prefixItems)) {
    out.items = out.prefixItems;
    out.additionalItems = false;
    delete out.prefixItems;
  }
  if (typeof out.$ref === "string") {
    delete out.default;
  }
  return out;
}

const files = (await readdir(schemaDir)).filter((f) => f.endsWith(".json")).sort();
const outputs = new Map();
const roots = [];
for (const file of files) {
  const schema = prepare(JSON.parse(await readFile(join(schemaDir, file), "utf8")));
  const name = file.replace(/\.json$/, "");
  const text = await compile(schema, schema.title, {
    bannerComment: BANNER,
    additionalProperties: false,
    unreachableDefinitions: false,
    strictIndexSignatures: false,
    format: true,
  });
  outputs.set(`${name}.d.ts`, text);
  roots.push({ name, title: schema.title });
}
const index = [
  BANNER,
  "// Every root type, and each schema file's types under a namespace (a file's shared",
  "// definitions, e.g. MatchState, appear in every file that uses them).",
  ...roots.map(({ name, title }) => `export type { ${title} } from "./${name}.js";`),
  ...roots.map(({ name }) => `export * as ${name.replace(/-([a-z])/g, (_, c) => c.toUpperCase())} from "./${name}.js";`),
  "",
].join("\n");
outputs.set("index.d.ts", index);

let stale = 0;
await mkdir(typesDir, { recursive: true });
for (const [file, text] of outputs) {
  const path = join(typesDir, file);
  let current = null;
  try {
    current = await readFile(path, "utf8");
  } catch {}
  if (current === text) continue;
  if (check) {
    console.error(`stale: types/${file} (run: npm run types)`);
    stale += 1;
  } else {
    await writeFile(path, text);
    console.log(`wrote types/${file}`);
  }
}
process.exit(stale ? 1 : 0);
