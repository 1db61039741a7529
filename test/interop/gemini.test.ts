import { defineRoundTripSuite } from './round-trip.js';

// Gemini CLI (@google/gemini-cli, pinned in agents.ts) against the loopback Gemini API stand-in.
defineRoundTripSuite('gemini');
