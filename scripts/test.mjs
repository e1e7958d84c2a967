// `npm test`: every step runs, whatever an earlier one did (a red typecheck does not hide the
// conformance results, a red conformance set does not stop the unit tests), nothing is re-run,
// and the run fails when any step failed. The last line counts the unit tests plus one per
// other step: `tests: N passed, N failed, N skipped`.
//
//   node scripts/test.mjs [step …]     (default: every step; names as in `steps` below)
import { spawnSync } from "node:child_process";
import * as Fs from "node:fs";
import { pathToFileURL } from "node:url";
import { closingLine, summarizeFile } from "./test-summary.mjs";

const results = ".vitest/results.json";

/** The steps of `npm test`, in order: a name and its command. */
export const steps = [
  { name: "typecheck", command: ["npm", "run", "typecheck", "--silent"] },
  { name: "lint", command: ["npm", "run", "lint", "--silent"] },
  {
    name: "conformance-2025-11-25",
    command: ["node", "packages/conformance/dist/run.js", "--requirements", "2025-11-25"],
  },
  {
    name: "conformance-2026-07-28",
    command: ["node", "packages/conformance/dist/run.js", "--requirements", "2026-07-28"],
  },
  {
    name: "unit",
    command: ["npx", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${results}`],
    before: () => Fs.rmSync(results, { force: true }),
    summary: (exitCode) => summarizeFile(results, exitCode),
  },
];

/**
 * Runs every step (each to its end, output streamed) and adds up the verdicts: a step with a
 * `summary` contributes its test counts, any other step counts as one test.
 */
export const runSteps = (chosen, options = {}) => {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const verdicts = [];
  for (const step of chosen) {
    step.before?.();
    const started = Date.now();
    const run = spawnSync(step.command[0], step.command.slice(1), { stdio: options.stdio ?? "inherit" });
    const exitCode = run.status ?? 1;
    const summary = step.summary?.(exitCode)
      ?? { passed: exitCode === 0 ? 1 : 0, failed: exitCode === 0 ? 0 : 1, skipped: 0, problems: [] };
    const ok = exitCode === 0 && summary.failed === 0;
    totals.passed += summary.passed;
    totals.failed += summary.failed;
    totals.skipped += summary.skipped;
    verdicts.push({
      name: step.name,
      ok,
      exitCode,
      seconds: (Date.now() - started) / 1000,
      problems: summary.problems,
    });
  }
  return { totals, verdicts, ok: verdicts.every((verdict) => verdict.ok) };
};

/** The report printed at the end, closing line last. */
export const report = ({ totals, verdicts }) =>
  [
    "",
    "steps:",
    ...verdicts.flatMap((verdict) => [
      `  ${verdict.ok ? "\u2713" : "\u2717"} ${verdict.name} (exit ${verdict.exitCode}, ${
        verdict.seconds.toFixed(0)
      } s)`,
      ...verdict.problems.map((problem) => `      ${problem}`),
    ]),
    closingLine(totals),
  ].join("\n");

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !steps.some((step) => step.name === name));
  if (unknown.length > 0) {
    console.error(`unknown step(s): ${unknown.join(", ")}; steps: ${steps.map((step) => step.name).join(", ")}`);
    process.exit(2);
  }
  const outcome = runSteps(names.length === 0 ? steps : steps.filter((step) => names.includes(step.name)));
  console.log(report(outcome));
  process.exit(outcome.ok ? 0 : 1);
}
