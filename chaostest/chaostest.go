package chaostest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kafkachaos/kafkachaos/generators"
	"github.com/kafkachaos/kafkachaos/model"
)

// Guarantee is a delivery guarantee a test states for its code.
type Guarantee = model.Guarantee

// The guarantees a test can state. AtMostOnce allows loss and forbids
// duplicates; AtLeastOnce allows duplicates and forbids loss; ExactlyOnce
// forbids both.
const (
	ExactlyOnce = model.ExactlyOnce
	AtLeastOnce = model.AtLeastOnce
	AtMostOnce  = model.AtMostOnce
)

// Env is what the code under test is given: where the cluster is, which
// topic to consume and which to produce to, and the names that must stay
// the same across restarts of the code (its consumer group and
// transactional id), as they would across restarts of a deployed service.
//
// The contract: every input record becomes one output record on the
// output partition with the input's partition number, whose value is the
// input record's value unchanged (a decimal number). Keys and headers are
// the code's own.
type Env struct {
	Bootstrap  string
	Input      string
	Output     string
	Partitions int
	// Group is the consumer group to join; the harness reads its committed
	// offsets to tell when the code has caught up.
	Group string
	// TransactionalID is unique to the instance slot and the same for every
	// restart in it, so that a restart fences its crashed predecessor.
	TransactionalID string
	// Start counts the starts of the code in this run, from 0.
	Start int
	// Dir is the run directory, for the code's own logs.
	Dir string

	groups *procGroups // the run's, for Command
}

// Service is the code under test. It runs until ctx is cancelled, which is
// how the harness crashes it (a crash fault) and how it ends it (the end of
// the run): it must return then without committing anything more, as a
// killed process could not, and within Options.StopGrace; one that does
// not is reported and abandoned. An error it returns on its own is noted
// in the verdict and the code is started again, as a supervisor would.
type Service func(ctx context.Context, env Env) error

// Fault is one entry of the fault schedule, in the scenario vocabulary of
// the whole harness (generators.Fault): Kind, Start and Duration since the
// code started, and Params. Cluster kinds (kill, pause, leader-shuffle,
// lost-ack, partition, ...) mean what they mean in any scenario;
// crash-consumer and crash-producer crash the code under test.
type Fault = generators.Fault

// KillBroker kills one broker, chosen by the seed, at start for d.
func KillBroker(start, d time.Duration) Fault {
	return Fault{Kind: generators.KindKill, Start: generators.Duration(start), Duration: generators.Duration(d)}
}

// KillLeader kills the leader of output partition 0 (the one the code under
// test writes) at start for d; it needs real brokers (local or docker).
func KillLeader(start, d time.Duration) Fault {
	f := KillBroker(start, d)
	f.Params.Target = "leader"
	return f
}

// CrashService crashes the code under test at start and then every every
// until start+d (every 0: once).
func CrashService(start, d, every time.Duration) Fault {
	return Fault{Kind: generators.KindCrashConsumer, Start: generators.Duration(start), Duration: generators.Duration(d),
		Params: generators.FaultParams{Every: generators.Duration(every)}}
}

// Options shape a run. The zero value runs three embedded brokers, three
// partitions, 300 input records over 1.5 seconds and no fault.
type Options struct {
	// Cluster is the provider: "embedded", "local" or "docker"; "" means
	// $KAFKACHAOS_CLUSTER, else "embedded".
	Cluster string
	// Bootstrap, when set, runs on an existing cluster instead: the run's
	// topics are created there and deleted at the end, Brokers is ignored,
	// and no fault may act on the cluster (only the crash kinds).
	Bootstrap string
	// Brokers, Partitions, Records: 0 means 3, 3 and 300.
	Brokers    int
	Partitions int
	Records    int
	// Duration is how long the code runs under the faults; 0 means 3s.
	// The input is paced over its first half (and produced to its end
	// after it, if a slow start held it back).
	Duration time.Duration
	Faults   []Fault
	Seed     int64
	// Instances is how many copies of the code run at once; 0 means 1.
	Instances int
	// StopGrace is how long the code has to return once its ctx is
	// cancelled; 0 means 5s.
	StopGrace time.Duration
	// Drain bounds how long the code has, after the faults, to catch up
	// with the input; 0 means 20s. It ends sooner once the group has
	// committed the whole input and the output stands still.
	Drain time.Duration
	// ReadUncommitted makes the final reads of the output
	// read_uncommitted; by default they read only committed records, as a
	// downstream consumer of a transactional output would.
	ReadUncommitted bool
	// RunsDir is where the run directory goes ("" means $KAFKACHAOS_RUNS,
	// else runs/ in the module root). It is kept when the guarantee did
	// not hold or the code hung, and always with Keep.
	RunsDir string
	Keep    bool
	// Name names the run directory; Check sets it to the test's name.
	Name string
	// Client names the Kafka client library the code under test uses,
	// NAME[@VERSION] with NAME librdkafka, java or franz-go ("" leaves it
	// unnamed; a version only for java, a kafka-clients release). It is
	// recorded in scenario.json (clients.consumer, client-version), so the
	// run's page and any comparison of runs say which client was under
	// test; the harness's own input producer and final reads stay
	// librdkafka.
	Client string
}

func (o Options) withDefaults() Options {
	o.Cluster = firstOf(o.Cluster, os.Getenv("KAFKACHAOS_CLUSTER"), "embedded")
	if o.Bootstrap != "" {
		o.Cluster = existingName
	}
	o.Brokers = orInt(o.Brokers, 3)
	o.Partitions = orInt(o.Partitions, 3)
	o.Records = orInt(o.Records, 300)
	o.Instances = orInt(o.Instances, 1)
	o.Duration = orDur(o.Duration, 3*time.Second)
	o.StopGrace = orDur(o.StopGrace, 5*time.Second)
	o.Drain = orDur(o.Drain, 20*time.Second)
	o.Name = firstOf(o.Name, "chaostest")
	return o
}

func (o Options) validate() error {
	switch {
	case o.Brokers < 1, o.Partitions < 1, o.Records < 1, o.Instances < 1:
		return fmt.Errorf("chaostest: brokers %d, partitions %d, records %d, instances %d: each must be at least 1",
			o.Brokers, o.Partitions, o.Records, o.Instances)
	case o.Duration < 0, o.StopGrace < 0, o.Drain < 0:
		return fmt.Errorf("chaostest: durations must not be negative (duration %v, stop grace %v, drain %v)", o.Duration, o.StopGrace, o.Drain)
	}
	if err := validClient(o.Client); err != nil {
		return err
	}
	for i, f := range o.Faults {
		if f.End().D() > o.Duration {
			return fmt.Errorf("chaostest: fault %d (%s) ends at %v, after the run's %v", i, f.Kind, f.End().D(), o.Duration)
		}
	}
	return nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func orDur(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// Check runs svc under opts' faults and fails t, with the evidence, when
// the output breaks want, when the code hung, when it had not consumed
// all the input in time, the cluster lost input (neither judged) or was
// not live, or when the run could not be judged. It returns the verdict for further assertions.
func Check(t testing.TB, want Guarantee, svc Service, opts Options) Verdict {
	t.Helper()
	if opts.Name == "" {
		opts.Name = t.Name()
	}
	v, err := Run(t.Context(), want, svc, opts)
	if err != nil {
		t.Fatalf("chaostest: %v", err)
	}
	if v.failed() {
		t.Errorf("chaostest: %v", v)
	}
	return v
}

// validClient checks Options.Client: a known client, a version only for
// java.
func validClient(v string) error {
	if v == "" {
		return nil
	}
	name, version, err := generators.ParseClient(v)
	switch {
	case err != nil:
		return fmt.Errorf("chaostest: Client: %w", err)
	case !slices.Contains(generators.ClientNames(), name):
		return fmt.Errorf("chaostest: Client %q: want one of %v", v, generators.ClientNames())
	case version != "" && name != generators.ClientJava:
		return fmt.Errorf("chaostest: Client %q: only java takes a version (a kafka-clients release)", v)
	}
	return nil
}
