/** This release's version: `sessions --version`, and what a host's `sessions` says in the hosts' handshake. */
export const SESSIONS_VERSION = '0.1.0';
