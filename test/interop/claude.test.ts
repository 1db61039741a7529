import { defineRoundTripSuite } from './round-trip.js';

// Claude Code (@anthropic-ai/claude-code, the newest release pinned in agents.ts) against the loopback Messages stand-in.
defineRoundTripSuite('claude');
