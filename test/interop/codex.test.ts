import { defineRoundTripSuite } from './round-trip.js';

// OpenAI Codex CLI (@openai/codex, pinned in agents.ts) against the loopback Responses stand-in.
defineRoundTripSuite('codex');
