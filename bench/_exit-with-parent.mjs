// Preloaded into every bench server bench/http-actions.ts forks (this build's and another build's
// alike): the server exits when the bench that forked it is gone (its IPC channel closes), so an
// interrupted or killed bench leaves no server behind. A normal exit: a `--cpu-prof` profile is
// still written.
process.once('disconnect', () => process.exit(0));
