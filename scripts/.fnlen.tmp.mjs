import ts from "typescript"; import fs from "node:fs"; import path from "node:path"
const root = process.argv[2]; const min = Number(process.argv[3] ?? 150)
const walk = (d, out = []) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p, out); else if (p.endsWith(".ts")) out.push(p) } return out }
for (const f of walk(root)) {
  const sf = ts.createSourceFile(f, fs.readFileSync(f, "utf8"), ts.ScriptTarget.Latest, true)
  const visit = (n) => {
    if (ts.isFunctionLike(n) && n.body) {
      const a = sf.getLineAndCharacterOfPosition(n.getStart()).line, b = sf.getLineAndCharacterOfPosition(n.end).line
      if (b - a + 1 > min) console.log(b - a + 1, path.relative(root, f) + ":" + (a + 1))
    }
    ts.forEachChild(n, visit)
  }
  visit(sf)
}
