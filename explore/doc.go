// Package explore searches the scenario space for a violated guarantee:
// a campaign draws scenarios (generators) and runs them (runner) until its
// duration ends or a draw violates what its space claims; a violation is
// shrunk to a minimal scenario, and can be saved as a regression that
// TestChaosRegressions replays.
//
// Spaces and claims. The safe and all spaces judge a draw by the runner's
// verdict (the guarantee the model documents for its configuration); a
// violation there is a finding about Kafka or the model. The weak space
// draws only configurations the model calls weak (a producer that may
// duplicate or lose, a consumer that commits before processing or
// automatically) and claims exactly-once of them, as a user who trusts the
// defaults might: its violations are the weaknesses shown to be real, found
// quickly, which is what a regression needs to pin.
//
// Non-determinism. A run on a real or embedded cluster is not a function of
// its scenario: timing decides whether a lost ack lands on a retried batch.
// The shrinker therefore judges each candidate by up to K runs and counts it
// as failing if any run fails. K is 3: a candidate that reproduces at least
// half the time (the shrunk scenarios here reproduce most runs) is missed
// by 3 runs with probability 1/8 at worst, and a miss only costs a smaller
// result, never a wrong one (a kept change was seen failing); more runs
// would triple the shrink's time for a small gain. Replays of regressions
// take up to K attempts for the same reason. A candidate fails only with
// one of the original violation's anomaly kinds: a shrink keeps its bug
// rather than trading it for another, and a regression pins those kinds.
//
// Draws per cluster. When the draws share a running cluster, the caller
// counts the clusters they started (Campaign.Clusters) and the report's
// summary names them and the draws per cluster: a campaign that restarts
// its cluster every few draws spends its time starting clusters.
//
// Shards. A campaign's draws are numbered from 0 under its seed; shard I
// of N makes those numbered I-1 modulo N, so shards on N machines never
// make one draw twice. Bounded by a count of draws (Campaign.Draws), a
// campaign judges every draw below it, past violations: the shards of one
// count together make exactly the unsharded campaign's draws, and their
// merged Output (Merge) has its coverage and findings. Bounded by time,
// each shard makes a prefix of its stream and stops at its first
// violation; Output.Made says which draws a merge then holds. An Output
// is a campaign's record on disk, what merging needs and no more: the
// draws (index, generators' seed, configuration, kinds, outcome), the
// findings with their run directories, the shrinks and the summary.
//
// This package must not know how a run is made (clusters, clients,
// checkers): it drives generators' and runner's public APIs, and its
// shrinker and coverage see scenarios and verdicts only. It never edits a
// scenario's meaning beyond the shrink steps it logs.
package explore
