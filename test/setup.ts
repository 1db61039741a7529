// With CI=true Ink renders only the last frame on exit; component tests read intermediate frames.
delete process.env.CI;
