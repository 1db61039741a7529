// NO_COLOR (https://no-color.org): no colour codes at all, while bold and inverse still show the selection.
import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { App } from '../../src/ui/App.js';
import { themeFor } from '../../src/ui/theme.js';
import { fixtureHome, fixtureServices, waitFor } from './helpers.js';

// The test stdout is not a terminal, so chalk would drop colours anyway: force them, or this test could not fail.
const level = chalk.level;
beforeAll(() => {
  chalk.level = 3;
});
afterAll(() => {
  chalk.level = level;
});

let home: string;
let dispose: () => Promise<void>;
beforeEach(async () => {
  ({ home, dispose } = await fixtureHome());
});
afterEach(async () => {
  await dispose();
});

async function screenWith(env: Record<string, string>): Promise<string> {
  const services = fixtureServices(home);
  const app = render(<App services={services} cwd="/nowhere" homeDir={home} columns={100} rows={30} theme={themeFor(env)} onDecision={() => undefined} />);
  return waitFor(() => {
    const frame = app.lastFrame() ?? '';
    if (!frame.includes('api-health') || !frame.includes('live')) throw new Error('not loaded yet');
    return frame;
  });
}

const ESC = String.fromCharCode(27);
/** An SGR sequence that sets a foreground or background colour. */
const COLOUR = new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:3[0-7]|38|9[0-7]|4[0-7]|48|10[0-7])(?:;[0-9;]*)?m`);
const INVERSE = new RegExp(`${ESC}\\[(?:1;)?7m`);

it('uses colour by default', async () => {
  expect(await screenWith({})).toMatch(COLOUR);
});

it('uses none under NO_COLOR, and still marks the selection with bold and inverse', async () => {
  const frame = await screenWith({ NO_COLOR: '1' });
  expect(frame).not.toMatch(COLOUR);
  expect(frame).toMatch(INVERSE);
});
