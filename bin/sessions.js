#!/usr/bin/env node
import { start } from '../dist/bundle/start.js';

await start(process.argv);
