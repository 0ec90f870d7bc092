// A second test reporter (scripts/test.mjs adds it after TAP). At the very end of the output it
// names the slowest test files and repeats every failing test with its file and the first line of
// its error: CI keeps only the tail of a run's output, where a failure among ~1,200 passing tests
// would otherwise not be named.
const SLOWEST = 8;

export default async function* summary(source) {
  const failed = [];
  /** ms per file: its top-level tests, which run one after another in the file's own process. */
  const fileMs = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      fileMs.set(event.data.file, (fileMs.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
    if (event.type !== 'test:fail') continue;
    const error = event.data.details?.error;
    // A test whose only failure is a failing subtest is named through that subtest.
    if (error?.failureType === 'subtestsFailed') continue;
    const message = String(error?.cause?.message ?? error?.cause ?? error?.message ?? error).split('\n')[0];
    failed.push(`#   ${event.data.file ?? '(unknown file)'} > ${event.data.name}: ${message}`);
  }
  const slowest = [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
  if (slowest.length > 1) {
    const cwd = `${process.cwd()}/`;
    yield `# slowest files:\n${slowest.map(([file, ms]) => `#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${file.replace(cwd, '')}`).join('\n')}\n`;
  }
  if (failed.length > 0) yield `# failing tests (${failed.length}):\n${failed.join('\n')}\n`;
}
