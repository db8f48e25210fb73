// Package chaostest verifies a team's own Kafka code under chaos from its
// own go test, as httptest serves a handler and testcontainers starts a
// database: it starts a cluster, runs the code against it while faults
// play, and checks what the code wrote against the delivery guarantee the
// test states.
//
// The five-line test:
//
//	func TestServiceIsExactlyOnce(t *testing.T) {
//		chaostest.Check(t, chaostest.ExactlyOnce, myservice.Run, chaostest.Options{Faults: []chaostest.Fault{
//			chaostest.KillBroker(500*time.Millisecond, time.Second),
//			chaostest.CrashService(300*time.Millisecond, 2*time.Second, 400*time.Millisecond)}})
//	}
//
// # What it checks
//
// The code is a black box between two topics (a Service, given an Env, or
// a Command for code in another language). The harness produces the input
// itself: values 1..Records, each on input partition (v-1) mod Partitions,
// by an idempotent acks=all producer whose every send is recorded. The
// code consumes them and writes each to the output partition numbered as
// its input's, value unchanged (the contract of Env). After the faults are
// healed and the code has caught up (its group committed the input to its
// end), the harness stops it and reads the output to its end.
//
// All of it is one history in the harness's own format (history.jsonl):
// key k is the pipeline from input partition k to output partition k, a
// send is a value handed to it (its input offset in the op's Extra), and
// the final reads are what came out. The harness's checkers judge it as any
// run's history (an acknowledged value never read is unseen: lost; one
// value at two output offsets is a duplicate) and model/ turns the
// anomalies into the observed guarantee. The Verdict names each lost and
// duplicated record with its partition, value and offsets, and the run
// directory (history, results.json, the HTML report) is kept when the
// guarantee did not hold.
//
// An acknowledged value the output lacks is the code's loss only when the
// code's group committed past it. Once the code is stopped the harness
// reads the input topic back and the group's committed offsets: a value
// the group had not committed past is not consumed in time
// (Verdict.Unconsumed: the code was too slow for Options.Drain), and one
// the input topic no longer holds was lost by the cluster
// (Verdict.InputLost). Neither is loss, nor proof: the guarantee is judged
// on the rest, and Check fails for them, saying which.
//
// # Faults
//
// Faults are the scenario vocabulary of the whole harness
// (generators.Fault): the cluster kinds mean what they mean in any run
// (runner.ClusterFaults builds them, nemesis/ plays and heals them), and
// crash-consumer and crash-producer crash the code under test: its ctx is
// cancelled, it must return within StopGrace without committing anything
// more, and a new start of it takes its place. Code that does not return
// in time is reported as hung and abandoned, never waited on. A Command's
// crash is SIGKILL of its whole process group. A crash counts as fired
// only when it crashed a running start that returned (results.json's
// fault stats); otherwise its op says why. A schedule the run could not
// play to its end is an error naming the steps that never ran. A test
// names its faults (KillBroker, CrashService, any generators.Fault) or
// draws them with rapid (FaultsGen). The
// embedded cluster (the default) kills, pauses and moves leaders but keeps
// one log per partition, so loss through failover needs real brokers:
// Options.Cluster "local" or "docker", or KAFKACHAOS_CLUSTER. An existing
// cluster (Options.Bootstrap) lends the run its topics only, and takes no
// fault but the crashes of the code under test.
//
// This package must not judge a history itself (checkers and model do),
// nor make faults of its own beyond crashing the code under test; it knows
// the cluster only through the providers and their hooks.
package chaostest
