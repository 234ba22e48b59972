/**
 * The Node.js release lines Surfacer is tested on, and when each stops getting security fixes
 * (the Node.js release schedule). A server on a line past its end still runs, and says so once
 * at start: nothing else would tell an operator that the runtime under it is unpatched.
 */
export const TESTED_NODE_LINES = [
  { major: 20, endOfLife: '2026-04-30' },
  { major: 22, endOfLife: '2027-04-30' },
  { major: 24, endOfLife: '2028-04-30' },
  { major: 26, endOfLife: '2029-04-30' },
] as const;

/** The start-up warning for a Node past its end of life on `today`, or undefined. */
export function nodeEndOfLifeWarning(version: string, today: Date): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  const line = TESTED_NODE_LINES.find((l) => l.major === major);
  if (line === undefined || today.getTime() < Date.parse(`${line.endOfLife}T00:00:00Z`)) return undefined;
  const supported = TESTED_NODE_LINES.filter((l) => Date.parse(`${l.endOfLife}T00:00:00Z`) > today.getTime()).map((l) => l.major);
  return `Node ${version.replace(/^v/, '')} is past its end of life (${line.endOfLife}): it gets no security fixes; run Surfacer on Node ${supported.join(', ')}`;
}
