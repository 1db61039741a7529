import { defineRoundTripSuite } from './round-trip.js';

// GitHub Copilot CLI (@github/copilot, pinned in agents.ts) against the loopback Responses stand-in (its BYOK provider, offline).
defineRoundTripSuite('copilot');
