package chaostest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/kafkachaos/kafkachaos/chaostest"
	"github.com/kafkachaos/kafkachaos/cluster"
	"github.com/kafkachaos/kafkachaos/cluster/embedded"
	"github.com/kafkachaos/kafkachaos/generators"
)

// small is a short run on the embedded cluster: the tests here are about
// the verdict, not the cluster or faults.
func small(t *testing.T) chaostest.Options {
	return chaostest.Options{Name: t.Name(), RunsDir: t.TempDir(), Cluster: "embedded", Brokers: 1, Partitions: 2, Records: 60,
		Duration: time.Second, Drain: 5 * time.Second}
}

// copier is a plain at-least-once copier (commit after the output is
// flushed) whose out decides what each input value becomes in the output,
// and shift which output partition it goes to (0: its input's).
func copier(out func(v int64) []int64, shift int32, extra ...kafka.ConfigMap) chaostest.Service {
	return func(ctx context.Context, env chaostest.Env) error {
		c, p, err := clients(env, extra...)
		if err != nil {
			return err
		}
		defer c.Close()
		defer p.Close()
		for ctx.Err() == nil {
			if err := copyBatch(c, p, env, out, shift); err != nil {
				return err
			}
		}
		return nil
	}
}

// clients are a copier's consumer, subscribed to the input in the code's
// group, and its producer; extra is added to the consumer's configuration.
func clients(env chaostest.Env, extra ...kafka.ConfigMap) (*kafka.Consumer, *kafka.Producer, error) {
	conf := kafka.ConfigMap{"bootstrap.servers": env.Bootstrap, "group.id": env.Group,
		"enable.auto.commit": false, "enable.auto.offset.store": false, "auto.offset.reset": "earliest",
		"session.timeout.ms": 1000, "heartbeat.interval.ms": 200, "max.poll.interval.ms": 2000, "log_level": 0}
	for _, e := range extra {
		maps.Copy(conf, e)
	}
	c, err := kafka.NewConsumer(&conf)
	if err != nil {
		return nil, nil, err
	}
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": env.Bootstrap, "go.delivery.reports": false,
		"linger.ms": 0, "log_level": 0})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	if err := c.Subscribe(env.Input, nil); err != nil {
		c.Close()
		p.Close()
		return nil, nil, err
	}
	return c, p, nil
}

// copyBatch copies what arrives within 50ms, then commits it.
func copyBatch(c *kafka.Consumer, p *kafka.Producer, env chaostest.Env, out func(v int64) []int64, shift int32) error {
	var last *kafka.Message
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		m, err := c.ReadMessage(10 * time.Millisecond)
		if err != nil {
			continue // a timeout: nothing came
		}
		v, err := strconv.ParseInt(string(m.Value), 10, 64)
		if err != nil {
			return err
		}
		part := (m.TopicPartition.Partition + shift) % int32(env.Partitions)
		for _, w := range out(v) {
			msg := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &env.Output, Partition: part}, Value: []byte(strconv.FormatInt(w, 10))}
			if err := p.Produce(msg, nil); err != nil {
				return err
			}
		}
		if _, err := c.StoreMessage(m); err != nil {
			return err
		}
		last = m
	}
	if last == nil {
		return nil
	}
	p.Flush(5000)
	_, err := c.Commit()
	return err
}

func same(v int64) []int64 { return []int64{v} }

func values(rs []chaostest.Record) []int64 {
	var out []int64
	for _, r := range rs {
		out = append(out, r.Value)
	}
	slices.Sort(out)
	return out
}

// Dropped values are named as lost, duplicated ones as duplicated, each
// with its partition and offsets, and the guarantee observed is none.
func TestVerdictNamesLostAndDuplicatedRecords(t *testing.T) {
	svc := copier(func(v int64) []int64 {
		switch v % 20 {
		case 7:
			return nil
		case 13:
			return []int64{v, v}
		}
		return []int64{v}
	}, 0)
	v, err := chaostest.Run(t.Context(), chaostest.AtLeastOnce, svc, small(t))
	if err != nil {
		t.Fatal(err)
	}
	if v.Held || v.Observed != chaostest.Guarantee(0) {
		t.Errorf("held %v, observed %v; want not held, none", v.Held, v.Observed)
	}
	if got, want := values(v.Lost), []int64{7, 27, 47}; !slices.Equal(got, want) {
		t.Errorf("lost %v, want %v", got, want)
	}
	if got, want := values(v.Duplicated), []int64{13, 33, 53}; !slices.Equal(got, want) {
		t.Errorf("duplicated %v, want %v", got, want)
	}
	for _, r := range v.Lost {
		if r.InputOffset < 0 || r.Partition != (r.Value-1)%2 || len(r.OutputOffsets) != 0 {
			t.Errorf("lost record named without its input offset or with output offsets: %v", r)
		}
	}
	for _, r := range v.Duplicated {
		if len(r.OutputOffsets) != 2 {
			t.Errorf("duplicate named without its two output offsets: %v", r)
		}
	}
	if !v.Kept || !strings.Contains(v.String(), v.Dir) {
		t.Errorf("a failed verdict keeps and names its run directory: kept %v, %q", v.Kept, v.String())
	}
}

// A faithful copy holds exactly-once, and a copier that duplicates but
// loses nothing holds at-least-once: the checks find no loss where there
// is none.
func TestVerdictHoldsWhenTheOutputKeepsTheGuarantee(t *testing.T) {
	v, err := chaostest.Run(t.Context(), chaostest.ExactlyOnce, copier(same, 0), small(t))
	if err != nil || !v.Held || len(v.Lost)+len(v.Duplicated) != 0 || v.Delivered != v.Acked || v.Acked != 60 {
		t.Fatalf("faithful copy: %v, %v", v, err)
	}
	if v.Kept {
		t.Errorf("a run that held left its directory %s", v.Dir)
	}
	dup := copier(func(v int64) []int64 { return []int64{v, v} }, 0)
	v, err = chaostest.Run(t.Context(), chaostest.AtLeastOnce, dup, small(t))
	if err != nil || !v.Held || len(v.Lost) != 0 || len(v.Duplicated) != 60 {
		t.Fatalf("duplicating copy under at-least-once: %v, %v", v, err)
	}
}

// The client the code under test uses, named in Options, is in the run's
// scenario.json as the consumer role's client: the page and any
// comparison of runs say which client was under test.
func TestClientIsRecordedInTheScenario(t *testing.T) {
	o := small(t)
	o.Client, o.Keep = "java@3.9.1", true
	v, err := chaostest.Run(t.Context(), chaostest.ExactlyOnce, copier(same, 0), o)
	if err != nil || !v.Held {
		t.Fatalf("faithful copy: %v, %v", v, err)
	}
	b, err := os.ReadFile(filepath.Join(v.Dir, "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s generators.Scenario
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.ClientOf(generators.RoleConsumer) != generators.ClientJava || s.ClientVersion != "3.9.1" || s.ClientOf(generators.RoleProducer) != generators.ClientLibrdkafka {
		t.Errorf("scenario.json clients %v, version %q: want the consumer role java 3.9.1, the input producer librdkafka", s.Clients, s.ClientVersion)
	}
}

// Code that ignores its ctx is reported as hung within StopGrace, and the
// run ends on time; code that writes to the wrong partition breaks the
// contract, which is an error, not a verdict.
func TestHangsAndBrokenContractsAreReported(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	o := small(t)
	o.StopGrace, o.Drain = 300*time.Millisecond, 300*time.Millisecond
	began := time.Now()
	ft := &failTB{TB: t}
	v := chaostest.Check(ft, chaostest.AtMostOnce, func(context.Context, chaostest.Env) error {
		<-release
		return nil
	}, o)
	if len(v.Hangs) != 1 || !strings.Contains(v.Hangs[0], "did not return within 300ms") || !strings.Contains(ft.errors, v.Hangs[0]) {
		t.Errorf("hanging code: hangs %q; Check failed with %q", v.Hangs, ft.errors)
	}
	if b, err := os.ReadFile(filepath.Join(v.Dir, "hang-0.txt")); err != nil || !strings.Contains(string(b), "TestHangsAndBrokenContractsAreReported") {
		t.Errorf("the stacks of the hung code, kept in the run directory: %v", err)
	}
	if took := time.Since(began); took > 30*time.Second {
		t.Errorf("a run with hanging code took %v", took)
	}
	_, err := chaostest.Run(t.Context(), chaostest.AtLeastOnce, copier(same, 1), small(t))
	if err == nil || !strings.Contains(err.Error(), "output partition") {
		t.Errorf("records written to the next partition: err %v, want one naming the output partition", err)
	}
}

// Options that cannot make a run are errors naming what is wrong, before
// any cluster starts.
func TestBadOptionsAreErrors(t *testing.T) {
	late := chaostest.KillBroker(time.Second, 5*time.Second)
	churn := generators.Fault{Kind: generators.KindChurn, Duration: generators.Duration(time.Second)}
	for _, tc := range []struct {
		name string
		want chaostest.Guarantee
		opts chaostest.Options
		says string
	}{
		{"fault past the end", chaostest.ExactlyOnce, chaostest.Options{Faults: []chaostest.Fault{late}}, "after the run's"},
		{"no guarantee", chaostest.Guarantee(0), chaostest.Options{}, "state ExactlyOnce"},
		{"unknown cluster", chaostest.ExactlyOnce, chaostest.Options{Cluster: "nowhere"}, "not registered"},
		{"negative records", chaostest.ExactlyOnce, chaostest.Options{Records: -1}, "at least 1"},
		{"churn", chaostest.ExactlyOnce, chaostest.Options{Faults: []chaostest.Fault{churn}}, "cannot act on code under test"},
		{"unknown client", chaostest.ExactlyOnce, chaostest.Options{Client: "kcat"}, `Client "kcat": want one of`},
		{"franz-go with a version", chaostest.ExactlyOnce, chaostest.Options{Client: "franz-go@1.18.0"}, "only java takes a version"},
	} {
		tc.opts.RunsDir = t.TempDir()
		_, err := chaostest.Run(t.Context(), tc.want, copier(same, 0), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.says)
		}
	}
}

// An existing cluster, given by its bootstrap address, gets the run's
// topics for the run only, and refuses faults that would harm it.
func TestExistingClusterLendsTopicsAndTakesNoClusterFault(t *testing.T) {
	lent := embedded.New()
	if err := lent.Start(t.Context(), cluster.Spec{Brokers: 1}); err != nil {
		t.Fatal(err)
	}
	defer lent.Stop(context.Background())
	o := small(t)
	o.Cluster, o.Bootstrap = "", lent.Bootstrap()
	v, err := chaostest.Run(t.Context(), chaostest.ExactlyOnce, copier(same, 0), o)
	if err != nil || !v.Held || v.Acked != 60 {
		t.Fatalf("copy on an existing cluster: %v, %v", v, err)
	}
	for _, topic := range []string{"chaostest-in-", "chaostest-out-"} {
		if topic += filepath.Base(v.Dir); lent.Fake().TopicInfo(topic) != nil {
			t.Errorf("topic %s left on the lent cluster", topic)
		}
	}
	o.Faults = []chaostest.Fault{chaostest.KillBroker(0, time.Second)}
	if _, err := chaostest.Run(t.Context(), chaostest.ExactlyOnce, copier(same, 0), o); err == nil || !strings.Contains(err.Error(), `"kill"`) {
		t.Errorf("a kill on a lent cluster: err %v, want one naming the capability", err)
	}
}

// Drawn schedules are made of kinds the run can play (no churn: the code
// under test is no member of the harness's group), within the run, and
// the same seed draws the same schedule.
func TestFaultsGenDrawsPlayableSchedules(t *testing.T) {
	o := chaostest.Options{Cluster: "embedded", Duration: 3 * time.Second}
	gen := chaostest.FaultsGen(o)
	kinds := map[string]bool{}
	for seed := range 50 {
		faults := gen.Example(seed)
		if len(faults) < 1 || len(faults) > 3 {
			t.Errorf("seed %d: %d faults, want 1 to 3", seed, len(faults))
		}
		for _, f := range faults {
			kinds[f.Kind] = true
			if f.Kind == generators.KindChurn || f.End().D() > o.Duration {
				t.Errorf("seed %d: %s from %v to %v cannot be played in a %v run", seed, f.Kind, f.Start, f.End(), o.Duration)
			}
		}
		if !slices.EqualFunc(faults, gen.Example(seed), func(a, b chaostest.Fault) bool { return a.Kind == b.Kind && a.Start == b.Start }) {
			t.Errorf("seed %d draws two schedules", seed)
		}
	}
	if !kinds[generators.KindKill] || !kinds[generators.KindCrashConsumer] {
		t.Errorf("50 draws never drew a kill and a crash of the code: %v", kinds)
	}
}

// failTB is a testing.TB whose failures a test can read: Check's
// verdicts on code that breaks the rules.
type failTB struct {
	testing.TB
	errors string
}

func (f *failTB) Errorf(format string, args ...any) { f.errors += fmt.Sprintf(format, args...) }
