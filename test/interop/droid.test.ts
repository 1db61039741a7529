import { defineRoundTripSuite } from './round-trip.js';

// Factory Droid (@factory/cli-linux-x64, pinned in agents.ts) with a custom model on the loopback Chat Completions stand-in.
defineRoundTripSuite('droid');
