import { defineRoundTripSuite } from './round-trip.js';

// pi (@earendil-works/pi-coding-agent, pinned in agents.ts) against the loopback Chat Completions stand-in, through a
// models.json provider; its own `--fork` is the agent fork of the suite.
defineRoundTripSuite('pi');
