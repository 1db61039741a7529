import { defineRoundTripSuite } from './round-trip.js';

// Qwen Code (@qwen-code/qwen-code, pinned in agents.ts) against the loopback OpenAI Chat Completions stand-in.
defineRoundTripSuite('qwen');
