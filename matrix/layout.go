package matrix

import (
	"fmt"
	"strings"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Hop is which part of the path a row's configuration is about: its cells
// compare that hop's guarantee, predicted and observed.
type Hop string

const (
	HopProducer Hop = "producer"   // producer -> log
	HopConsumer Hop = "consumer"   // log -> the consumer's processing
	HopEndToEnd Hop = "end-to-end" // both: the weaker of the two
)

// Row is one configuration of the matrix.
type Row struct {
	// ID names the row on the command line (--rows) and in run directories.
	ID string
	// Name is what the table shows.
	Name string
	Hop  Hop
	// Apply changes the base scenario into this row's configuration.
	Apply func(s *generators.Scenario)
	// NA, when set, says why the row cannot apply to the cluster: none of
	// its cells is run.
	NA string
}

// Column is one fault kind of the matrix.
type Column struct {
	// ID names the column on the command line (--columns).
	ID   string
	Name string
	// Fault is the column's fault for scenario s, over the middle of its
	// run (see window).
	Fault func(s generators.Scenario) generators.Fault
}

// Base is the scenario every row changes: three brokers, a topic of three
// replicas and min.insync.replicas=2, the default (idempotent, acks=all)
// producer, two group consumers committing after processing with
// read_committed, no faults. The provider and time limit are the matrix's.
func Base(provider string, limit time.Duration) generators.Scenario {
	s := generators.Baseline("matrix", provider, limit)
	s.Workload.Consumers, s.Workload.Group = 2, "matrix"
	return s
}

// Rows are the semantics table's configurations, in its order: the producer's
// acks, the topic's min.insync.replicas, retries with and without
// idempotence, unclean leader election, then the consumer's commits and
// finally transactions end to end. The unclean-election row needs
// replication, which only real brokers have.
func Rows(provider string) []Row {
	producer := func(acks model.Acks, retries int, idem bool) func(*generators.Scenario) {
		return func(s *generators.Scenario) {
			s.Producer.Acks, s.Producer.Retries, s.Producer.EnableIdempotence = acks, retries, idem
			if !idem {
				s.Producer.MaxInFlight = 1 // duplicates, not reordering, are the point
			}
		}
	}
	minISR := func(n int) func(*generators.Scenario) {
		return func(s *generators.Scenario) {
			producer(model.AcksAll, 0, false)(s)
			s.Topic.MinInsyncReplicas = n
		}
	}
	commit := func(c model.CommitStrategy) func(*generators.Scenario) {
		return func(s *generators.Scenario) { s.Consumer.CommitStrategy = c }
	}
	rows := []Row{
		{ID: "acks-0", Name: "acks=0", Hop: HopProducer, Apply: producer(model.AcksNone, 0, false)},
		{ID: "acks-1", Name: "acks=1, no retries", Hop: HopProducer, Apply: producer(model.AcksLeader, 0, false)},
		{ID: "acks-all-min-isr-1", Name: "acks=all, min ISR 1, no retries", Hop: HopProducer, Apply: minISR(1)},
		{ID: "acks-all-min-isr-2", Name: "acks=all, min ISR 2, no retries", Hop: HopProducer, Apply: minISR(2)},
		{ID: "retries-no-idempotence", Name: "retries, no idempotence", Hop: HopProducer, Apply: producer(model.AcksAll, 10, false)},
		{ID: "retries-idempotence", Name: "retries + idempotence", Hop: HopProducer, Apply: func(*generators.Scenario) {}},
		{ID: "unclean-election", Name: "unclean leader election", Hop: HopProducer, Apply: func(s *generators.Scenario) {
			s.Topic.UncleanLeaderElection = true
		}},
		{ID: "commit-before", Name: "commit before processing", Hop: HopConsumer, Apply: commit(model.CommitBeforeProcessing)},
		{ID: "commit-after", Name: "commit after processing", Hop: HopConsumer, Apply: commit(model.CommitAfterProcessing)},
		{ID: "auto-commit", Name: "auto-commit", Hop: HopConsumer, Apply: func(s *generators.Scenario) {
			commit(model.CommitAuto)(s)
			// every 100 ms: the least franz-go takes, so that each client
			// commits as often
			s.Consumer.AutoCommitInterval = generators.Duration(100 * time.Millisecond)
		}},
		{ID: "transactions", Name: "transactions + read_committed (copier)", Hop: HopEndToEnd, Apply: copier},
	}
	if provider == "embedded" {
		rows[6].NA = "the embedded cluster (kfake) keeps one log per partition: there is no out-of-sync replica to elect"
	}
	return rows
}

// copier is consume-transform-produce: two copiers read the input and write
// the output in transactions carrying their offsets, some aborted on
// purpose; the group consumers read it with read_committed.
func copier(s *generators.Scenario) {
	s.Keys = generators.SequentialKeys(s.Keys.Count, "in", "out")
	s.Producer.TransactionalID = "matrix-copier"
	s.Consumer.CommitStrategy = model.CommitTransactional
	s.Workload.Consumers = 0
	s.Workload.Copiers, s.Workload.TxnSize, s.Workload.AbortRatio = 2, 5, 0.3
	s.Workload.Mix.Txn = 2
}

// Columns are the fault kinds of the table's failures: a broker dying
// (aimed at the leader on real brokers), cut off or frozen, an
// acknowledgement lost after the write, the leader moving, and the
// harness's own clients crashing (a consumer at the point its commit
// strategy makes dangerous); then requests arriving late: every client
// connection slowed (Kafka's own degraded-network figure), and produce and
// EndTxn requests held while the clients' other connections go on (the
// late arrivals of KAFKA-17754), each for a sixth of the run at most.
func Columns(provider string) []Column {
	real := provider != "embedded"
	target := func(kind string) func(generators.Scenario) generators.Fault {
		return func(s generators.Scenario) generators.Fault {
			f := window(s, kind)
			if real {
				f.Params.Target = "leader"
			}
			return f
		}
	}
	every := func(kind string, d time.Duration) func(generators.Scenario) generators.Fault {
		return func(s generators.Scenario) generators.Fault {
			f := window(s, kind)
			f.Params.Every = generators.Duration(d)
			return f
		}
	}
	aim := " (one broker)"
	if real {
		aim = " (leader)"
	}
	return []Column{
		{ID: generators.KindKill, Name: "kill" + aim, Fault: target(generators.KindKill)},
		{ID: generators.KindPartition, Name: "partition" + aim, Fault: target(generators.KindPartition)},
		{ID: generators.KindPause, Name: "pause" + aim, Fault: target(generators.KindPause)},
		{ID: generators.KindLostAck, Name: "lost acks", Fault: func(s generators.Scenario) generators.Fault {
			f := window(s, generators.KindLostAck)
			f.Params.Probability = 0.3
			return f
		}},
		{ID: generators.KindLeaderShuffle, Name: "leader moves", Fault: every(generators.KindLeaderShuffle, 500*time.Millisecond)},
		{ID: generators.KindCrashConsumer, Name: "consumer crash", Fault: func(s generators.Scenario) generators.Fault {
			f := every(generators.KindCrashConsumer, 500*time.Millisecond)(s)
			points := generators.CrashPoints(s)
			f.Params.Point = points[len(points)-1] // the commit point, where there is one
			return f
		}},
		{ID: generators.KindCrashProducer, Name: "producer crash", Fault: every(generators.KindCrashProducer, 700*time.Millisecond)},
		{ID: generators.KindLatency, Name: fmt.Sprintf("latency (%v ± %v)", generators.DefaultLatency, generators.DefaultJitter),
			Fault: func(s generators.Scenario) generators.Fault { return window(s, generators.KindLatency) }},
		{ID: generators.KindDelayedRequests, Name: "delayed " + strings.Join(generators.DefaultHoldRequests(), " and ") + " requests",
			Fault: func(s generators.Scenario) generators.Fault {
				f := window(s, generators.KindDelayedRequests)
				f.Params.Delay = generators.Duration(min(generators.DefaultHold, s.TimeLimit.D()/6))
				return f
			}},
	}
}

// window is kind active from 10% to 90% of s's run.
func window(s generators.Scenario, kind string) generators.Fault {
	return generators.Fault{Kind: kind, Start: s.TimeLimit / 10, Duration: s.TimeLimit * 8 / 10}
}
