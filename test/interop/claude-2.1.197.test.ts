import { defineRoundTripSuite } from './round-trip.js';

// The Claude Code release before 2.1.330's format changes (users still run it), against the same stand-in.
defineRoundTripSuite('claude-2.1.197');
