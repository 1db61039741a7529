#!/usr/bin/env node
// The smallest Ink app: one line of text. The benchmark times how long it takes to paint, as the floor
// for any unbundled Ink TUI (import('ink') + React + first render). `--exit` unmounts after the first frame.
import React from 'react';
import { render, Text } from 'ink';

const app = render(React.createElement(Text, null, 'hello from ink: ready'));
if (process.argv.includes('--exit')) {
  setImmediate(() => app.unmount());
}
