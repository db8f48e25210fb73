// Package matrix runs the delivery-semantics table live: each row a
// client or topic configuration (acks, min.insync.replicas, retries with and
// without idempotence, unclean elections, when offsets are committed,
// transactions), each column a fault kind the chosen cluster can inject, and
// each cell the guarantee the model predicts for the row beside the one the
// runs observed, with links to the run directories that prove it. A cell
// observed weaker than predicted is a finding; a cell that cannot apply
// (the cluster lacks the fault, the workload gives it nothing to act on) is
// n/a with the reason, and is not run.
//
// With clients (RunClients), each cell runs once per client under test,
// the same scenario with generators.UseClient applied, and the clients'
// cells are compared: one weaker than another (guarantee, anomalies,
// liveness, client hangs) is a difference, written to CLIENTS.md. A client
// whose workers cannot play a row's hop in the cell's scenario (UseClient
// left them to librdkafka) has the cell n/a.
//
// It drives whole runs through runner's public API and builds its
// scenarios from generators' types, asking generators (KindsFor,
// Validate) and runner (Injectable, UnsupportedFault) whether a cell can
// apply. It must not know how a run is recorded or judged: the verdict is
// runner.Outcome's (Held, Expected, Observed), the prediction model's, and
// nothing here reads a history or a provider's internals.
package matrix
