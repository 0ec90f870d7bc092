// A second test reporter (scripts/test.mjs adds it after TAP): it repeats every failing test, with
// its file and the first line of its error, at the very end of the output. CI keeps only the tail
// of a run's output, where a failure among ~1,200 passing tests would otherwise not be named.
export default async function* failingTests(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const error = event.data.details?.error;
    // A test whose only failure is a failing subtest is named through that subtest.
    if (error?.failureType === 'subtestsFailed') continue;
    const message = String(error?.cause?.message ?? error?.cause ?? error?.message ?? error).split('\n')[0];
    failed.push(`#   ${event.data.file ?? '(unknown file)'} > ${event.data.name}: ${message}`);
  }
  if (failed.length > 0) yield `# failing tests (${failed.length}):\n${failed.join('\n')}\n`;
}
